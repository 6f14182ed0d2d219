"""Stopping a background task for good: the one way the server's parts end their loops at shutdown.

Why not ``task.cancel()`` then ``await task``: a library awaited inside the task can swallow the
cancellation. redis-py's asyncio client does, now and then: a task looping on one ``hset`` and
cancelled at a random moment went on running after 5 of 2,000 cancellations on uvloop (7 of 2,000
on plain asyncio), one looping on the presence exchange (a pipeline) after 21 of 2,000 (redis-py
8.1.0, Python 3.11.7; the task is left "cancelling" and goes on to its next ``await``). A server whose
presence loop had swallowed its cancel waited for it for ever when told to stop (seen in
``tests/server/test_pg_startup.py``: an instance not stopped 60 s after SIGTERM). So the
cancellation is repeated until the task has ended.
"""

from __future__ import annotations

import asyncio
from typing import Any

from kahuna.server.common import logs

AGAIN_AFTER = 0.5
"""Seconds a cancelled task is given to end before it is cancelled again."""


async def cancel_and_wait(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and return once it has ended, cancelling it again every :data:`AGAIN_AFTER`
    seconds while it goes on. An exception the task had ended with is logged (``task_failed``), not
    raised: the part being stopped goes on to stop its other tasks, and the server its other parts
    (the writer last, which commits what is queued)."""
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=AGAIN_AFTER)
    if not task.cancelled() and (error := task.exception()) is not None:
        logs.event("task_failed", task=task.get_name(), error=type(error).__name__)
