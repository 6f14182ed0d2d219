"""A sanctioned player's side of moderation (docs/moderation.md, *Notices and appeals*): the
sanctions on its account with what was done and why (never who did it, nor who reported), the
notice of each acknowledged once, one appeal per sanction, and a moderator's decision on it.

The rules: a player sees and appeals only its own sanctions (another's is ``no_such_sanction``, as
an unknown one); an undone sanction is not appealed; an appeal is decided once, by another
moderator than the one who sanctioned, unless no other account moderates (the sanctioning moderator
decides then); an overturned appeal undoes the sanction through ``sanctions.lift``. The appeal and
the decision are both in the log.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from sqlalchemy import Connection, func, select, update
from sqlalchemy.orm import aliased

from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.db.schema import account_roles, accounts, appeals, sanctions
from kahuna.server.moderation import chat_sanctions, log, roles
from kahuna.server.moderation import sanctions as sanctioning

Decision = Literal["upheld", "overturned"]
MAX_NOTE = 500
"""Characters of an appeal's note."""
LISTED = 200
"""Sanctions, or open appeals, one list holds."""


def _seconds_left(expires: float | None, undone: float | None, now: float) -> float | None:
    return None if expires is None or undone is not None else max(0.0, expires - now)


def sanctions_of(conn: Connection, account_id: int) -> list[dict[str, Any]]:
    """The account's sanctions, the newest first, as the player sees them."""
    rows = conn.execute(
        select(sanctions, appeals.c.id.label("appeal_id"), appeals.c.note, appeals.c.created.label("appealed"))
        .add_columns(appeals.c.decision, appeals.c.decided, appeals.c.decision_reason)
        .outerjoin(appeals, appeals.c.sanction_id == sanctions.c.id)
        .where(sanctions.c.target == account_id, chat_sanctions.disclosed(time.time()))
        .order_by(sanctions.c.id.desc())
        .limit(LISTED)
    )
    now = time.time()
    found = []
    for row in rows:
        appeal = None
        if row.appeal_id is not None:
            appeal = {
                "note": row.note,
                "created": row.appealed,
                "decision": row.decision,
                "decided": row.decided,
                "reason": row.decision_reason,
            }
        found.append(
            {
                "sanction_id": row.id,
                "kind": row.kind,
                "reason": row.reason,
                "created": row.created,
                "expires": row.expires,
                "seconds_left": _seconds_left(row.expires, row.undone, now),
                "undone": row.undone is not None,
                "seen": row.seen is not None,
                "appeal": appeal,
            }
        )
    return found


def unseen(conn: Connection, account_id: int) -> int:
    """How many of the account's sanctions it has not acknowledged yet (``GET /api/me``'s ``notices``)."""
    query = select(func.count()).where(
        sanctions.c.target == account_id, sanctions.c.seen.is_(None), chat_sanctions.disclosed(time.time())
    )
    return int(conn.execute(query).scalar_one())


def _own(conn: Connection, account_id: int, sanction_id: int) -> Any:
    query = select(sanctions).where(sanctions.c.id == sanction_id, chat_sanctions.disclosed(time.time()))
    row = conn.execute(query).first()
    return row if row is not None and row.target == account_id else None


def mark_seen(conn: Connection, account_id: int, sanction_id: int) -> Rejected | None:
    """The player acknowledged the sanction's notice (again: nothing changes)."""
    row = _own(conn, account_id, sanction_id)
    if row is None:
        return Rejected("no_such_sanction", f"you have no sanction {sanction_id}", 404)
    if row.seen is None:
        conn.execute(update(sanctions).where(sanctions.c.id == sanction_id).values(seen=time.time()))
    return None


def appeal(conn: Connection, account: Account, sanction_id: int, note: str) -> int | Rejected:
    """The player's appeal of its sanction: the appeal's id, or why not (nothing changed)."""
    if len(note) > MAX_NOTE:
        return Rejected("note_too_long", f"a note has at most {MAX_NOTE} characters", 422, limit=MAX_NOTE)
    row = _own(conn, account.id, sanction_id)
    if row is None:
        return Rejected("no_such_sanction", f"you have no sanction {sanction_id}", 404)
    if row.undone is not None:
        return Rejected("already_undone", f"the sanction {sanction_id} is undone already", 409)
    if conn.execute(select(appeals.c.id).where(appeals.c.sanction_id == sanction_id)).first() is not None:
        return Rejected("already_appealed", f"you appealed the sanction {sanction_id} already", 409)
    made = conn.execute(
        appeals.insert().values(sanction_id=sanction_id, note=note, created=time.time()).returning(appeals.c.id)
    )
    appeal_id = int(made.scalar_one())
    log.append(conn, account.id, "appeal", account.id, note, sanction_id=sanction_id, appeal_id=appeal_id)
    return appeal_id


