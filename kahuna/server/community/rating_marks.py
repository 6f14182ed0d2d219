"""Accounts a moderator marked for cheating or rating manipulation (docs/moderation.md, *Account
sanctions*): while a mark holds (a ``mark_cheating`` or ``mark_rating_manipulation`` sanction not
undone), the account is left off the leaderboard and refused rated games: a rated offer, accepting
one, a rated tournament (``403 rating_marked``).

The sanctions are moderation's (``moderation/account_sanctions.py`` makes them); the community reads
their table here, below moderation, so that the lobby and the tournaments need not know of it.
"""

from __future__ import annotations

from sqlalchemy import ColumnElement, Connection, exists, select

from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.db.schema import sanctions
from kahuna.server.db.writer import Writer

MARKS = ("mark_cheating", "mark_rating_manipulation")


def is_marked(account_id: ColumnElement[int] | int) -> ColumnElement[bool]:
    """The condition that the account (an id, or a column of ids) is marked now."""
    return exists().where(sanctions.c.target == account_id, sanctions.c.kind.in_(MARKS), sanctions.c.undone.is_(None))


def marked(conn: Connection, account_id: int) -> bool:
    return bool(conn.execute(select(is_marked(account_id))).scalar())


async def refuse_marked(writer: Writer, account_id: int) -> None:
    """``403 rating_marked`` if the account is marked."""
    if await writer.read(lambda conn: marked(conn, account_id)):
        raise Rejected("rating_marked", "a moderator marked this account: it plays casual games only", 403)


async def refuse_unrated(writer: Writer, rated: bool, account: Account | None) -> None:
    """A rated game needs an account (``401 unauthorized``) not marked (``403 rating_marked``)."""
    if rated and account is None:
        raise Rejected("unauthorized", "rated games need an account: sign in", 401)
    if rated and account is not None:
        await refuse_marked(writer, account.id)
