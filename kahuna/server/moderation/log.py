"""The moderation log: every action of a moderator or of ``kahuna admin`` on an account, appended
in the transaction that does it and never changed (no code path updates or deletes a row)."""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Connection, Select, select
from sqlalchemy.orm import aliased

from kahuna.server.db.schema import accounts, moderation_log

ENTRIES = 200
"""Entries one ``GET /api/mod/log`` lists, the newest first."""

PAGE = 500
"""Entries ``GET /api/mod/log.jsonl`` reads at a time, streaming the whole log oldest first."""


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
    return _listed(_named().order_by(moderation_log.c.id.desc()).limit(limit), conn)


def page_after(conn: Connection, after: int, limit: int = PAGE) -> list[dict[str, Any]]:
    """Up to ``limit`` entries after the entry ``after`` (``0``: from the first), oldest first, as
    ``entries`` lists them: a page of the whole log's export."""
    log = moderation_log
    return _listed(_named().where(log.c.id > after).order_by(log.c.id).limit(limit), conn)


def _named() -> Select[Any]:
    actor, target = aliased(accounts), aliased(accounts)
    log = moderation_log
    return (
        select(log, actor.c.username.label("actor_name"), target.c.username.label("target_name"))
        .outerjoin(actor, actor.c.id == log.c.actor)
        .outerjoin(target, target.c.id == log.c.target)
    )


def _listed(query: Select[Any], conn: Connection) -> list[dict[str, Any]]:
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
        for row in conn.execute(query)
    ]
