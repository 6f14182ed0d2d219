"""The accounts of a paired game's seats (``game_accounts``) as the games room reads and completes
them: a rematch carries them over (``games/factory.py``), a signed-in player taking an invitation's
seat adds its own (``games/joining.py``)."""

from __future__ import annotations

from sqlalchemy import Connection, select, update

from kahuna.server.db.schema import game_accounts
from kahuna.server.db.store import insert_game_accounts


def game_accounts_of(conn: Connection, game_id: str) -> tuple[int | None, int | None, bool, str | None] | None:
    """A paired game's accounts of its seats, whether it is rated and why not if it was asked for
    as rated (``None``: no paired game)."""
    row = conn.execute(select(game_accounts).where(game_accounts.c.game_id == game_id)).first()
    if row is None:
        return None
    return row.account0, row.account1, bool(row.rated), row.casual_reason


def set_game_account(conn: Connection, game_id: str, seat: int, account: int, pool: str | None) -> None:
    """The account of one seat of a game (a signed-in player who took the seat of an invitation):
    written into its paired row, or a casual paired row started for it."""
    column = f"account{seat}"
    found = conn.execute(update(game_accounts).where(game_accounts.c.game_id == game_id).values({column: account}))
    if found.rowcount == 0:
        both = (account, None) if seat == 0 else (None, account)
        insert_game_accounts(conn, game_id, both, False, pool)
