"""AI seats: agents run in a pool of worker processes so that thinking never blocks the event loop.

A worker gets only the AI seat's player view (as JSON), a seed and the agent spec, the same
inputs the agent interface promises (``kahuna.ai.base``); it never sees the referee's state.
"""

from __future__ import annotations

import asyncio
import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from kahuna.ai.base import Agent
from kahuna.ai.registry import FACTORIES, make_agent
from kahuna.rules import PlayerView

_agents: dict[str, Agent] = {}
"""Agents already built in this worker process, by spec (some load tables or networks)."""


def choose_token(spec: str, view_json: dict[str, Any], seed: int) -> str:
    """Worker side: the token ``spec`` plays in ``view_json``."""
    agent = _agents.get(spec)
    if agent is None:
        agent = _agents[spec] = make_agent(spec)
    return agent.choose(PlayerView.from_json(view_json), random.Random(seed)).token


def _warm_up() -> None:
    """Import the engine and the agent registry in a fresh worker."""


def available(level: str) -> bool:
    """Whether this installation has an agent of that name."""
    return level in FACTORIES


class AiPool:
    """``workers`` processes (spawned, so that no lock held by a server thread is inherited)."""

    def __init__(self, workers: int) -> None:
        self.workers = max(1, workers)
        self._pool = self._new_pool()

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.workers, mp_context=multiprocessing.get_context("spawn"))

    async def warm_up(self) -> None:
        await asyncio.get_running_loop().run_in_executor(self._pool, _warm_up)

    async def choose(self, spec: str, view_json: dict[str, Any], seed: int) -> str:
        """The agent's token; a pool whose worker died (killed, out of memory) is replaced once."""
        loop = asyncio.get_running_loop()
        pool = self._pool
        try:
            return await loop.run_in_executor(pool, choose_token, spec, view_json, seed)
        except BrokenProcessPool:
            if self._pool is pool:  # the first game to notice replaces it
                pool.shutdown(wait=False, cancel_futures=True)
                self._pool = self._new_pool()
            return await loop.run_in_executor(self._pool, choose_token, spec, view_json, seed)

    def close(self) -> None:
        """Drop queued moves, let a running one finish (workers exit cleanly)."""
        self._pool.shutdown(wait=True, cancel_futures=True)
