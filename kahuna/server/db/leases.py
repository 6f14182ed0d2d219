"""Leases on the rows of a work queue, so that several senders (instances, ``kahuna worker``, one
that restarted) never take the same row at once.

The mail queue (``mail/queue.py``) and the push queue (``push/queue.py``) use it; it serves any queue table with the
columns ``id``, ``status`` (``queued`` while waiting), ``due``, ``expires``, ``attempts``,
``claimed_until`` and ``done``: a row is **claimed** by a conditional update that sets a lease only
if nobody holds one, so exactly one sender gets it; a sender that dies leaves a lease that ends by
itself, and the row is taken again (at least once, not exactly once, across a crash).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import ColumnElement, Connection, Row, Table, and_, delete, func, or_, select, update

MAX_BACKOFF = 3600.0


def _free(table: Table, now: float) -> ColumnElement[bool]:
    return or_(table.c.claimed_until.is_(None), table.c.claimed_until < now)


def claim(
    conn: Connection, table: Table, now: float, limit: int, lease: float, cleared: Mapping[str, Any] | None = None
) -> list[Row[Any]]:
    """Claim up to ``limit`` due rows of ``table`` (a lease of ``lease`` seconds), oldest due first;
    rows that expired meanwhile are marked ``expired`` instead (and given ``cleared``, e.g. a body
    to erase). The rows as claimed (``attempts`` counts this one)."""
    conn.execute(
        update(table)
        .where(table.c.status == "queued", table.c.expires <= now, _free(table, now))
        .values(status="expired", done=now, **(cleared or {}))
    )
    rows = conn.execute(
        select(table.c.id)
        .where(table.c.status == "queued", table.c.due <= now, _free(table, now))
        .order_by(table.c.due, table.c.id)
        .limit(limit)
    ).all()
    claimed = []
    for row in rows:
        taken = conn.execute(
            update(table)
            .where(table.c.id == row.id, table.c.status == "queued", _free(table, now))
            .values(claimed_until=now + lease, attempts=table.c.attempts + 1)
        )
        if taken.rowcount == 1:
            claimed.append(conn.execute(select(table).where(table.c.id == row.id)).one())
    return claimed


def finish(conn: Connection, table: Table, row_id: int, status: str, now: float, **values: Any) -> None:
    """The row is done (``status`` says how): never taken again; ``values``: other columns to set."""
    conn.execute(
        update(table).where(table.c.id == row_id).values(status=status, done=now, claimed_until=None, **values)
    )


def retry_later(
    conn: Connection, table: Table, row_id: int, attempts: int, now: float, first_wait: float, **values: Any
) -> float:
    """A temporary failure: the next attempt waits ``first_wait`` doubled per earlier attempt (an
    hour at most); when it is due. ``values``: other columns to set (the error, say)."""
    due = now + min(MAX_BACKOFF, first_wait * 2 ** (attempts - 1))
    conn.execute(update(table).where(table.c.id == row_id).values(due=due, claimed_until=None, **values))
    return float(due)


def release(conn: Connection, table: Table, row_id: int, due: float) -> None:
    """Give back a claimed row unattempted (the claim's attempt is not counted), due again at ``due``."""
    conn.execute(
        update(table).where(table.c.id == row_id).values(due=due, claimed_until=None, attempts=table.c.attempts - 1)
    )


def next_due(conn: Connection, table: Table) -> float | None:
    """When the next queued row is due (``None``: nothing queued), leases included."""
    row = conn.execute(
        select(table.c.due, table.c.claimed_until).where(table.c.status == "queued").order_by(table.c.due).limit(1)
    ).first()
    if row is None:
        return None
    return float(max(row.due, row.claimed_until or 0.0))


def waiting(conn: Connection, table: Table) -> int:
    """How many rows are queued (due or not, claimed or not): the queue's depth in the metrics."""
    return int(conn.execute(select(func.count()).select_from(table).where(table.c.status == "queued")).scalar_one())


def prune(conn: Connection, table: Table, before: float) -> int:
    """Forget the rows done before ``before`` (the queue stays small); how many."""
    return int(conn.execute(delete(table).where(and_(table.c.status != "queued", table.c.done < before))).rowcount)
