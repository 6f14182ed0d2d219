"""Moderators' sanctions (docs/moderation.md, *Sanctions*): a warning, a chat mute for some
minutes, and the sanctions on the account itself (``account_sanctions``); each with a reason, on a
report or not, undone once at most, every step in the log.

The rules: a moderator sanctions neither itself nor an admin (only an admin sanctions an admin);
a sanction on a report must be about the report's target, and marks the report ``acted_on``.
A muted account's chat lines are refused (``muted``) until the mute ends or is undone: the game
socket asks ``chat_sanctions.chat_standing`` for each line, so a mute holds at once on every
instance. The rules of the kinds of chat and names (``shadow_mute``, ``hide_line``, ``rename``)
are in ``chat_sanctions``.
"""

from __future__ import annotations

import time
from typing import Any, Literal

from sqlalchemy import Connection, select, update

from kahuna.server.accounts.store import Account, account_by_name
from kahuna.server.common.errors import Rejected
from kahuna.server.db.schema import accounts, reports, sanctions
from kahuna.server.moderation import account_sanctions, chat_sanctions, log, roles
from kahuna.server.moderation.reports import ACTED_ON

Kind = Literal[
    "warn",
    "chat_mute",
    "shadow_mute",
    "hide_line",
    "rename",
    "mark_cheating",
    "mark_rating_manipulation",
    "close",
    "block_signups",
]
MAX_MINUTES = 60 * 24 * 365
"""The longest mute: a year."""


def sanction(
    conn: Connection,
    moderator: Account,
    moderator_roles: frozenset[str],
    username: str,
    kind: Kind,
    reason: str,
    minutes: int | None = None,
    report_id: int | None = None,
    game_id: str | None = None,
    line_id: int | None = None,
) -> int | Rejected:
    """Sanction ``username``: the sanction's id, or why not (nothing changed). A ``hide_line``
    names its line (``game_id``, ``line_id``): ``chat_sanctions``."""
    misfit = chat_sanctions.shape(kind, minutes, game_id, line_id)
    if misfit is not None:
        return misfit
    target = account_by_name(conn, username)
    if target is None:
        return Rejected("not_found", f"no player {username!r}", 404)
    if target.id == moderator.id:
        return Rejected("own_account", "you cannot sanction yourself", 422)
    if roles.ADMIN in roles.roles_of(conn, target.id) and roles.ADMIN not in moderator_roles:
        return Rejected("target_is_admin", f"{target.username} is an admin: only an admin may sanction one", 403)
    _hold(conn, target.id)
    if kind == "rename" and chat_sanctions.must_rename(conn, target.id):
        return Rejected(
            "already_renamed", f"{target.username} was renamed already and has not chosen a new name yet", 409
        )
    if kind in account_sanctions.KINDS:
        refused = account_sanctions.refusal(conn, kind, target.id, minutes)
        if refused is not None:
            return refused
    if game_id is not None and line_id is not None:
        refusal = chat_sanctions.check_line(conn, target, game_id, line_id)
        if refusal is not None:
            return refusal
    if report_id is not None:
        report = conn.execute(select(reports.c.target, reports.c.status).where(reports.c.id == report_id)).first()
        if report is None:
            return Rejected("no_such_report", f"no report {report_id}", 404)
        if report.target != target.id:
            return Rejected("not_that_report", f"the report {report_id} is not about {target.username}", 422)
        if report.status != ACTED_ON:  # open, or closed and acted on after all
            conn.execute(update(reports).where(reports.c.id == report_id).values(status=ACTED_ON))
    now = time.time()
    expires = None if minutes is None or kind in account_sanctions.MARKS else now + 60 * minutes
    made = conn.execute(
        sanctions.insert()
        .values(
            target=target.id,
            kind=kind,
            reason=reason,
            moderator=moderator.id,
            report_id=report_id,
            created=now,
            expires=expires,
            game_id=game_id,
            line_id=line_id,
        )
        .returning(sanctions.c.id)
    )
    sanction_id = int(made.scalar_one())
    detail: dict[str, Any] = {"sanction_id": sanction_id, "kind": kind, "minutes": minutes, "report_id": report_id}
    if game_id is not None:
        detail.update(game_id=game_id, line_id=line_id)
    if kind == "rename":
        detail.update(chat_sanctions.rename(conn, target, sanction_id))
    detail |= account_sanctions.apply(conn, kind, sanction_id, target.id, minutes, now)
    log.append(conn, moderator.id, "sanction", target.id, reason, **detail)
    return sanction_id


def _hold(conn: Connection, account_id: int) -> None:
    """Lock the target's account row until the sanction commits (where the database can), before
    the checks that read its standing sanctions (``already_marked``, ``already_closed``,
    ``already_hidden``, ``already_renamed``): two moderators closing or marking the same account, or hiding the same
    line, at once through two instances would both read none and both insert and log one. The
    second waits here for the first's commit and then reads it. ``FOR NO KEY UPDATE``: rows that
    refer to the account (a session, a chat line) can still be written meanwhile. SQLite's one
    writer runs the transactions one after another already."""
    conn.execute(select(accounts.c.id).where(accounts.c.id == account_id).with_for_update(key_share=True))


def undo(
    conn: Connection, moderator: Account, moderator_roles: frozenset[str], sanction_id: int, reason: str = ""
) -> Rejected | None:
    """Undo a sanction (logged, with ``reason``: an overturned appeal's); why not if it cannot be
    (unknown, undone already, an admin's)."""
    row = conn.execute(select(sanctions).where(sanctions.c.id == sanction_id)).first()
    if row is None:
        return Rejected("no_such_sanction", f"no sanction {sanction_id}", 404)
    if row.undone is not None:
        return Rejected("already_undone", f"the sanction {sanction_id} is undone already", 409)
    if row.target == moderator.id:
        return Rejected("own_account", "you cannot undo a sanction of yours", 422)
    if roles.ADMIN in roles.roles_of(conn, row.target) and roles.ADMIN not in moderator_roles:
        return Rejected("target_is_admin", "only an admin may undo a sanction of an admin", 403)
    if not lift(conn, moderator.id, sanction_id, reason):
        return Rejected("already_undone", f"the sanction {sanction_id} was undone meanwhile", 409)
    return None


def lift(conn: Connection, moderator: int, sanction_id: int, reason: str) -> bool:
    """Mark the sanction undone by ``moderator`` and give a rename's old name back (logged);
    ``False`` if it was undone already (nothing changed). The checks of who may are the caller's.

    One conditional update, not a read then a write: two moderators undoing the sanction at once
    through two instances would both read it not undone; the update of the second waits for the
    first's row lock and then finds it undone."""
    lifting = update(sanctions).where(sanctions.c.id == sanction_id, sanctions.c.undone.is_(None))
    row = conn.execute(lifting.values(undone=time.time(), undone_by=moderator).returning(sanctions)).first()
    if row is None:
        return False
    renamed = chat_sanctions.undo_rename(conn, row) if row.kind == "rename" else {}
    log.append(conn, moderator, "undo", row.target, reason, sanction_id=sanction_id, kind=row.kind, **renamed)
    return True