def open_appeals(conn: Connection, limit: int = LISTED) -> list[dict[str, Any]]:
    """The appeals not decided yet, the oldest first, with their sanctions."""
    player, moderator = aliased(accounts), aliased(accounts)
    rows = conn.execute(
        select(appeals, sanctions.c.kind, sanctions.c.reason, sanctions.c.created.label("sanctioned"))
        .add_columns(sanctions.c.expires, player.c.username.label("player"), moderator.c.username.label("moderator"))
        .join(sanctions, sanctions.c.id == appeals.c.sanction_id)
        .join(player, player.c.id == sanctions.c.target)
        .join(moderator, moderator.c.id == sanctions.c.moderator)
        .where(appeals.c.decision.is_(None))
        .order_by(appeals.c.id)
        .limit(limit)
    )
    return [
        {
            "appeal_id": row.id,
            "username": row.player,
            "note": row.note,
            "created": row.created,
            "sanction": {
                "sanction_id": row.sanction_id,
                "kind": row.kind,
                "reason": row.reason,
                "moderator": row.moderator,
                "created": row.sanctioned,
                "expires": row.expires,
            },
        }
        for row in rows
    ]


def _another_moderates(conn: Connection, moderator: int, target: int) -> bool:
    """Whether an account other than ``moderator`` (and the sanctioned player) moderates."""
    query = select(func.count(func.distinct(account_roles.c.account_id))).where(
        account_roles.c.role.in_(roles.ROLES), account_roles.c.account_id.not_in((moderator, target))
    )
    return bool(conn.execute(query).scalar_one())


def decide(
    conn: Connection,
    moderator: Account,
    moderator_roles: frozenset[str],
    appeal_id: int,
    decision: Decision,
    reason: str,
) -> Rejected | None:
    """Uphold or overturn an appeal (logged; overturned: the sanction undone); why not if it cannot be.

    The decision is one conditional update, made before the undo: two moderators deciding at once
    through two instances would both read the appeal undecided; the update of the second waits for
    the first's row lock, then finds the appeal decided and changes nothing (its undo never runs)."""
    row = conn.execute(
        select(appeals.c.decision, sanctions.c.id, sanctions.c.target, sanctions.c.moderator)
        .join(sanctions, sanctions.c.id == appeals.c.sanction_id)
        .where(appeals.c.id == appeal_id)
    ).first()
    if row is None:
        return Rejected("no_such_appeal", f"no appeal {appeal_id}", 404)
    if row.decision is not None:
        return Rejected("appeal_decided", f"the appeal {appeal_id} was {row.decision} already", 409)
    if row.target == moderator.id:
        return Rejected("own_account", "you cannot decide an appeal of yours", 422)
    if row.moderator == moderator.id and _another_moderates(conn, moderator.id, row.target):
        return Rejected("own_sanction", "another moderator decides the appeal of your sanction", 403)
    if roles.ADMIN in roles.roles_of(conn, row.target) and roles.ADMIN not in moderator_roles:
        return Rejected("target_is_admin", "only an admin may decide the appeal of an admin", 403)
    deciding = update(appeals).where(appeals.c.id == appeal_id, appeals.c.decision.is_(None))
    values = {"decision": decision, "decided": time.time(), "decided_by": moderator.id, "decision_reason": reason}
    if not conn.execute(deciding.values(**values)).rowcount:
        return Rejected("appeal_decided", f"the appeal {appeal_id} was decided meanwhile", 409)
    if decision == "overturned":
        sanctioning.lift(conn, moderator.id, row.id, reason)  # undone meanwhile: it stays undone
    detail = {"appeal_id": appeal_id, "sanction_id": row.id, "decision": decision}
    log.append(conn, moderator.id, "decide_appeal", row.target, reason, **detail)
    return None
