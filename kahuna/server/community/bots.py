"""The AI levels as rated bot accounts, the site's own account, and turning an account into a bot.

Each AI level is a bot account named ``ai-<level>`` (``ai-easy`` … ``ai-expert``), created at
start-up: a challenge to it is accepted at once and the server's AI plays its seat, so the levels
get ratings on the same scale as people. The site's own bot account (``SITE_ACCOUNT``, ``kahuna``:
the fair-play screening's reporter) plays nothing: nobody would ever answer a challenge to it, so
none is made (:func:`refuse_unplayable`), and its profile offers none (:func:`plays_games`). Neither
it nor an AI level can be reported (:func:`run_by_server`): nobody stands behind them to warn, mute
or close, so such a report would wait in the moderators' queue for good.
"""

from __future__ import annotations

from sqlalchemy import Connection, exists, or_, select, update

from kahuna.server.accounts import store as db
from kahuna.server.accounts.passwords import LEVEL_PREFIX, SITE_ACCOUNT, username_key
from kahuna.server.accounts.store import Account
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.community import ratings
from kahuna.server.db.migrations import hold_startup_lock
from kahuna.server.db.schema import accounts, game_accounts
from kahuna.server.games import ai_pool as ai_seats

BOT_PREFIX = LEVEL_PREFIX
"""The AI levels' bot accounts are ``ai-<level>`` (a prefix people cannot sign up with)."""


def level_of(account: Account) -> str | None:
    """The AI level a bot account stands for, if it is one of the server's levels."""
    return level_named(account.username) if account.is_bot else None


def level_named(username: str) -> str | None:
    """The AI level of a bot account's name ``ai-<level>``, if it is one of the server's levels."""
    if not username.startswith(BOT_PREFIX):
        return None
    level = username[len(BOT_PREFIX) :]
    return level if ai_seats.available(level) else None


def plays_games(account: Account) -> bool:
    """Whether a game may be offered to ``account``: to any account but the site's own."""
    return not (account.is_bot and username_key(account.username) == username_key(SITE_ACCOUNT))


def run_by_server(account: Account) -> bool:
    """Whether the server itself runs ``account``: the site's own or an AI level's (a level no longer
    offered too: no person signs up as ``ai-``). Not an online bot (``kahuna bot``): that is a
    person's account turned into a program, answerable like any other. Migration 0028 closed the
    open reports of such accounts filed before, by this test as it was then, written in SQL there."""
    own = username_key(account.username) == username_key(SITE_ACCOUNT)
    return account.is_bot and (own or account.username.startswith(LEVEL_PREFIX))


def refuse_unplayable(account: Account) -> None:
    """``Rejected`` (422 ``site_account``) for a challenge to the site's own account."""
    if not plays_games(account):
        raise Rejected("site_account", f"{account.username} is the site's own account: it plays no games", 422)


def ensure_level_bots(conn: Connection, levels: list[str]) -> None:
    """Create the bot account of every AI level the server offers (at every start; an existing one
    is kept). Instances starting at once on one database take turns (the start-up lock), so each
    finds the accounts the one before created rather than inserting them a second time. A name
    already held by a person (a level added after someone signed up as ``ai-<level>``) is logged
    and that level has no account, rather than keeping the server from starting. A level's stored
    ratings are set to its fixed anchor (``ratings.ANCHORS``)."""
    hold_startup_lock(conn)
    for level in levels:
        try:
            bot = db.ensure_bot_account(conn, BOT_PREFIX + level)
        except ValueError:
            logs.event("bot_account_taken", username=BOT_PREFIX + level)
            continue
        ratings.pin_anchor(conn, bot.id)


def has_played(conn: Connection, account_id: int) -> bool:
    query = select(exists().where(or_(game_accounts.c.account0 == account_id, game_accounts.c.account1 == account_id)))
    return bool(conn.execute(query).scalar())


def make_bot(conn: Connection, account_id: int) -> bool:
    """Turn an account that has played no lobby game into a bot account; ``False`` if it has."""
    if has_played(conn, account_id):
        return False
    conn.execute(update(accounts).where(accounts.c.id == account_id).values(is_bot=True))
    return True
