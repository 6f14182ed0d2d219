"""Follows and blocks between accounts: the rows of ``follows`` and ``blocks`` and the rules that
keep them consistent (issue 29).

Following is public (a profile lists who follows the player and whom the player follows); blocking
is private (only the blocker sees it) and outranks following: a blocked account cannot follow its
blocker, and blocking someone removes their follow of the blocker and the blocker's of them. What a
block stops elsewhere (challenges and seeks between the two, chat from the blocked account in the
blocker's games, a tournament's pairing of the two) asks :func:`blocked_either`,
:func:`blocked_by_any` or :func:`blocked_pairs`.

Every refusal is a :class:`Rejected` with its own code, returned (so that the writer's
transaction commits nothing rather than failing) and raised by the caller; each account may follow
at most ``follows_per_account`` (500) and block at most ``blocks_per_account`` (1000) accounts
(``Limits``, ``kahuna serve --limit``). A deleted account is
left out of every list and count (its rows stay, unreachable: its name cannot be signed up again).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, delete, func, insert, or_, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.common.tokens import digest
from kahuna.server.db.schema import accounts, blocks, browser_accounts, follows
from kahuna.server.db.writer import Writer

MAX_FOLLOWS = 500
"""Accounts one account may follow by default (``Limits.follows_per_account``)."""
MAX_BLOCKS = 1000
"""Accounts one account may block by default (``Limits.blocks_per_account``)."""
LISTED = 100
"""Followers or followed accounts a profile lists (the newest follows first); the counts are whole."""


def _live(column: Any) -> Any:
    """The condition that the account in ``column`` is not deleted."""
    return select(accounts.c.id).where(accounts.c.id == column, accounts.c.deleted.is_(None)).exists()


def is_following(conn: Connection, follower: int, followed: int) -> bool:
    row = conn.execute(select(follows.c.created).where(follows.c.follower == follower, follows.c.followed == followed))
    return row.first() is not None


def is_blocking(conn: Connection, blocker: int, blocked: int) -> bool:
    row = conn.execute(select(blocks.c.created).where(blocks.c.blocker == blocker, blocks.c.blocked == blocked))
    return row.first() is not None


def blocked_either(conn: Connection, one: int, other: int) -> bool:
    """Whether either account blocks the other (no challenge, no seek accepted between them)."""
    pair = or_(
        and_(blocks.c.blocker == one, blocks.c.blocked == other),
        and_(blocks.c.blocker == other, blocks.c.blocked == one),
    )
    return conn.execute(select(blocks.c.created).where(pair)).first() is not None


def blocked_by_any(conn: Connection, blockers: Iterable[int], blocked: int) -> bool:
    """Whether one of ``blockers`` (a game's players) blocks ``blocked``."""
    wanted = [b for b in set(blockers) if b != blocked]
    if not wanted:
        return False
    query = select(blocks.c.created).where(blocks.c.blocker.in_(wanted), blocks.c.blocked == blocked)
    return conn.execute(query).first() is not None


def blocked_pairs(conn: Connection, ids: Iterable[int]) -> set[frozenset[int]]:
    """The pairs of ``ids`` of which one blocks the other: a tournament never pairs them."""
    wanted = sorted(set(ids))
    if len(wanted) < 2:
        return set()
    query = select(blocks.c.blocker, blocks.c.blocked).where(blocks.c.blocker.in_(wanted), blocks.c.blocked.in_(wanted))
    return {frozenset((row.blocker, row.blocked)) for row in conn.execute(query)}


def _count(conn: Connection, table: Any, side: Any, account_id: int, other: Any) -> int:
    query = select(func.count()).select_from(table).where(side == account_id, _live(other))
    return int(conn.execute(query).scalar_one())


def follow(conn: Connection, follower: Account, target: Account, most: int = MAX_FOLLOWS) -> Rejected | None:
    """``follower`` follows ``target``; ``Rejected`` (nothing written) for oneself, twice, a blocker
    of ``follower``, someone ``follower`` blocks, or beyond ``most`` follows."""
    if follower.id == target.id:
        return Rejected("own_account", "you cannot follow yourself", 422)
    if is_following(conn, follower.id, target.id):
        return Rejected("already_following", f"you already follow {target.username}", 409)
    if is_blocking(conn, target.id, follower.id):
        return Rejected("blocked", f"{target.username} does not accept follows from you", 403)
    if is_blocking(conn, follower.id, target.id):
        return Rejected("blocking", f"you block {target.username}: unblock first", 409)
    if _count(conn, follows, follows.c.follower, follower.id, follows.c.followed) >= most:
        return Rejected("too_many_follows", f"you follow {most} players already: unfollow one first", 409, limit=most)
    conn.execute(insert(follows).values(follower=follower.id, followed=target.id, created=time.time()))
    return None


def unfollow(conn: Connection, follower: Account, target: Account) -> Rejected | None:
    gone = conn.execute(delete(follows).where(follows.c.follower == follower.id, follows.c.followed == target.id))
    if not gone.rowcount:
        return Rejected("not_following", f"you do not follow {target.username}", 409)
    return None


def block(conn: Connection, blocker: Account, target: Account, most: int = MAX_BLOCKS) -> Rejected | None:
    """``blocker`` blocks ``target``, and the follows between the two end; ``Rejected`` (nothing
    written) for oneself, twice, or beyond ``most`` blocks."""
    if blocker.id == target.id:
        return Rejected("own_account", "you cannot block yourself", 422)
    if is_blocking(conn, blocker.id, target.id):
        return Rejected("already_blocked", f"you already block {target.username}", 409)
    if _count(conn, blocks, blocks.c.blocker, blocker.id, blocks.c.blocked) >= most:
        return Rejected("too_many_blocks", f"you block {most} players already: unblock one first", 409, limit=most)
    conn.execute(insert(blocks).values(blocker=blocker.id, blocked=target.id, created=time.time()))
    between = or_(
        and_(follows.c.follower == target.id, follows.c.followed == blocker.id),
        and_(follows.c.follower == blocker.id, follows.c.followed == target.id),
    )
    conn.execute(delete(follows).where(between))
    return None


def unblock(conn: Connection, blocker: Account, target: Account) -> Rejected | None:
    gone = conn.execute(delete(blocks).where(blocks.c.blocker == blocker.id, blocks.c.blocked == target.id))
    if not gone.rowcount:
        return Rejected("not_blocked", f"you do not block {target.username}", 409)
    return None


def following_of(conn: Connection, account_id: int, limit: int = MAX_FOLLOWS) -> list[tuple[int, str]]:
    """The accounts ``account_id`` follows (id, name), the newest follow first."""
    rows = conn.execute(
        select(accounts.c.id, accounts.c.username)
        .join(follows, follows.c.followed == accounts.c.id)
        .where(follows.c.follower == account_id, accounts.c.deleted.is_(None))
        .order_by(follows.c.created.desc(), accounts.c.id)
        .limit(limit)
    )
    return [(row.id, row.username) for row in rows]


def followers_of(conn: Connection, account_id: int, limit: int = LISTED) -> list[tuple[int, str]]:
    """The accounts that follow ``account_id`` (id, name), the newest follow first."""
    rows = conn.execute(
        select(accounts.c.id, accounts.c.username)
        .join(follows, follows.c.follower == accounts.c.id)
        .where(follows.c.followed == account_id, accounts.c.deleted.is_(None))
        .order_by(follows.c.created.desc(), accounts.c.id)
        .limit(limit)
    )
    return [(row.id, row.username) for row in rows]


def blocked_by(conn: Connection, account_id: int, limit: int = MAX_BLOCKS) -> list[str]:
    """The names of the accounts ``account_id`` blocks, the newest block first."""
    rows = conn.execute(
        select(accounts.c.username)
        .join(blocks, blocks.c.blocked == accounts.c.id)
        .where(blocks.c.blocker == account_id, accounts.c.deleted.is_(None))
        .order_by(blocks.c.created.desc(), accounts.c.id)
        .limit(limit)
    )
    return [row.username for row in rows]


def follow_counts(conn: Connection, account_id: int) -> dict[str, int]:
    return {
        "followers": _count(conn, follows, follows.c.followed, account_id, follows.c.follower),
        "following": _count(conn, follows, follows.c.follower, account_id, follows.c.followed),
    }


BROWSER_ACCOUNTS = 20
"""Accounts a browser is remembered for (the latest to sign in on it): a shared computer has a few."""


def remember_browser(conn: Connection, browser: str, account_id: int, moment: float) -> None:
    """Note that ``account_id`` signed in on the browser whose cookie has the digest ``browser``."""
    table = browser_accounts
    values = {"browser": browser, "account_id": account_id, "seen": moment}
    upsert = pg_insert(table) if conn.dialect.name == "postgresql" else sqlite_insert(table)
    conn.execute(
        upsert.values(**values).on_conflict_do_update(index_elements=["browser", "account_id"], set_={"seen": moment})
    )


def accounts_on_browser(conn: Connection, browser: str | None) -> list[int]:
    """The accounts latest signed in on the browser of this cookie digest (``None``: no cookie)."""
    if browser is None:
        return []
    query = (
        select(browser_accounts.c.account_id)
        .where(browser_accounts.c.browser == browser)
        .order_by(browser_accounts.c.seen.desc())
        .limit(BROWSER_ACCOUNTS)
    )
    return list(conn.execute(query).scalars())


@dataclass(frozen=True)
class Someone:
    """Someone about to sit at a game, as blocks see it: an account, or a guest known by the digest
    of its ``browser`` cookie, which stands for the accounts that signed in on that browser (a
    player blocked, signed out, is still the blocked player there)."""

    account: int | None
    browser: str | None = None

    @classmethod
    def of(cls, account: Account | None, browser_cookie: str | None = None) -> Someone:
        """Who makes a request: its account, or a guest by its ``browser`` cookie (``None``: none)."""
        if account is not None:
            return cls(account.id)
        return cls(None, None if browser_cookie is None else digest(browser_cookie))

    def known(self) -> bool:
        """Whether it may stand for an account (a guest without a cookie stands for none)."""
        return self.account is not None or self.browser is not None

    def accounts(self, conn: Connection) -> list[int]:
        return [self.account] if self.account is not None else accounts_on_browser(conn, self.browser)


def parties_blocked(conn: Connection, one: Someone, other: Someone) -> bool:
    """Whether an account of ``one`` and one of ``other`` block each other, either way."""
    return any(blocked_either(conn, a, b) for a in one.accounts(conn) for b in other.accounts(conn) if a != b)


async def refuse_blocked(writer: Writer, party: Someone, other: int) -> None:
    """``Rejected`` (403 ``blocked``) when ``party`` and the account ``other`` block each other,
    either way: no challenge, no seek accepted between them (a guest whose browser no account
    signed in on blocks nobody)."""
    if await writer.read(lambda conn: parties_blocked(conn, party, Someone(other))):
        raise Rejected("blocked", "one of you blocks the other: no game between you", 403)


async def pair_blocked(writer: Writer, one: Someone, other: Someone) -> bool:
    """Whether the parties of two quick-pairing entries block each other (they are not paired)."""
    if not (one.known() and other.known()):
        return False
    return await writer.read(lambda conn: parties_blocked(conn, one, other))
