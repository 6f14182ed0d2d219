"""A player's finished games as ``kahuna-record/1`` records, for ``GET /api/users/<name>/games.jsonl``.

Which games: those a public profile lists (``game_accounts``: lobby games, challenges, games
against the AI levels' accounts, tournament boards) that are over. A game by invite link or a
hot-seat game is private to whoever holds its link, so it is not part of anybody's export, even
though its record can be fetched by id once it is over. Every game listed here is finished, and
a finished game's full record (the deal included) is public anyway, so nothing hidden leaks.

The records are read in pages of :data:`PAGE` games, oldest first, by key (``created``, ``id``),
so memory stays bounded whatever the number of games; each record is built from the stored rows
(deal, reshuffle orders, the actions as played) exactly as ``LiveGame.full_record`` builds it from
the replayed state, without replaying it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, or_, select

from kahuna.rules.record import GameRecord
from kahuna.rules.state import Termination, Variant
from kahuna.server.common import logs
from kahuna.server.db import store
from kahuna.server.db.schema import game_accounts, games
from kahuna.server.games.live import as_played

PAGE = 50
"""Games read from the database at a time."""


@dataclass(frozen=True)
class After:
    """Where the next page starts: after this game in (``created``, ``id``) order."""

    created: str
    game_id: str


def record_of(stored: store.StoredGame) -> dict[str, Any]:
    """The ``kahuna-record/1`` of a finished game, as ``LiveGame.full_record`` gives it."""
    played, _ = as_played(stored.actions)
    meta: dict[str, Any] = {
        "game_id": stored.game_id, "kinds": list(stored.kinds), "created": stored.created, "ended": stored.updated
    }  # fmt: skip
    if stored.clock is not None:
        meta["clock"] = stored.clock["control"]
    record = GameRecord(
        deal=stored.deal,
        actions=played,
        reshuffles=list(stored.reshuffles),
        variant=Variant.from_json(stored.variant),
        players=[name or "" for name in stored.names],
        meta=meta,
        termination=None if stored.termination is None else Termination.from_json(stored.termination),
    )
    return record.to_json()


@dataclass(frozen=True)
class Page:
    """One page of an export: the records, and where the next page starts (``None``: the last)."""

    records: list[dict[str, Any]]
    next: After | None


def finished_games_page(conn: Connection, account_id: int, after: After | None) -> Page:
    """The records of the account's next :data:`PAGE` finished games after ``after`` (oldest first).

    A game whose stored rows cannot be read back (a damaged row) is left out and logged, as the
    registry quarantines it, rather than cutting the stream of the others short."""
    query = (
        select(games.c.id, games.c.created)
        .join(game_accounts, game_accounts.c.game_id == games.c.id)
        .where(
            or_(game_accounts.c.account0 == account_id, game_accounts.c.account1 == account_id),
            games.c.status == "over",
        )
        .order_by(games.c.created, games.c.id)
        .limit(PAGE)
    )
    if after is not None:
        query = query.where(
            or_(games.c.created > after.created, and_(games.c.created == after.created, games.c.id > after.game_id))
        )
    keys = conn.execute(query).all()
    records = []
    for game_id, _created in keys:
        try:
            stored = store.load_game(conn, game_id)
            if stored is not None:
                records.append(record_of(stored))
        except Exception as exc:  # a damaged game costs its own line only
            logs.event("export_skipped", game_id=game_id, error=type(exc).__name__)
    last = After(keys[-1].created, keys[-1].id) if len(keys) == PAGE else None
    return Page(records, last)
