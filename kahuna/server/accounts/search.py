"""Finding an account by the start of its name (``GET /api/users?prefix=``, the header's search box).

Names are compared as sign-up compares them (``passwords.username_key``): without regard to case,
with the ASCII look-alikes merged, so ``KA``, ``ka`` and ``Ka`` find ``kahu``, and ``rn`` finds
``mike``. A look-alike can straddle the end of a prefix (``ar`` is the start of ``arnold``, whose
key starts ``am``), so a key ending in ``r`` or ``v`` is also looked for with that letter merged
(``am``, or ``aw`` for ``av``). A prefix is what a username may hold, 1 to 20 characters; anything
else is refused (``Refused``, 422), as a sign-up is. Deleted accounts are not found; bots are.
"""

from __future__ import annotations

from sqlalchemy import Connection, case, func, or_, select

from kahuna.server.accounts.passwords import USERNAME_CHARS, Refused, username_key
from kahuna.server.db.schema import accounts

MAX_RESULTS = 20
MAX_PREFIX = 20
"""A username's longest length: no longer prefix can start one."""
_STRADDLING = {"r": "m", "v": "w"}
"""The last letter of a prefix's key that may be the first half of a look-alike (``rn``, ``vv``)."""


def check_prefix(prefix: str) -> str:
    """``prefix`` if it may start a username, else ``Refused`` with the reason."""
    if not 1 <= len(prefix) <= MAX_PREFIX:
        raise Refused(f"a search has 1 to {MAX_PREFIX} characters", "prefix_length", min=1, max=MAX_PREFIX)
    if USERNAME_CHARS.fullmatch(prefix) is None:
        raise Refused("a username has only ASCII letters, digits, _ and -", "username_chars")
    return prefix


def _like(key: str) -> str:
    """A ``LIKE`` pattern for keys starting with ``key`` (``_`` is a wildcard: escaped)."""
    return key.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"


def accounts_starting(conn: Connection, prefix: str) -> list[dict[str, object]]:
    """Up to :data:`MAX_RESULTS` active accounts whose name starts like ``prefix``: an exact
    match first, then by name without regard to case."""
    key = username_key(check_prefix(prefix))
    keys = [key]
    if key[-1] in _STRADDLING:
        keys.append(key[:-1] + _STRADDLING[key[-1]])
    rows = conn.execute(
        select(accounts.c.username, accounts.c.is_bot)
        .where(
            or_(*(accounts.c.username_key.like(_like(k), escape="\\") for k in keys)),
            accounts.c.deleted.is_(None),
        )
        .order_by(case((accounts.c.username_key == key, 0), else_=1), func.lower(accounts.c.username), accounts.c.id)
        .limit(MAX_RESULTS)
    ).all()
    return [{"username": row.username, "is_bot": bool(row.is_bot)} for row in rows]
