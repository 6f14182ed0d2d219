"""What several instances race for, decided by the database: who ends a game, who takes a seat.

Each claim is one conditional ``UPDATE`` inside the transaction that writes what it claims, so
when two instances (or two requests) try at once exactly one succeeds and the other gets
:class:`~kahuna.server.db.writer.Conflict`, catches up from the database and answers as for any
change that came second. In the embedded default they cost one statement each, in transactions
that are made anyway (once per game).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, select, update

from kahuna.server.db.schema import actions, clocks, games
from kahuna.server.db.writer import Conflict


def claim_end(conn: Connection, game_id: str, version: int) -> None:
    """Mark the game over, if it is not yet and has exactly ``version`` actions; else
    :class:`Conflict` (another instance ended it or moved first). Call before writing the result,
    in the same transaction: the row lock taken here orders two instances ending it at once."""
    ended = conn.execute(update(games).where(games.c.id == game_id, games.c.status != "over").values(status="over"))
    if ended.rowcount != 1:
        raise Conflict()
    stored = conn.execute(select(func.count()).select_from(actions).where(actions.c.game_id == game_id)).scalar()
    if stored != version:
        raise Conflict()


def claim_seat(conn: Connection, game_id: str, seat: int) -> None:
    """Reserve ``seat`` for an invited player if nobody took it (from any instance); else
    :class:`Conflict`. The name written here is replaced by the real one in the same transaction."""
    column = games.c[f"name{seat}"]
    taken = conn.execute(update(games).where(games.c.id == game_id, column.is_(None)).values({column: ""}))
    if taken.rowcount != 1:
        raise Conflict()


def claim_clock_start(conn: Connection, game_id: str, version: int, clock: dict[str, Any]) -> None:
    """Start the game's clock waiting for its players (store ``clock``), if it still waits and the
    game has exactly ``version`` actions (the seat whose clock starts is the one to move then);
    else :class:`Conflict` (another instance started it, or a turn was stored meanwhile)."""
    started = conn.execute(
        update(clocks)
        .where(clocks.c.game_id == game_id, clocks.c.running.is_(None), clocks.c.starts_by.is_not(None))
        .values(running=clock["running"], since=clock["since"], starts_by=None)
    )
    if started.rowcount != 1:
        raise Conflict()
    stored = conn.execute(select(func.count()).select_from(actions).where(actions.c.game_id == game_id)).scalar()
    if stored != version:
        raise Conflict()
