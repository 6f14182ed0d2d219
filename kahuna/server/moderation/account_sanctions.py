"""The sanctions on an account itself (docs/moderation.md, *Account sanctions*), beside the warning
and the chat mute of ``sanctions``:

- ``mark_cheating``, ``mark_rating_manipulation`` (``minutes``: the period marked, looking back;
  none: the account's whole history): the account leaves the leaderboard and is refused rated games
  (``community/rating_marks.py``), leaving the rated tournaments it is in, and the rating points it
  took from its opponents in the period are given back to them through the ratings' own
  ``ratings.refund_opponents`` (each a ``refund`` row of the rating history). The undo lifts the
  mark; the points given back stay given.
- ``close``: the account's sessions and API tokens are revoked and it leaves its tournaments (here,
  in the sanction's transaction); its open offers are withdrawn and its running games resigned
  through the games' one end path, its game sockets closed (``service``, after the commit). Signing
  in is refused ``403 account_closed`` until the undo reopens it.
- ``block_signups`` (``minutes``): the browsers (``browser_accounts``) and addresses
  (``account_addresses``) the account was seen on are blocked from signing up, ``403
  signups_blocked``, for the minutes given or until the undo.

A state lasts as long as its sanction is not undone: nothing else is stored to undo.
"""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, delete, exists, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from kahuna.server.accounts.store import end_sessions, leave_tournaments
from kahuna.server.common.errors import Rejected
from kahuna.server.community import rating_marks, ratings
from kahuna.server.db import store
from kahuna.server.db.schema import (
    account_addresses,
    accounts,
    api_tokens,
    browser_accounts,
    sanctions,
    signup_blocks,
)

CLOSE, BLOCK_SIGNUPS = "close", "block_signups"
MARKS = rating_marks.MARKS
"""The rating marks: ``mark_cheating``, ``mark_rating_manipulation``."""
KINDS = (*MARKS, CLOSE, BLOCK_SIGNUPS)
BROWSER, ADDRESS = "browser", "address"


def refusal(conn: Connection, kind: str, target: int, minutes: int | None) -> Rejected | None:
    """Why this account sanction cannot be made now (nothing is changed), or ``None``."""
    if ratings.anchor_of(conn, target) is not None:
        return Rejected("ai_level", "an AI level's bot account is the server's own: not sanctioned so", 422)
    if kind == CLOSE and minutes is not None:
        return Rejected("invalid", "a close has no minutes: it holds until undone", 422)
    if kind == BLOCK_SIGNUPS and minutes is None:
        return Rejected("invalid", "a block_signups needs minutes", 422)
    if kind in MARKS and rating_marks.marked(conn, target):
        return Rejected("already_marked", "the account is marked already: undo that mark first", 409)
    if kind == CLOSE and closed(conn, target):
        return Rejected("already_closed", "the account is closed already", 409)
    return None


def apply(
    conn: Connection, kind: str, sanction_id: int, target: int, minutes: int | None, now: float
) -> dict[str, Any]:
    """Do in the sanction's transaction what ``kind`` does to ``target``; what the log adds."""
    if kind in MARKS:
        since = "" if minutes is None else store.iso(now - 60 * minutes)
        given = ratings.refund_opponents(conn, target, since, store.iso(now))
        leave_tournaments(conn, target, rated_only=True)
        names = _names(conn, {entry["account_id"] for entry in given})
        refunds = [{**entry, "username": names.get(entry["account_id"])} for entry in given]
        return {"refunds": [{k: v for k, v in entry.items() if k != "account_id"} for entry in refunds]}
    if kind == CLOSE:
        ended = end_sessions(conn, target)
        revoked = conn.execute(delete(api_tokens).where(api_tokens.c.account_id == target)).rowcount
        leave_tournaments(conn, target)
        return {"sessions": ended, "tokens": revoked}
    if kind == BLOCK_SIGNUPS:
        assert minutes is not None
        expires = now + 60 * minutes
        seen = [(BROWSER, row.browser) for row in conn.execute(select(browser_accounts.c.browser).where(
            browser_accounts.c.account_id == target))]  # fmt: skip
        seen += [(ADDRESS, row.address) for row in conn.execute(select(account_addresses.c.address).where(
            account_addresses.c.account_id == target))]  # fmt: skip
        for what, digest in seen:
            conn.execute(
                signup_blocks.insert().values(sanction_id=sanction_id, what=what, digest=digest, expires=expires)
            )
        return {
            "browsers": sum(what == BROWSER for what, _ in seen),
            "addresses": sum(what == ADDRESS for what, _ in seen),
        }
    return {}


def target_of(conn: Connection, sanction_id: int) -> int:
    return int(conn.execute(select(sanctions.c.target).where(sanctions.c.id == sanction_id)).scalar_one())


def _names(conn: Connection, ids: set[int]) -> dict[int, str]:
    rows = conn.execute(select(accounts.c.id, accounts.c.username).where(accounts.c.id.in_(ids)))
    return {row.id: row.username for row in rows}


def closed(conn: Connection, account_id: int) -> bool:
    """Whether a moderator closed the account (a ``close`` not undone): signing in is refused."""
    query = select(
        exists().where(sanctions.c.target == account_id, sanctions.c.kind == CLOSE, sanctions.c.undone.is_(None))
    )
    return bool(conn.execute(query).scalar())


def signups_blocked(conn: Connection, browser: str | None, address: str) -> bool:
    """Whether a sign-up from this browser (its cookie's digest; ``None``: no cookie) or address
    (its digest) is blocked now."""
    digests = [address] if browser is None else [address, browser]
    query = select(
        exists()
        .where(signup_blocks.c.digest.in_(digests), signup_blocks.c.expires > time.time())
        .where(sanctions.c.id == signup_blocks.c.sanction_id, sanctions.c.undone.is_(None))
    )
    return bool(conn.execute(query).scalar())


def remember_address(conn: Connection, address: str, account_id: int, moment: float) -> None:
    """Note that ``account_id`` signed up or in from the address of this digest."""
    values = {"address": address, "account_id": account_id, "seen": moment}
    upsert = pg_insert(account_addresses) if conn.dialect.name == "postgresql" else sqlite_insert(account_addresses)
    conn.execute(
        upsert.values(**values).on_conflict_do_update(index_elements=["address", "account_id"], set_={"seen": moment})
    )
