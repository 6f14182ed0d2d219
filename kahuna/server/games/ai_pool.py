"""AI seats: agents run in a pool of worker processes so that thinking never blocks the event loop.

A worker gets only the AI seat's player view (as JSON), a seed and the agent spec, the same
inputs the agent interface promises (``kahuna.ai.base``); it never sees the referee's state.

Moves wait for a worker in a fair queue (:class:`FairQueue`), not first come first served: cheap
levels go before costly ones, and among moves of one cost the owners of games (the clients that
created them) take turns, so sixty expert games of one client do not hold up another's easy game.

A level that thinks by time (``grandmaster``: about a CPU-second a move on every core, ten in a
correspondence game) has a lane of its own: its moves never take one of the ``workers`` places
that the other levels' moves wait for, but ``long_workers`` processes of their own, in a queue where
the owners take turns and one owner holds at most :data:`LONG_PER_OWNER` of them at a time (the
budget capped per client). So one player's grandmaster games delay nobody else's moves by more
than the sharing of the cores (docs/scaling.md counts the workers they need).

Background work nobody waits for (the fair-play screening of finished games, docs/fair-play.md)
has the lowest lane: one process of its own, at the lowest CPU priority (``nice`` 19), so it never
takes a place a live move waits for and yields the cores to the other lanes' workers.
Workers watch their parent and exit when it dies, even by ``SIGKILL``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import wait
from typing import Any, TypeVar

from kahuna.ai import timed
from kahuna.ai.base import Agent
from kahuna.ai.levels import LEVEL_SPECS
from kahuna.ai.registry import FACTORIES, make_agent
from kahuna.clock import TimeControl
from kahuna.rules import PlayerView
from kahuna.server.ops import metrics

T = TypeVar("T")

LONG_PER_OWNER = 1
"""Moves of levels thinking by time that one owner may have in the works at once."""

ClockReading = tuple[float, float, dict[str, int]]
"""A real-time clock as an AI move is asked for: the seat's seconds left, when (seconds since the
epoch), and the time control (``TimeControl.to_json``)."""

_agents: dict[str, Agent] = {}
"""Agents already built in this worker process, by spec (some load tables or networks)."""


def _agent(spec: str) -> Agent:
    agent = _agents.get(spec)
    if agent is None:
        agent = _agents[spec] = make_agent(spec)
    return agent


def choose_token(spec: str, view_json: dict[str, Any], seed: int, clock: ClockReading | None = None) -> str:
    """Worker side: the token ``spec`` plays in ``view_json``; on a real-time ``clock`` with the time
    left now (the wait for a worker counts), by the clock's rules (``kahuna.ai.timed``)."""
    view, rng = PlayerView.from_json(view_json), random.Random(seed)
    if clock is None:
        return _agent(spec).choose(view, rng).token
    left, at, control = clock
    now_left = left - max(0.0, time.time() - at)
    quick = _agent(timed.QUICK_LEVEL)
    return timed.choose_on_clock(_agent(spec), quick, view, rng, now_left, TimeControl(**control)).token


BACKGROUND_NICE = 19
"""The background lane's CPU priority: the lowest, below every live move's worker."""


def _exit_with_parent_at_low_priority() -> None:
    """The background lane's worker initializer: as :func:`_exit_with_parent`, at the lowest CPU
    priority."""
    os.nice(BACKGROUND_NICE)
    _exit_with_parent()


