"""The sanctions of chat and names (docs/moderation.md, *Sanctions*): ``shadow_mute``,
``hide_line`` and ``rename``, beside ``warn`` and ``chat_mute`` (``sanctions``).

- A ``shadow_mute`` (with minutes) lets the account chat as before, but each line it writes is
  stored in ``shadow_lines`` and shown to its author's seat only (``games/chat.py``,
  ``LiveGame.shown``). Its undo ends it for the lines after; the lines written under it stay
  unseen by the others for good (they were never shown: showing them later would surprise both).
- A ``hide_line`` names a line of the players' room (``game_id``, ``line_id``: a line's id is its
  number in its game) written by the target's seat; the line is shown to nobody while the
  sanction is not undone (``store.hidden_lines``).
- A ``rename`` gives the account a neutral unique name at once (``renamed-<sanction id>``) and
  keeps the old one in the sanction; while the account bears that name it must choose another
  (``must_rename``, :func:`choose_name`, once). Its undo gives the old name back only if the
  account still bears the neutral name and nobody took the old one meanwhile; otherwise the name
  stays as it is (a name the player chose is kept; while it is the neutral one, the player still
  chooses).
"""

from __future__ import annotations

import time
from collections.abc import Collection
from typing import Any

from sqlalchemy import ColumnElement, Connection, Row, func, or_, select, update

from kahuna.server.accounts.passwords import Refused, check_new_username, username_key
from kahuna.server.accounts.store import Account, game_players, username_taken
from kahuna.server.common.errors import Rejected
from kahuna.server.db import chat_marks, store
from kahuna.server.db.schema import accounts, game_accounts, games, sanctions
from kahuna.server.moderation import log

TIMED = ("chat_mute", "shadow_mute")
"""The kinds of this module and ``warn`` that last some minutes (and only they have ``minutes``)."""
KINDS = ("warn", "chat_mute", "shadow_mute", "hide_line", "rename")
"""The kinds whose ``minutes`` :func:`shape` checks (the account sanctions check their own)."""
NEUTRAL = "renamed-"


def shape(kind: str, minutes: int | None, game_id: str | None, line_id: int | None) -> Rejected | None:
    """Why the request's fields do not fit its kind (``invalid``), or ``None``."""
    if kind in KINDS and (minutes is None) != (kind not in TIMED):
        return Rejected("invalid", f"{' and '.join(TIMED)} need minutes, and only they have them", 422)
    line = game_id is not None or line_id is not None
    if kind == "hide_line" and (game_id is None or line_id is None):
        return Rejected("invalid", "a hide_line needs the game_id and the line_id of the line", 422)
    if kind != "hide_line" and line:
        return Rejected("invalid", "only a hide_line names a game_id and a line_id", 422)
    return None


def check_line(conn: Connection, target: Account, game_id: str, line_id: int) -> Rejected | None:
    """Why ``target``'s line ``line_id`` of ``game_id`` cannot be hidden, or ``None``."""
    rows = store.archived_rows(conn, game_id) or store.per_action_rows(conn, game_id)
    if not 0 <= line_id < len(rows.chat):
        return Rejected("no_such_line", f"the game {game_id} has no chat line {line_id}", 404)
    room, seat, _text, _at = rows.chat[line_id]
    if room != "players" or seat is None or game_players(conn, game_id).get(seat) != target.id:
        return Rejected("not_their_line", f"the chat line {line_id} of {game_id} is not {target.username}'s", 422)
    if line_id in chat_marks.hidden_lines(conn, game_id):
        return Rejected("already_hidden", f"the chat line {line_id} of {game_id} is hidden already", 409)
    return None


def _set_name(conn: Connection, account_id: int, name: str, bearing: str | None = None) -> bool:
    """The account's name, and the names its games show for its seats; with ``bearing``, only if
    the account bears that name now. Whether it was set.

    ``bearing`` makes it one conditional update, not a read then a write: a player's choice and
    another choice, or the undo of its rename, through two instances at once would both read the
    neutral name and both set theirs. The second's update waits for the first's row lock and then
    finds the name changed."""
    setting = update(accounts).where(accounts.c.id == account_id)
    if bearing is not None:
        setting = setting.where(accounts.c.username == bearing)
    if conn.execute(setting.values(username=name, username_key=username_key(name))).rowcount == 0:
        return False
    for seat in (0, 1):
        played = select(game_accounts.c.game_id).where(game_accounts.c["account" + str(seat)] == account_id)
        conn.execute(update(games).where(games.c.id.in_(played)).values({f"name{seat}": name}))
    return True


def rename(conn: Connection, target: Account, sanction_id: int) -> dict[str, Any]:
    """Give ``target`` its neutral name now (unique: a suffix if someone holds it); the names for the log."""
    name = f"{NEUTRAL}{sanction_id}"
    extra = 1
    while username_taken(conn, name):
        name, extra = f"{NEUTRAL}{sanction_id}-{extra}", extra + 1
    _set_name(conn, target.id, name)
    values = {"old_name": target.username, "new_name": name}
    conn.execute(update(sanctions).where(sanctions.c.id == sanction_id).values(**values))
    return values


