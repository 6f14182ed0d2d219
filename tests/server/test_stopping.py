"""A server's loops stop even when a library inside them swallows a cancellation.

redis-py's asyncio client now and then swallows the ``CancelledError`` of a task that is cancelled
while it waits for Redis (``kahuna/server/common/tasks.py`` gives the measured rate); an instance
whose presence loop had done so never stopped. Here the swallowing is made certain: the awaited
part catches the first cancellation and returns, as the library does, and each stop must still end.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any, cast

import pytest

from kahuna.ai.review.analysis import Budget
from kahuna.server.cluster.presence import Presence
from kahuna.server.common.periodic import Periodic
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.db.writer import Writer
from kahuna.server.games.ai_pool import AiPool
from kahuna.server.games.ai_turns import LocalAiTurns
from kahuna.server.games.analysis import Job, LocalAnalyses
from kahuna.server.games.live import LiveGame

BOUND = 30.0
"""A stop that has not ended by then never will: the test fails instead of hanging CI."""


async def ends(stop: Coroutine[Any, Any, None]) -> bool:
    """Whether ``stop`` ends by itself: it is not cancelled when :data:`BOUND` has passed (a cancel
    from outside would reach the stuck task and end it, hiding the hang)."""
    task = asyncio.get_running_loop().create_task(stop)
    done, _ = await asyncio.wait({task}, timeout=BOUND)
    return task in done


class SwallowsFirstCancel:
    """An awaitable step that blocks until cancelled, swallows that first cancellation and returns;
    ``entered`` is set each time the step starts waiting."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.swallowed = 0

    async def step(self) -> None:
        self.entered.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            if self.swallowed:
                raise
            self.swallowed += 1  # the library's bug: the caller never learns of the cancel


class SwallowingShare(SwallowsFirstCancel):
    """A presence share whose exchange swallows the first cancellation, as redis-py's did."""

    async def exchange(self, mine: dict[str, Any]) -> list[dict[str, Any]]:
        await self.step()
        return [mine]


def test_a_task_that_swallows_its_cancel_is_stopped_all_the_same() -> None:
    async def scenario() -> None:
        blocking = SwallowsFirstCancel()

        async def loop() -> None:
            while True:
                await blocking.step()

        task = asyncio.get_running_loop().create_task(loop())
        await blocking.entered.wait()
        assert await ends(cancel_and_wait(task))
        assert task.cancelled() and blocking.swallowed == 1

    asyncio.run(scenario())


def test_the_presence_loop_stops_when_its_exchange_swallowed_the_cancel() -> None:
    async def scenario() -> None:
        share = SwallowingShare()
        presence = Presence(share, every=0.01)
        presence.start()
        await share.entered.wait()
        assert await ends(presence.stop())
        assert share.swallowed == 1

    asyncio.run(scenario())


def test_a_periodic_pass_that_swallowed_the_cancel_does_not_keep_the_server_up() -> None:
    async def scenario() -> None:
        work = SwallowsFirstCancel()
        periodic = Periodic(work.step, every=0.01, error_event="test_error", first_at_once=True)
        periodic.start()
        await work.entered.wait()
        assert await ends(periodic.stop())
        assert work.swallowed == 1

    asyncio.run(scenario())


async def blocked_loop(blocking: SwallowsFirstCancel) -> None:
    while True:
        await blocking.step()


def test_an_ai_turn_that_swallowed_the_cancel_has_ended_when_the_turns_are_closed() -> None:
    """Closing returns only once each turn has ended: none may still be storing a move when the
    writer closes after it."""

    async def scenario() -> None:
        blocking = SwallowsFirstCancel()
        turn = asyncio.get_running_loop().create_task(blocked_loop(blocking))
        turns = LocalAiTurns(cast(AiPool, None))
        turns._tasks[cast(LiveGame, object())] = turn  # a game whose AI turn is under way
        await blocking.entered.wait()
        assert await ends(turns.close())
        assert turn.cancelled() and blocking.swallowed == 1

    asyncio.run(scenario())


def test_an_analysis_that_swallowed_the_cancel_has_ended_when_the_analyses_stop() -> None:
    async def scenario() -> None:
        blocking = SwallowsFirstCancel()
        runner = LocalAnalyses(cast(Writer, None), cast(AiPool, None), Budget(iterations=1))
        job = runner.jobs["g1"] = Job(total=3)
        job.task = asyncio.get_running_loop().create_task(blocked_loop(blocking))
        await blocking.entered.wait()
        assert await ends(runner.stop())
        assert job.task.cancelled() and blocking.swallowed == 1 and runner.jobs == {}

    asyncio.run(scenario())


def test_a_task_that_had_failed_is_logged_and_the_stop_goes_on(caplog: pytest.LogCaptureFixture) -> None:
    async def scenario() -> None:
        async def fails() -> None:
            raise ValueError("a loop that broke earlier")

        task = asyncio.get_running_loop().create_task(fails(), name="broken-loop")
        await asyncio.wait({task})
        await cancel_and_wait(task)  # does not raise: the parts after it still stop

    with caplog.at_level(logging.INFO, logger="kahuna.server"):
        asyncio.run(scenario())
    failed = [record.getMessage() for record in caplog.records if "task_failed" in record.getMessage()]
    assert failed == ['{"event":"task_failed","task":"broken-loop","error":"ValueError"}']
