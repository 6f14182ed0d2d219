"""The moderation log: every action of a moderator or of ``kahuna admin`` on an account, appended
in the transaction that does it and never changed (no code path updates or deletes a row)."""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Connection, select
from sqlalchemy.orm import aliased

from kahuna.server.db.schema import accounts, moderation_log

ENTRIES = 200
"""Entries one ``GET /api/mod/log`` lists, the newest first."""


def append(conn: Connection, actor: int | None, action: str, target: int | None, reason: str, **detail: Any) -> None:
    """Record that ``actor`` (``None``: the command line) did ``action`` to ``target``, and why."""
    conn.execute(
        moderation_log.insert().values(
            at=time.time(),
            actor=actor,
            action=action,
            target=target,
            reason=reason,
            detail=json.dumps(detail, sort_keys=True),
        )
    )


def entries(conn: Connection, limit: int = ENTRIES) -> list[dict[str, Any]]:
    """The newest ``limit`` entries, newest first: ``{"entry_id", "at", "actor", "action", "target",
    "reason", "detail"}`` with the accounts' names (``actor`` ``None``: ``kahuna admin``)."""
    actor, target = aliased(accounts), aliased(accounts)
    log = moderation_log
    rows = conn.execute(
        select(log, actor.c.username.label("actor_name"), target.c.username.label("target_name"))
        .outerjoin(actor, actor.c.id == log.c.actor)
        .outerjoin(target, target.c.id == log.c.target)
        .order_by(log.c.id.desc())
        .limit(limit)
    )
    return [
        {
            "entry_id": row.id,
            "at": row.at,
            "actor": row.actor_name,
            "action": row.action,
            "target": row.target_name,
            "reason": row.reason,
            "detail": json.loads(row.detail),
        }
        for row in rows
    ]
