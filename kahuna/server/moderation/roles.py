"""The accounts' roles: ``moderator`` (the queue, sanctions, the log) and ``admin`` (what a
moderator may do, and no moderator may sanction it). Granted and revoked only by ``kahuna admin
grant`` and ``revoke``; read from the database on every request that needs one, so that a revoke
holds at once on every instance."""

from __future__ import annotations

import time

from sqlalchemy import Connection, delete, insert, select

from kahuna.server.db.schema import account_roles
from kahuna.server.moderation import log

MODERATOR, ADMIN = "moderator", "admin"
ROLES = (MODERATOR, ADMIN)


def roles_of(conn: Connection, account_id: int) -> frozenset[str]:
    rows = conn.execute(select(account_roles.c.role).where(account_roles.c.account_id == account_id))
    return frozenset(rows.scalars())


def moderates(roles: frozenset[str]) -> bool:
    """Whether these roles may moderate (an admin may do what a moderator may)."""
    return bool(roles & {MODERATOR, ADMIN})


def grant(conn: Connection, account_id: int, role: str) -> bool:
    """Give ``account_id`` the ``role`` (logged as done by the command line); ``False`` if it had it."""
    if role in roles_of(conn, account_id):
        return False
    conn.execute(insert(account_roles).values(account_id=account_id, role=role, granted=time.time()))
    log.append(conn, None, "grant", account_id, "kahuna admin grant", role=role)
    return True


def revoke(conn: Connection, account_id: int, role: str) -> bool:
    """Take ``role`` from ``account_id`` (logged); ``False`` if it did not have it."""
    gone = conn.execute(
        delete(account_roles).where(account_roles.c.account_id == account_id, account_roles.c.role == role)
    )
    if not gone.rowcount:
        return False
    log.append(conn, None, "revoke", account_id, "kahuna admin revoke", role=role)
    return True
