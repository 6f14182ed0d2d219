"""AI seats: agents run in a pool of worker processes so that thinking never blocks the event loop.

A worker gets only the AI seat's player view (as JSON), a seed and the agent spec, the same
inputs the agent interface promises (``kahuna.ai.base``); it never sees the referee's state.

Moves wait for a worker in a fair queue (:class:`FairQueue`), not first come first served: cheap
levels go before costly ones, and among moves of one cost the owners of games (the clients that
created them) take turns, so sixty expert games of one client do not hold up another's easy game.
Workers watch their parent and exit when it dies, even by ``SIGKILL``.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import random
import threading
from collections import OrderedDict, deque
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from multiprocessing.connection import wait
from typing import Any, TypeVar

from kahuna.ai.base import Agent
from kahuna.ai.levels import LEVEL_SPECS
from kahuna.ai.registry import FACTORIES, make_agent
from kahuna.rules import PlayerView

T = TypeVar("T")

_agents: dict[str, Agent] = {}
"""Agents already built in this worker process, by spec (some load tables or networks)."""


def choose_token(spec: str, view_json: dict[str, Any], seed: int) -> str:
    """Worker side: the token ``spec`` plays in ``view_json``."""
    agent = _agents.get(spec)
    if agent is None:
        agent = _agents[spec] = make_agent(spec)
    return agent.choose(PlayerView.from_json(view_json), random.Random(seed)).token


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


class FairQueue:
    """``slots`` places; waiting moves are served cheap before costly, owners in turn within each."""

    def __init__(self, slots: int) -> None:
        self._free = slots
        self._waiting: tuple[OrderedDict[str, deque[asyncio.Future[None]]], ...] = (OrderedDict(), OrderedDict())

    def waiting(self) -> int:
        return sum(len(q) for queues in self._waiting for q in queues.values())

    async def acquire(self, owner: str, expensive: bool) -> None:
        if self._free > 0 and not self.waiting():
            self._free -= 1
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting[expensive].setdefault(owner, deque()).append(future)
        try:
            await future
        except asyncio.CancelledError:
            if future.done() and not future.cancelled():
                self.release()  # it was given a place just as it was cancelled: pass it on
            raise

    def release(self) -> None:
        for queues in self._waiting:
            while queues:
                owner, queue = next(iter(queues.items()))
                future = queue.popleft()
                if queue:
                    queues.move_to_end(owner)  # the next move of this owner waits for the others'
                else:
                    del queues[owner]
                if not future.done():
                    future.set_result(None)
                    return
        self._free += 1


class AiPool:
    """``workers`` processes (spawned, so that no lock held by a server thread is inherited).

    The processes, and the semaphores of their queues, exist from the first use (:meth:`warm_up`,
    at start-up) until :meth:`close`: a server that stops before it started, or whose start-up
    failed, leaves none behind."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._queue = FairQueue(self.workers)
        self._executor: ProcessPoolExecutor | None = None
        self._closed = False

    @property
    def _pool(self) -> ProcessPoolExecutor:
        if self._closed:
            raise RuntimeError("the AI pool is closed")
        if self._executor is None:
            self._executor = self._new_pool()
        return self._executor

    def _new_pool(self) -> ProcessPoolExecutor:
        context = multiprocessing.get_context("spawn")
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=context, initializer=_exit_with_parent)

    async def warm_up(self) -> None:
        """Start a worker now (importing the engine takes a while) rather than at the first AI move."""
        await asyncio.get_running_loop().run_in_executor(self._pool, os.getpid)

    async def choose(self, spec: str, view_json: dict[str, Any], seed: int, owner: str = "") -> str:
        """The agent's token, once a worker is free for it (:class:`FairQueue`)."""
        await self._queue.acquire(owner, costly(spec))
        try:
            return await self._execute(choose_token, spec, view_json, seed)
        finally:
            self._queue.release()

    async def run(self, owner: str, fn: Callable[..., T], *args: Any) -> T:
        """Other costly work in a worker (a decision of a post-game analysis), queued like a costly
        move so that live games keep their turn."""
        await self._queue.acquire(owner, True)
        try:
            return await self._execute(fn, *args)
        finally:
            self._queue.release()

    async def _execute(self, fn: Callable[..., T], *args: Any) -> T:
        """Run in a worker; a pool whose worker died (killed, out of memory) is replaced once."""
        loop = asyncio.get_running_loop()
        pool = self._pool
        try:
            return await loop.run_in_executor(pool, fn, *args)
        except BrokenProcessPool:
            if self._executor is pool:  # the first game to notice replaces it
                pool.shutdown(wait=False, cancel_futures=True)
                self._executor = self._new_pool()
            return await loop.run_in_executor(self._pool, fn, *args)

    def close(self) -> None:
        """Drop queued moves, let a running one finish (workers exit cleanly), and release the
        pool's queues (their semaphores would otherwise outlive a process stopped by a signal)."""
        self._closed = True
        if self._executor is not None:
            self._executor.shutdown(wait=True, cancel_futures=True)
            self._executor = None
