"""A pass that runs every few seconds while the server runs (the lobby's pairing, the tournaments).

Why one helper: each such loop needs the same three things — start it on the running event loop,
keep going when one pass fails (the failure is logged, the next pass retries), and stop it cleanly
at shutdown — and a copy per loop drifts.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from kahuna.server.common import logs
from kahuna.server.common.tasks import cancel_and_wait


class Periodic:
    """Runs ``work`` every ``every`` seconds (a pass first waits ``every`` unless ``first_at_once``);
    a pass that raises logs ``error_event`` with the exception's type and message and is retried at
    the next one."""

    def __init__(
        self, work: Callable[[], Awaitable[None]], every: float, error_event: str, *, first_at_once: bool = False
    ) -> None:
        self.work = work
        self.every = every
        self.error_event = error_event
        self.first_at_once = first_at_once
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name=self.error_event.removesuffix("_error"))

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)
            self._task = None

    async def _run(self) -> None:
        if not self.first_at_once:
            await asyncio.sleep(self.every)
        while True:
            try:
                await self.work()
            except Exception as exc:  # a failed pass is retried at the next one
                logs.event(self.error_event, error=type(exc).__name__, message=str(exc)[:200])
            await asyncio.sleep(self.every)
