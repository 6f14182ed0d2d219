"""``/readyz``: whether this instance can serve games now (its database, broker and AI pool).

A load balancer or ``deploy/run.sh`` asks it before sending players; each check is bounded in
time, and an answer is reused for a second, so that a crowd of probes costs the database one query
a second at most, whoever sends them.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Mapping

CHECK_TIMEOUT = 2.0
"""Seconds a check may take before it counts as failed (a database that hangs is not ready)."""
REUSE_SECONDS = 1.0
"""How long an answer is given again without checking anew."""

Check = Callable[[], Awaitable[None]]
"""Returns if the part is ready; raises (any exception) if not."""


class Readiness:
    """Named checks, run together; the failures are named by part and exception type only (an
    error's text may hold a URL with its password)."""

    def __init__(self, checks: Mapping[str, Check]) -> None:
        self._checks = dict(checks)
        self._answer: tuple[float, dict[str, str]] | None = None
        self._running: asyncio.Task[dict[str, str]] | None = None

    async def check(self) -> dict[str, str]:
        """Each part's state: ``"ok"`` or why not."""
        if self._answer is not None and time.monotonic() - self._answer[0] < REUSE_SECONDS:
            return self._answer[1]
        if self._running is None or self._running.done():
            self._running = asyncio.create_task(self._check_all())
        answer = await asyncio.shield(self._running)
        self._answer = (time.monotonic(), answer)
        return answer

    async def _check_all(self) -> dict[str, str]:
        names = list(self._checks)
        results = await asyncio.gather(*(self._one(self._checks[name]) for name in names))
        return dict(zip(names, results, strict=True))

    @staticmethod
    async def _one(check: Check) -> str:
        try:
            await asyncio.wait_for(check(), CHECK_TIMEOUT)
        except TimeoutError:
            return f"no answer within {CHECK_TIMEOUT:g} s"
        except Exception as exc:
            return str(exc) if isinstance(exc, NotReady) else f"failed ({type(exc).__name__})"
        return "ok"


class NotReady(Exception):
    """A check's own verdict, shown as it is (it holds no secret)."""