def _exit_with_parent() -> None:
    """Worker initializer: a thread that ends the worker as soon as the server process is gone."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="kahuna-parent-watch", daemon=True).start()


def available(level: str) -> bool:
    """Whether this installation has an agent of that name."""
    return level in FACTORIES


def costly(level: str) -> bool:
    """Whether a level searches (seconds per move) rather than evaluates (milliseconds)."""
    spec = LEVEL_SPECS.get(level, level)
    return "ismcts" in spec or spec.startswith("net") or "openspiel" in level


def thinks_by_time(level: str) -> bool:
    """Whether a level (or a search's spec) thinks for a time (``seconds`` > 0) rather than a
    count: its moves take the long lane."""
    name, _, options = LEVEL_SPECS.get(level, level).partition(":")
    if name not in ("net", "ismcts", "fast-ismcts"):
        return False
    for part in options.split(","):
        key, _, value = part.partition("=")
        if key.strip() == "seconds":
            try:
                return float(value) > 0
            except ValueError:
                return False
    return False


class FairQueue:
    """``slots`` places; waiting moves are served cheap before costly, owners in turn within each,
    and an owner holds at most ``per_owner`` places at once (``None``: no cap)."""

    def __init__(self, slots: int, per_owner: int | None = None) -> None:
        self._free = slots
        self._per_owner = per_owner
        self._held: dict[str, int] = {}
        self._waiting: tuple[OrderedDict[str, deque[asyncio.Future[None]]], ...] = (OrderedDict(), OrderedDict())

    def waiting(self) -> int:
        return sum(len(q) for queues in self._waiting for q in queues.values())

    def held(self, owner: str) -> int:
        """Places ``owner`` holds now."""
        return self._held.get(owner, 0)

    def _may_hold(self, owner: str) -> bool:
        return self._per_owner is None or self.held(owner) < self._per_owner

    async def acquire(self, owner: str, expensive: bool) -> None:
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[expensive].setdefault(owner, deque()).append(future)
        self._serve()
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release(owner)  # it was given a place just as it was cancelled: pass it on
            else:
                self._forget(owner, future)
            raise

    def _take(self, owner: str) -> None:
        self._free -= 1
        self._held[owner] = self.held(owner) + 1

    def _forget(self, owner: str, future: asyncio.Future[None]) -> None:
        """A cancelled waiter leaves the queue (an owner at its cap would otherwise keep it forever)."""
        for queues in self._waiting:
            queue = queues.get(owner)
            if queue is not None and future in queue:
                queue.remove(future)
                if not queue:
                    del queues[owner]

    def release(self, owner: str) -> None:
        self._held[owner] = self.held(owner) - 1
        if not self._held[owner]:
            del self._held[owner]
        self._free += 1
        self._serve()

    def _serve(self) -> None:
        """Give the free places to the waiting moves: cheap before costly, the owners in turn, none
        beyond its cap."""
        while self._free:
            for queues in self._waiting:
                owner = next((name for name in queues if self._may_hold(name)), None)
                if owner is not None:
                    break
            else:
                return
            queue = queues[owner]
            future = queue.popleft()
            if queue:
                queues.move_to_end(owner)  # the next move of this owner waits for the others'
            else:
                del queues[owner]
            if not future.done():
                self._take(owner)
                future.set_result(None)


class _Lane:
    """``workers`` processes (spawned, so that no lock held by a server thread is inherited) and
    the fair queue of the moves that wait for them."""

    def __init__(
        self, name: str, workers: int, per_owner: int | None, initializer: Callable[[], None] = _exit_with_parent
    ) -> None:
        self.name = name
        """The lane in the metrics: ``count``, ``time`` or ``background``."""
        self._initializer = initializer
        self.workers = max(1, workers)
        self.queue = FairQueue(self.workers, per_owner)
        self._executor: ProcessPoolExecutor | None = None
        self.closed = False

    @property
    def pool(self) -> ProcessPoolExecutor:
        if self.closed:
            raise RuntimeError("the AI pool is closed")
        if self._executor is None:
            context = multiprocessing.get_context("spawn")
            self._executor = ProcessPoolExecutor(self.workers, mp_context=context, initializer=self._initializer)
        return self._executor

    async def run(self, owner: str, expensive: bool, fn: Callable[..., T], *args: Any) -> T:
        clock, waiting = metrics.Stopwatch(), metrics.AI_QUEUE.labels(self.name)
        waiting.inc()
        try:
            await self.queue.acquire(owner, expensive)
        finally:
            waiting.dec()
        metrics.AI_WAIT_SECONDS.labels(self.name).observe(clock.seconds())
        try:
            return await self._execute(fn, *args)
        finally:
            self.queue.release(owner)

    async def _execute(self, fn: Callable[..., T], *args: Any) -> T:
        """Run in a worker; a pool whose worker died (killed, out of memory) is replaced once."""
        loop = asyncio.get_running_loop()
        pool = self.pool
        try:
            return await loop.run_in_executor(pool, fn, *args)
        except BrokenProcessPool:
            if self._executor is pool:  # the first game to notice replaces it
                pool.shutdown(wait=False, cancel_futures=True)
                self._executor = None
            return await loop.run_in_executor(self.pool, fn, *args)

    @property
    def up(self) -> bool:
        """Whether the processes are started and not closed."""
        return self._executor is not None and not self.closed

    def close(self) -> None:
        self.closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None


class AiPool:
    """``workers`` processes for the levels by count and ``long_workers`` for those by time (the
    module docstring says why they are apart).

    The processes, and the semaphores of their queues, exist from the first use (:meth:`warm_up`,
    at start-up; the long lane's at its first move) until :meth:`close`: a server that stops before
    it started, or whose start-up failed, leaves none behind."""

    def __init__(self, workers: int, long_workers: int = 1) -> None:
        self._lane = _Lane("count", workers, None)
        self._long = _Lane("time", long_workers, LONG_PER_OWNER)
        self._background = _Lane("background", 1, None, _exit_with_parent_at_low_priority)
        self.workers = self._lane.workers
        self.long_workers = self._long.workers

    @property
    def queue(self) -> FairQueue:
        """The queue of the levels by count (for tests and the load figures)."""
        return self._lane.queue

    @property
    def long_queue(self) -> FairQueue:
        """The queue of the levels by time."""
        return self._long.queue

    @property
    def background_queue(self) -> FairQueue:
        """The queue of the background work (:meth:`background`)."""
        return self._background.queue

    async def warm_up(self, long: bool = False) -> None:
        """Start a worker now (importing the engine takes a while) rather than at the first AI move;
        with ``long``, one of the long lane too."""
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self._lane.pool, os.getpid)
        if long:
            await loop.run_in_executor(self._long.pool, os.getpid)

    @property
    def up(self) -> bool:
        """Whether the pool's processes for the levels by count are started (:meth:`warm_up`) and
        not closed: what ``/readyz`` asks (the long lane starts at its first move)."""
        return self._lane.up

    async def choose(
        self, spec: str, view_json: dict[str, Any], seed: int, owner: str = "", clock: ClockReading | None = None
    ) -> str:
        """The agent's token, once a worker is free for it (:class:`FairQueue`, in the lane of the
        level: by count or by time); ``clock``: the seat's real-time clock as the move was asked."""
        if thinks_by_time(spec):
            return await self._long.run(owner, True, choose_token, spec, view_json, seed, clock)
        return await self._lane.run(owner, costly(spec), choose_token, spec, view_json, seed, clock)

    async def run(self, owner: str, fn: Callable[..., T], *args: Any) -> T:
        """Other costly work in a worker (a decision of a post-game analysis), queued like a costly
        move so that live games keep their turn."""
        return await self._lane.run(owner, True, fn, *args)

    async def background(self, owner: str, fn: Callable[..., T], *args: Any) -> T:
        """Work nobody waits for (a game's fair-play screening) in the lowest lane: its own process
        at the lowest CPU priority, never a place a move waits for (the module docstring)."""
        return await self._background.run(owner, False, fn, *args)

    def close(self) -> None:
        """Drop queued moves, let a running one finish (workers exit cleanly), and release the
        pool's queues (their semaphores would otherwise outlive a process stopped by a signal)."""
        self._lane.close()
        self._long.close()
        self._background.close()
