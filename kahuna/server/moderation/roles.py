"""The accounts' roles: ``moderator`` (the queue, sanctions, the log) and ``admin`` (what a
moderator may do, no moderator may sanction it, and it grants and revokes ``moderator`` from the
web). ``kahuna admin grant`` and ``revoke`` give and take either; an admin only ``moderator``
(``grant_moderator``, ``revoke_moderator``). Read from the database on every request that needs
one, so that a revoke holds at once on every instance."""

from __future__ import annotations

import time
from typing import Any

from sqlalchemy import Connection, delete, insert, select

from kahuna.server.accounts.store import Account, account_by_name
from kahuna.server.common.errors import Rejected
from kahuna.server.db.schema import account_roles, accounts
from kahuna.server.moderation import log

MODERATOR, ADMIN = "moderator", "admin"
ROLES = (MODERATOR, ADMIN)


def roles_of(conn: Connection, account_id: int) -> frozenset[str]:
    rows = conn.execute(select(account_roles.c.role).where(account_roles.c.account_id == account_id))
    return frozenset(rows.scalars())


def moderates(roles: frozenset[str]) -> bool:
    """Whether these roles may moderate (an admin may do what a moderator may)."""
    return bool(roles & {MODERATOR, ADMIN})


def grant(
    conn: Connection, account_id: int, role: str, actor: int | None = None, reason: str = "kahuna admin grant"
) -> bool:
    """Give ``account_id`` the ``role``, logged as done by ``actor`` (``None``: the command line);
    ``False`` if it had it."""
    if role in roles_of(conn, account_id):
        return False
    conn.execute(insert(account_roles).values(account_id=account_id, role=role, granted=time.time()))
    log.append(conn, actor, "grant", account_id, reason, role=role)
    return True


def revoke(
    conn: Connection, account_id: int, role: str, actor: int | None = None, reason: str = "kahuna admin revoke"
) -> bool:
    """Take ``role`` from ``account_id`` (logged); ``False`` if it did not have it."""
    gone = conn.execute(
        delete(account_roles).where(account_roles.c.account_id == account_id, account_roles.c.role == role)
    )
    if not gone.rowcount:
        return False
    log.append(conn, actor, "revoke", account_id, reason, role=role)
    return True


def moderators(conn: Connection) -> list[dict[str, Any]]:
    """The open accounts holding ``moderator``, by name: ``{"username", "granted"}``."""
    rows = conn.execute(
        select(accounts.c.username, account_roles.c.granted)
        .join(accounts, accounts.c.id == account_roles.c.account_id)
        .where(account_roles.c.role == MODERATOR, accounts.c.deleted.is_(None))
        .order_by(accounts.c.username_key)
    )
    return [{"username": row.username, "granted": row.granted} for row in rows]


def grant_moderator(conn: Connection, admin: Account, username: str) -> Rejected | None:
    """An admin makes ``username`` a moderator (logged with the admin as actor). 404 ``not_found``,
    409 ``already_held``."""
    target = account_by_name(conn, username)
    if target is None:
        return Rejected("not_found", f"no player {username!r}", 404)
    if not grant(conn, target.id, MODERATOR, admin.id, "granted by an admin"):
        return Rejected("already_held", f"{target.username} is a moderator already", 409)
    return None


def revoke_moderator(conn: Connection, admin: Account, username: str) -> Rejected | None:
    """An admin takes ``moderator`` from ``username`` (logged). 404 ``not_found``, 409 ``not_held``."""
    target = account_by_name(conn, username)
    if target is None:
        return Rejected("not_found", f"no player {username!r}", 404)
    if not revoke(conn, target.id, MODERATOR, admin.id, "revoked by an admin"):
        return Rejected("not_held", f"{target.username} is not a moderator", 409)
    return None
