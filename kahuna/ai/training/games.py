"""The games of a run as self-contained jobs, so that worker processes can play them (``--jobs``).

A job holds everything its game depends on (the searches' settings, the networks' weights, the
seed) and nothing else, and the run records the jobs' results in the order it made them, so a run
with ``--jobs 2`` writes the files, scores and weights of a run with one process, only sooner.
numpy only: a worker never needs PyTorch.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from kahuna.ai.agents.net import Network
from kahuna.ai.agents.netsearch import NetAgent, NetSearchConfig
from kahuna.ai.base import Agent
from kahuna.ai.eval.match import agent_rng, deal_rng, play_game
from kahuna.ai.registry import make_agent
from kahuna.ai.training.selfplay import network_search, play, teacher_search
from kahuna.rules import GameState


class Job(Protocol):
    """One game: called (in this process or a worker) it plays and returns its result."""

    def __call__(self) -> float: ...


@dataclass(frozen=True)
class SelfPlayGame:
    """A game of training data, saved to ``path``: the teacher's (``teacher_iterations`` > 0,
    the heuristic ISMCTS) or ``net``'s search. Returns the number of positions."""

    seed: str
    explore: int
    path: Path
    teacher_iterations: int = 0
    net: Network | None = None
    config: NetSearchConfig = field(default_factory=NetSearchConfig)

    def __call__(self) -> float:
        if self.teacher_iterations:
            search = teacher_search(self.teacher_iterations)
        else:
            assert self.net is not None
            search = network_search(self.net, self.config)
        positions, _ = play(search, self.seed, self.explore)
        positions.save(self.path)
        return float(len(positions))


@dataclass(frozen=True)
class Player:
    """An agent a job builds where it runs: ``net``'s search, or else the agent ``spec``."""

    name: str
    net: Network | None = None
    config: NetSearchConfig = field(default_factory=NetSearchConfig)
    spec: str = ""

    def build(self) -> Agent:
        if self.net is not None:
            return NetAgent(self.net, self.config, name=self.name)
        return make_agent(self.spec)


@dataclass(frozen=True)
class MatchGame:
    """Game ``game`` of a seat-swapped series (deal ``game // 2``, seats swapped in odd games)
    under ``seed``; returns ``first``'s score (1, ½, 0)."""

    first: Player
    second: Player
    seed: int
    game: int

    def __call__(self) -> float:
        deal, swapped = self.game // 2, bool(self.game % 2)
        first, second = self.first.build(), self.second.build()
        agents = (second, first) if swapped else (first, second)
        rngs = (agent_rng(self.seed, deal, swapped, 0), agent_rng(self.seed, deal, swapped, 1))
        try:
            winner = play_game(agents, GameState.new(deal_rng(self.seed, deal)), rngs).winner
        finally:
            for agent in (first, second):
                close = getattr(agent, "close", None)
                if close is not None:
                    close()
        return 0.5 if winner is None else float(winner == (1 if swapped else 0))


def _play(job: Job) -> float:
    return job()


class Games:
    """Plays jobs in order, ``jobs`` at a time in worker processes (one: in this process)."""

    def __init__(self, jobs: int = 1) -> None:
        self.jobs = jobs
        self._pool: ProcessPoolExecutor | None = ProcessPoolExecutor(jobs) if jobs > 1 else None

    def results(self, make: Callable[[int], Job], first: int, total: int, go_on: Callable[[], bool]) -> Iterator[float]:
        """The results of jobs ``make(first)`` … ``make(total - 1)``, in that order. ``go_on()``
        is asked before each job starts; once it says no, no job starts, the ones already running
        are still yielded, and the iteration ends."""
        running: deque[Future[float]] = deque()
        k, going = first, True
        while True:
            while going and k < total and len(running) < self.jobs:
                going = go_on()
                if going:
                    running.append(self._submit(make(k)))
                    k += 1
            if not running:
                return
            yield running.popleft().result()

    def _submit(self, job: Job) -> Future[float]:
        if self._pool is not None:
            return self._pool.submit(_play, job)
        done: Future[float] = Future()
        done.set_result(job())
        return done

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
