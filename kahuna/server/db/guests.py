"""Deleting guests' aborted and abandoned games, which nobody can find again once their links are
lost and which no profile, rating or tournament counts.

What the code makes of those words:

- **a guest's game**: no seat belongs to an account (``seats.account_id`` is ``NULL`` for both), no
  ``game_accounts`` row names an account (a lobby game between two guests has one, with two
  ``NULL`` accounts) and no tournament board is played in it. A game a signed-in player made, or
  one against an AI level's bot account, is never a guest's game.
- **aborted**: over, and its stored result says it ended ``aborted`` (a seat aborted it before
  either player finished a turn: ``games/ending.py``).
- **abandoned**: not over, untimed (a timed game ends by itself when a clock runs out or never
  starts), and untouched since the cut-off: no join, action or chat line after it. The invite
  that nobody accepted and the game against the AI left after three moves are the usual ones.

Everything stored for such a game is deleted, in one transaction per batch that checks each game
again under the lock of its ``games`` row. A guest's game that ended normally is kept (and
archived when old, ``db/archive.py``).
"""

from __future__ import annotations

import json
from collections.abc import Collection

from sqlalchemy import ColumnElement, Connection, and_, delete, exists, or_, select

from kahuna.server.db.schema import (
    actions,
    analyses,
    chat,
    clocks,
    game_accounts,
    games,
    rematches,
    reshuffles,
    seat_seen,
    seats,
    tournament_games,
)

BATCH = 100
"""Games deleted per transaction."""

ABORTED = '%"reason": "aborted"%'
"""How an aborted game's stored result reads (``store.end_game`` writes it with ``json.dumps``);
each match is checked again by parsing it (:func:`_aborted`)."""

OWNED_BY_GAME = (seat_seen, chat, clocks, reshuffles, actions, analyses, game_accounts, seats)
"""Every table whose rows belong to one game (by ``game_id``), deleted before its ``games`` row."""


def _guests_only() -> list[ColumnElement[bool]]:
    """The conditions of a guest's game on a query of ``games``."""
    return [
        ~exists().where(seats.c.game_id == games.c.id, seats.c.account_id.is_not(None)),
        ~exists().where(
            game_accounts.c.game_id == games.c.id,
            or_(game_accounts.c.account0.is_not(None), game_accounts.c.account1.is_not(None)),
        ),
        ~exists().where(tournament_games.c.game_id == games.c.id),
    ]


def _abandoned(before: str) -> ColumnElement[bool]:
    """Not over, untimed, and nothing written to it since ``before``."""
    return and_(
        games.c.status != "over",
        games.c.updated < before,
        ~exists().where(clocks.c.game_id == games.c.id),
        ~exists().where(actions.c.game_id == games.c.id, actions.c.at >= before),
        ~exists().where(chat.c.game_id == games.c.id, chat.c.at >= before),
    )


def _aborted_or_abandoned(before: str) -> ColumnElement[bool]:
    aborted = and_(games.c.status == "over", games.c.updated < before, games.c.result.like(ABORTED))
    return or_(aborted, _abandoned(before))


def _aborted(result: str | None) -> bool:
    try:
        stored = json.loads(result or "null")
    except ValueError:
        return False
    termination = stored.get("termination") if isinstance(stored, dict) else None
    return isinstance(termination, dict) and termination.get("reason") == "aborted"


def due(conn: Connection, before: str, limit: int = BATCH, skip: Collection[str] = ()) -> list[str]:
    """Up to ``limit`` guests' games aborted or abandoned before ``before`` (a time stamp as the
    database writes them), but those in ``skip``."""
    query = (
        select(games.c.id, games.c.status, games.c.result)
        .where(_aborted_or_abandoned(before), *_guests_only())
        .order_by(games.c.updated, games.c.id)
        .limit(limit + len(skip))
    )
    found = [
        row.id for row in conn.execute(query) if row.id not in skip and (row.status != "over" or _aborted(row.result))
    ]
    return found[:limit]


def delete_games(conn: Connection, game_ids: list[str], before: str) -> int:
    """Delete each of ``game_ids`` that is still a guest's game aborted or abandoned before
    ``before`` (checked under the lock of its ``games`` row); how many were deleted."""
    if not game_ids:
        return 0
    locked = conn.execute(
        select(games.c.id, games.c.status, games.c.result)
        .where(games.c.id.in_(game_ids), _aborted_or_abandoned(before), *_guests_only())
        .order_by(games.c.id)
        .with_for_update(of=games)
    ).all()
    gone = [row.id for row in locked if row.status != "over" or _aborted(row.result)]
    if gone:
        conn.execute(delete(rematches).where(or_(rematches.c.game_id.in_(gone), rematches.c.new_game_id.in_(gone))))
        for table in OWNED_BY_GAME:
            conn.execute(delete(table).where(table.c.game_id.in_(gone)))
        conn.execute(delete(games).where(games.c.id.in_(gone)))
    return len(gone)