def undo_rename(conn: Connection, row: Row[Any, Any]) -> dict[str, Any]:
    """Give the old name back if the account still bears the neutral one and the old is free;
    what the log says of it (``restored``)."""
    restored = not username_taken(conn, row.old_name) and _set_name(conn, row.target, row.old_name, row.new_name)
    return {"restored": restored, "old_name": row.old_name, "new_name": row.new_name}


def _pending(conn: Connection, account_id: int) -> Row[Any, Any] | None:
    """The rename the account still bears the neutral name of (it must choose a name)."""
    query = (
        select(sanctions.c.id, sanctions.c.new_name)
        .join(accounts, accounts.c.id == sanctions.c.target)
        .where(
            sanctions.c.target == account_id,
            sanctions.c.kind == "rename",
            sanctions.c.new_name == accounts.c.username,
        )
    )
    return conn.execute(query).first()


def must_rename(conn: Connection, account_id: int) -> bool:
    return _pending(conn, account_id) is not None


def choose_name(conn: Connection, account: Account, name: str) -> Rejected | None:
    """The renamed account's new name, once (logged with the player as actor); why not."""
    pending = _pending(conn, account.id)
    if pending is None:
        return Rejected("no_rename", "your name was not changed by a moderator: nothing to choose", 409)
    try:
        check_new_username(name)
    except Refused as exc:
        return Rejected("invalid", str(exc), 422, reason=exc.reason())
    if username_key(name).startswith(username_key(NEUTRAL)) or username_taken(conn, name):
        return Rejected("taken", "this username is taken (names are compared without regard to case)", 409)
    if not _set_name(conn, account.id, name, pending.new_name):
        return Rejected("no_rename", "your name was changed meanwhile: nothing to choose", 409)
    log.append(conn, account.id, "choose_name", account.id, "", sanction_id=pending.id, new_name=name)
    return None


def chat_standing(conn: Connection, account_id: int) -> tuple[float | None, int | None]:
    """The seconds left of the account's chat mute (``None``: not muted) and its shadow mute's id
    (``None``: none), in one query."""
    now = time.time()
    rows = conn.execute(
        select(sanctions.c.id, sanctions.c.kind, sanctions.c.expires).where(
            sanctions.c.target == account_id,
            sanctions.c.kind.in_(TIMED),
            sanctions.c.undone.is_(None),
            sanctions.c.expires > now,
        )
    ).all()
    mutes = [float(row.expires) for row in rows if row.kind == "chat_mute"]
    shadows = [int(row.id) for row in rows if row.kind == "shadow_mute"]
    return (max(mutes) - now if mutes else None), (max(shadows) if shadows else None)


def renamed_credentials(conn: Connection, username: str) -> tuple[Account, str | None] | None:
    """A renamed account, by the name it had, while it must choose a new one: it signs in with
    the old name (or the neutral one) until it has chosen."""
    rows = conn.execute(
        select(sanctions.c.old_name, accounts.c.id, accounts.c.username, accounts.c.is_bot, accounts.c.password)
        .join(accounts, accounts.c.id == sanctions.c.target)
        .where(
            sanctions.c.kind == "rename",
            sanctions.c.new_name == accounts.c.username,
            func.lower(sanctions.c.old_name) == username.lower(),
            accounts.c.deleted.is_(None),
        )
    ).all()
    for row in rows:
        if username_key(row.old_name) == username_key(username):
            return Account(id=row.id, username=row.username, is_bot=bool(row.is_bot)), row.password
    return None


def disclosed(now: float) -> ColumnElement[bool]:
    """The sanctions the player is told of: all but a ``shadow_mute`` still running (its notice
    and appeal come once it ends or is undone: told earlier, the player would know its lines go
    nowhere)."""
    return or_(sanctions.c.kind != "shadow_mute", sanctions.c.undone.is_not(None), sanctions.c.expires <= now)


def showing(conn: Connection, account_id: int, held: Collection[str]) -> list[str]:
    """The lobby games (``game_accounts``) that show the account's name and reload on a rename:
    those it plays now (on whichever instance holds them) and, among ``held`` (the ids of the games
    this instance holds in memory), those over. A finished game that is not held is loaded from
    the database, new name and all, when asked for.

    The finished ones are looked for among ``held``, a few hundred ids a query, rather than read
    whole: a bot's account may have played a great many games, of which an instance holds few."""
    seated = or_(game_accounts.c.account0 == account_id, game_accounts.c.account1 == account_id)
    query = select(games.c.id).join(game_accounts, game_accounts.c.game_id == games.c.id).where(seated)
    found = list(conn.execute(query.where(games.c.status != "over")).scalars())
    ids = sorted(held)
    for start in range(0, len(ids), HELD_PER_QUERY):
        chunk = ids[start : start + HELD_PER_QUERY]
        found += conn.execute(query.where(games.c.status == "over", games.c.id.in_(chunk))).scalars()
    return found


HELD_PER_QUERY = 500
"""Held game ids per query of :func:`showing`: far below SQLite's and PostgreSQL's limits on a
statement's parameters."""
