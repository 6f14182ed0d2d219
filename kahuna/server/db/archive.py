"""Archiving finished games: an old finished game's per-action rows are folded into one compressed
record in its ``games`` row (``games.archive``, ``db/archive_format.py``), a twentieth of their
bytes or less (docs/scaling.md, "Storage").

Why it is safe beside running games: only games whose ``status`` is ``over`` and whose end
(``games.updated``) is older than the cut-off are folded, a batch at a time, each batch one short
transaction that locks only those finished games' ``games`` rows; a game being played is never
read or locked. The caller leaves out the games it holds in memory (the server's periodic pass).
A game is folded at most once: the pass skips archived games, and a batch checks again under the
lock, so two passes at once (two instances, or the server and ``kahuna admin archive``) fold each
game once.

What stays: the ``games`` row (its ``variant`` and ``deal`` emptied once a ``kahuna-archive/2``
record holds them), the seats (``my-games`` finds a seat by its token, an account by its seats;
each keeps 16 bytes of its token's digest from then on, ``schema.games.short_digest``), and the
rows other rooms read (``game_accounts``, ``rating_history``, ``tournament_games``, ``rematches``,
``analyses``), unchanged. ``store.load_game`` reads an archived game from its record, so replay,
analysis, the record and the exports give the same answers.
"""

from __future__ import annotations

from collections.abc import Collection

from sqlalchemy import ColumnElement, Connection, bindparam, delete, func, select, update

from kahuna.server.db import store
from kahuna.server.db.archive_format import holds_game_columns, pack
from kahuna.server.db.schema import actions, chat, clocks, games, reshuffles, seat_seen, seats
from kahuna.server.db.schema.games import short_digest

BATCH = 100
"""Games folded per transaction by ``kahuna admin archive`` (``--batch``)."""

PER_ACTION_TABLES = (actions, reshuffles, clocks, chat, seat_seen)
"""The rows a game's archive replaces (``seat_seen`` is only a correspondence game's reminder
state, of no use once it is over)."""


def _unarchived(ended_before: str | None = None) -> list[ColumnElement[bool]]:
    """The conditions of a finished game not archived yet (that ended before ``ended_before``)."""
    finished = [games.c.status == "over", games.c.archive.is_(None)]
    return finished if ended_before is None else [*finished, games.c.updated < ended_before]


def due(conn: Connection, ended_before: str, limit: int = BATCH, skip: Collection[str] = ()) -> list[str]:
    """Up to ``limit`` finished games, not yet archived, that ended before ``ended_before`` (a time
    stamp as the database writes them), but those in ``skip``, oldest first."""
    query = (
        select(games.c.id)
        .where(*_unarchived(ended_before))
        .order_by(games.c.updated, games.c.id)
        .limit(limit + len(skip))
    )
    found = [game_id for game_id in conn.execute(query).scalars() if game_id not in skip]
    return found[:limit]


def count_due(conn: Connection, ended_before: str) -> int:
    """How many finished games ended before ``ended_before`` and are not archived yet."""
    query = select(func.count()).select_from(games).where(*_unarchived(ended_before))
    return int(conn.execute(query).scalar() or 0)


def archive_games(conn: Connection, game_ids: list[str]) -> int:
    """Fold each of ``game_ids`` that is still finished and not archived (checked under the lock of
    its ``games`` row) into its archive record; how many were folded."""
    if not game_ids:
        return 0
    locked = conn.execute(
        select(games.c.id, games.c.variant, games.c.deal)
        .where(games.c.id.in_(game_ids), *_unarchived())
        .order_by(games.c.id)
        .with_for_update(of=games)
    ).all()
    folding = [game_id for game_id, _, _ in locked]
    for game_id, variant, deal in locked:
        rows = store.per_action_rows(conn, game_id)
        rows.variant, rows.deal = variant, deal
        record = pack(rows)
        emptied = {"variant": "", "deal": ""} if holds_game_columns(record) else {}
        conn.execute(update(games).where(games.c.id == game_id).values(archive=record, **emptied))
    if folding:
        for table in PER_ACTION_TABLES:
            conn.execute(delete(table).where(table.c.game_id.in_(folding)))
        shorten_seat_digests(conn, folding)
    return len(folding)


def shorten_seat_digests(conn: Connection, game_ids: list[str]) -> None:
    """Keep only the :func:`~kahuna.server.db.schema.games.short_digest` of each seat token of
    these (archived) games: a look-up by token looks for both forms."""
    held = conn.execute(select(seats.c.token).where(seats.c.game_id.in_(game_ids))).scalars().all()
    pairs = [{"whole": token, "short": short_digest(token)} for token in held]
    shortened = [pair for pair in pairs if pair["short"] != pair["whole"]]
    if shortened:  # one statement for the batch, run for each seat (executemany)
        rewrite = update(seats).where(seats.c.token == bindparam("whole")).values(token=bindparam("short"))
        conn.execute(rewrite, shortened)
