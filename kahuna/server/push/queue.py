"""The push queue: a table, so that a push survives a restart and a push service that is down, and
so that queuing one costs the move that caused it one short write, never a request to the outside.

A notice (``your_turn:GAME:VERSION``) is queued once per device of the account
(``enqueue``), whatever number of instances see the same turn: the pair (device, notice) is unique
and a second insert does nothing. The sender (``push/sender.py``) claims rows with the leases of
``db/leases.py`` (the mail queue's approach), so two senders never push the same row at once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, func, select
from sqlalchemy.dialects import postgresql, sqlite

from kahuna.server.db import leases
from kahuna.server.db.schema import push_queue, push_subscriptions

LEASE_SECONDS = 60.0
"""How long a claim holds: longer than one push may take (its timeout is 5 s)."""
KEEP_DONE_SECONDS = 24 * 3600.0
"""How long a sent push stays in the table, so that an instance that sees the same turn late does
not queue it again."""


@dataclass(frozen=True)
class Push:
    id: int
    subscription_id: int
    payload: dict[str, Any]
    expires: float
    attempts: int


BUDGET_SECONDS = 3600.0
"""The window of an account's push budget (``enqueue``'s ``budget``)."""


def enqueue(
    conn: Connection, account_id: int, notice: str, payload: dict[str, Any], now: float, ttl: float, budget: int
) -> int | None:
    """Queue ``payload`` for every device of the account, unless ``notice`` was queued for it
    already; how many rows are new. ``None``: the account had ``budget`` notices queued in the last
    hour already (whoever caused them), so nothing is."""
    dialect = postgresql if conn.dialect.name == "postgresql" else sqlite
    text = json.dumps(payload, separators=(",", ":"))
    mine = push_queue.c.subscription_id.in_(
        select(push_subscriptions.c.id).where(push_subscriptions.c.account_id == account_id)
    )
    already = conn.execute(select(push_queue.c.id).where(mine, push_queue.c.notice == notice[:120]).limit(1)).first()
    if already is None:
        recent = conn.execute(
            select(func.count(func.distinct(push_queue.c.notice))).where(
                mine, push_queue.c.created > now - BUDGET_SECONDS
            )
        ).scalar_one()
        if recent >= budget:
            return None
    devices = conn.execute(
        select(push_subscriptions.c.id).where(push_subscriptions.c.account_id == account_id)
    ).scalars()
    added = 0
    for device in devices.all():
        statement = (
            dialect.insert(push_queue)
            .values(
                subscription_id=device,
                notice=notice[:120],
                payload=text,
                created=now,
                expires=now + ttl,
                due=now,
                attempts=0,
                claimed_until=None,
                status="queued",
            )
            .on_conflict_do_nothing(index_elements=["subscription_id", "notice"])
            .returning(push_queue.c.id)  # a row back only if inserted (rowcount is -1 on PostgreSQL)
        )
        added += conn.execute(statement).first() is not None
    return added


def claim(conn: Connection, now: float, limit: int) -> list[Push]:
    """Claim up to ``limit`` due pushes (old finished rows are forgotten on the way)."""
    leases.prune(conn, push_queue, now - KEEP_DONE_SECONDS)
    return [
        Push(row.id, row.subscription_id, json.loads(row.payload), row.expires, row.attempts)
        for row in leases.claim(conn, push_queue, now, limit, LEASE_SECONDS)
    ]


def mark(conn: Connection, push_id: int, status: str, now: float) -> None:
    leases.finish(conn, push_queue, push_id, status, now)


def retry_later(conn: Connection, push: Push, now: float, first_wait: float) -> float:
    return leases.retry_later(conn, push_queue, push.id, push.attempts, now, first_wait)


def release(conn: Connection, push: Push, due: float) -> None:
    """Give a claimed push back unsent, due again at ``due`` (its host or account had enough sends
    under way)."""
    leases.release(conn, push_queue, push.id, due)


def next_due_and_waiting(conn: Connection) -> tuple[float | None, int]:
    """When the next queued push is due (``None``: nothing queued) and how many pushes are queued
    (the metrics' queue depth)."""
    return leases.next_due(conn, push_queue), leases.waiting(conn, push_queue)
