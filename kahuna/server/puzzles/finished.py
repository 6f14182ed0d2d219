"""A server's finished games as records, read from its database without writing to it: a source of
puzzle candidates for ``kahuna puzzles generate --db URL`` (docs/puzzles.md).

The database is opened read-only (SQLite: ``mode=ro``; PostgreSQL: every transaction read-only),
and not migrated: a database at another schema revision than this release's is refused (the server
of this release migrates it when it starts). The finished games (``status = 'over'``) are read in
pages of :data:`PAGE`, by key (``created``, ``id``), each through the store (``store.load_game``:
its per-action rows or its archive record) and built into a ``kahuna-record/1`` record as the
exports build it (``community.exports.record_of``). A game that cannot be read back (a damaged
row, an archive this release cannot unpack) is skipped and counted, not fatal.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from urllib.parse import quote

from sqlalchemy import Engine, and_, create_engine, func, or_, select
from sqlalchemy.engine import make_url

from kahuna.rules.record import GameRecord
from kahuna.server.community.exports import record_of
from kahuna.server.db import store
from kahuna.server.db.migrations import current, heads
from kahuna.server.db.schema import games

PAGE = 50
"""Games read from the database at a time."""


class SourceError(Exception):
    """The database cannot serve as a source (missing, unreadable, at another schema revision)."""


def open_read_only(url: str) -> Engine:
    """An engine on ``url`` that cannot write, checked to be at this release's schema revision."""
    url = store.database_url(url)
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        path = parsed.database
        if not path or path == ":memory:":
            raise SourceError("an SQLite URL must name a database file")
        engine = create_engine(f"sqlite:///file:{quote(path)}?mode=ro&uri=true")
    elif parsed.get_backend_name() == "postgresql":
        engine = create_engine(url, connect_args={"options": "-c default_transaction_read_only=on"})
    else:
        raise SourceError(f"not an SQLite or PostgreSQL URL: {parsed.get_backend_name()}")
    try:
        with engine.connect() as conn:
            revision = current(conn)
    except Exception as exc:
        engine.dispose()
        detail = getattr(exc, "orig", None) or exc  # the driver's words, without SQLAlchemy's statement and link
        raise SourceError(f"cannot read the database: {str(detail).strip()}") from None
    if revision not in heads():
        engine.dispose()
        raise SourceError(f"the database is at schema revision {revision}, this release reads {', '.join(heads())}")
    return engine


def finished_count(engine: Engine) -> int:
    """How many finished games the database holds."""
    with engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(games).where(games.c.status == "over")).scalar() or 0)


@dataclass(frozen=True)
class Finished:
    """One finished game: its record, or ``None`` when it could not be read back (and why)."""

    game_id: str
    record: GameRecord | None
    error: str | None = None


def finished_games(engine: Engine, skip: frozenset[str] = frozenset()) -> Iterator[Finished]:
    """Every finished game but those in ``skip`` (already used), oldest first."""
    after: tuple[str, str] | None = None
    while True:
        query = select(games.c.id, games.c.created).where(games.c.status == "over")
        if after is not None:
            query = query.where(
                or_(games.c.created > after[0], and_(games.c.created == after[0], games.c.id > after[1]))
            )
        with engine.connect() as conn:
            keys = conn.execute(query.order_by(games.c.created, games.c.id).limit(PAGE)).all()
            found = []
            for game_id, _created in keys:
                if game_id in skip:
                    continue
                try:
                    stored = store.load_game(conn, game_id)
                    if stored is None:  # deleted since the page was read
                        continue
                    found.append(Finished(game_id, GameRecord.from_json(record_of(stored))))
                except Exception as exc:  # a damaged game costs its own entry only
                    found.append(Finished(game_id, None, type(exc).__name__))
        yield from found
        if len(keys) < PAGE:
            return
        after = (keys[-1].created, keys[-1].id)
