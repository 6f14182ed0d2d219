"""The network search by time, on several cores: what ``grandmaster`` thinks with.

:mod:`kahuna.ai.agents.netsearch` searches a fixed number of iterations, so its time depends on the
machine. Here the budget is seconds (:class:`TimeBudget`) and the search runs as ``workers``
independent trees in threads at once (root parallelism: the compiled search releases the GIL), whose
root visits are added up; the most visited action is played (ties to the lowest index).

It stops, whichever comes first (``netsearch_timed`` in ``kahuna/fast/src/netsearch.h``):

- at ``seconds``, unless the root is *close* (the two most visited actions differ in mean value by
  less than ``close``): a decision that matters may think on, up to ``hard_seconds``;
- as soon as the most visited action cannot be overtaken by the iterations the time left would
  give at the rate measured so far (the settled rule of ``netsearch._settled`` with an estimated
  remainder): a clear decision takes a fraction of its budget;
- after ``iterations`` iterations, all workers together (a bound on the tree's memory, about
  1.2 KB an iteration, not the budget).

**Determinism.** A search by time is not reproducible: how many iterations fit in a second depends
on the machine and its load, and with several workers on when each publishes its counts. The
seeds are still drawn from the ``rng`` given to :meth:`TimedNetAgent.choose`, so a replay differs only
by the amount of thinking. With ``seconds=0`` the agent searches ``iterations`` per worker with no
clock and no stop across workers: the same view, seed and number of workers give the same action on
any machine (tests/ai checks it); that is the mode to use where a spec promises reproducible play.
The ``iterations`` are shared out evenly (rounded up) among the workers in both modes.

Without the compiled core the search runs in Python on one thread with the same stopping rule
(:func:`python_timed_search`), many times slower, so it plays weaker in the same time.
"""

from __future__ import annotations

import math
import os
import random
import time
from array import array
from concurrent.futures import ThreadPoolExecutor
from dataclasses import astuple, dataclass, replace

from kahuna.ai.agents.net import Network
from kahuna.ai.agents.netsearch import NetSearchConfig, _iterate, _Node, compiled, compiled_search, python_search
from kahuna.ai.budget import TimeBudget
from kahuna.fast import core_module
from kahuna.fast.layout import view_fields
from kahuna.rules import Action, PlayerView, action_at, determinize, legal_actions_of

CHECK_EVERY = 16
"""Iterations between two looks at the clock and the root (as NETSEARCH_CHECK_EVERY in C)."""


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the system tells it, else all)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


@dataclass
class SearchResult:
    """Root visits per action index (all workers added up) and the iterations they made."""

    visits: dict[int, int]
    iterations: int
    seconds: float


def timed_search(
    view: PlayerView,
    net: Network,
    config: NetSearchConfig,
    budget: TimeBudget,
    seeds: list[int],
    pool: ThreadPoolExecutor | None,
) -> SearchResult:
    """One worker per seed (threads from ``pool`` beyond the first; without a pool one after the
    other, where a later one stops at its first check if an earlier one raised the stop flag),
    stopping as the module says."""
    start = time.perf_counter()
    if not compiled(config):
        visits, done = python_timed_search(view, net, config, budget, seeds[0])
        return SearchResult(visits, done, time.perf_counter() - start)
    core = core_module()
    workers = len(seeds)
    board = array("d", bytes(8 * (core.NETSEARCH_BOARD_HEADER + workers * core.NETSEARCH_BOARD_ROW)))
    fields, hand_slots, down_slots = view_fields(view)
    fixed = (
        net.compiled(),
        fields,
        view.seat,
        hand_slots,
        down_slots,
    )

    def run(worker: int) -> tuple[dict[int, int], int]:
        result: tuple[dict[int, int], int] = core.net_search_timed(
            *fixed,
            random.Random(seeds[worker]).getstate()[1],
            config.iterations,
            float(config.c_puct),
            float(config.mix),
            config.playout_turns,
            astuple(config.heuristic),
            float(budget.seconds),
            float(budget.hard_seconds),
            float(budget.close),
            board,
            workers,
            worker,
        )
        return result

    if pool is None:
        results = [run(w) for w in range(workers)]
    else:
        others = [pool.submit(run, w) for w in range(1, workers)]
        results = [run(0)] + [future.result() for future in others]
    return _merged(results, time.perf_counter() - start)


def fixed_search(
    view: PlayerView, net: Network, config: NetSearchConfig, seeds: list[int], pool: ThreadPoolExecutor | None
) -> SearchResult:
    """``config.iterations`` per worker, no clock: reproducible from the seeds (module docstring)."""
    start = time.perf_counter()
    run = compiled_search if compiled(config) else python_search

    def one(seed: int) -> tuple[dict[int, int], int]:
        visits = run(view, net, config, seed)
        return visits, sum(visits.values())

    if pool is None:
        results = [one(seed) for seed in seeds]
    else:
        others = [pool.submit(one, seed) for seed in seeds[1:]]
        results = [one(seeds[0])] + [future.result() for future in others]
    return _merged(results, time.perf_counter() - start)


def _merged(results: list[tuple[dict[int, int], int]], seconds: float) -> SearchResult:
    visits: dict[int, int] = {}
    done = 0
    for counts, iterations in results:
        done += iterations
        for index, n in counts.items():
            visits[index] = visits.get(index, 0) + n
    return SearchResult(visits, done, seconds)


def python_timed_search(
    view: PlayerView, net: Network, config: NetSearchConfig, budget: TimeBudget, seed: int
) -> tuple[dict[int, int], int]:
    """The search by time in Python, one worker (the C search's rule, read from its own root)."""
    rng = random.Random(seed)
    root = _Node(0.0)
    start = time.perf_counter()
    done = 0
    while done < config.iterations:
        _iterate(root, determinize(view, rng), net, config, rng)
        done += 1
        if done % CHECK_EVERY and done < config.iterations:
            continue
        counts = {index: (child.visits, child.reward) for index, child in root.children.items()}
        if time_to_stop(counts, done, time.perf_counter() - start, budget, config.iterations):
            break
    visits = {index: child.visits for index, child in root.children.items() if child.visits}
    if not visits:
        legal = [a.index for a in legal_actions_of(view)]
        visits = {max(legal, key=lambda i: (root.child(i, net).prior, -i)): 1}
    return visits, done


def time_to_stop(
    root: dict[int, tuple[int, float]], done: int, elapsed: float, budget: TimeBudget, iterations: int
) -> bool:
    """Whether a root (visits and rewards per action index, summed over the workers) after ``done``
    iterations in ``elapsed`` seconds is done thinking (``time_to_stop`` in netsearch.c)."""
    if elapsed >= budget.hard_seconds:
        return True
    ranked = sorted(root.items(), key=lambda item: (-item[1][0], item[0]))
    if not ranked or ranked[0][1][0] == 0:
        return elapsed >= budget.seconds
    leader, (lead, lead_reward) = ranked[0]
    close = False
    if len(ranked) > 1 and ranked[1][1][0] > 0:
        visits, reward = ranked[1][1]
        close = math.fabs(lead_reward / lead - reward / visits) < budget.close
    if elapsed >= budget.seconds and not close:
        return True
    limit = budget.hard_seconds if close else budget.seconds
    remaining = min(done / max(elapsed, 1e-6) * (limit - elapsed), float(iterations - done))
    if lead <= remaining:
        return False
    for index, (visits, _) in root.items():
        reach = visits + remaining
        if index != leader and (reach > lead or (reach == lead and index < leader)):
            return False
    return True


class TimedNetAgent:
    """Plays the most visited action of the network search by time, on ``workers`` cores."""

    def __init__(
        self, net: Network, config: NetSearchConfig, budget: TimeBudget | None, workers: int = 0, name: str = "net"
    ) -> None:
        self.net = net
        self.config = config
        self.budget = budget
        """``None``: ``config.iterations`` per worker, no clock (reproducible)."""
        self.workers = workers if workers > 0 else cores()
        self.name = name
        self.last: SearchResult | None = None
        """The last decision's search: for tests, benchmarks and the strength curve."""
        self._pool: ThreadPoolExecutor | None = None

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        return self.choose_within(view, rng, self.budget)

    def choose_within(self, view: PlayerView, rng: random.Random, budget: TimeBudget | None) -> Action:
        """The action, thinking within ``budget`` (a clock's share, ``kahuna.ai.timed``) instead of
        the agent's own."""
        legal = legal_actions_of(view)
        if len(legal) == 1:
            self.last = None
            return legal[0]
        seeds = [rng.getrandbits(64) for _ in range(self.workers)]
        if self.workers > 1 and self._pool is None:
            self._pool = ThreadPoolExecutor(self.workers - 1, thread_name_prefix="kahuna-search")
        # ``iterations`` bounds the decision, all workers together (its memory: about 1.2 KB each).
        share = replace(self.config, iterations=max(1, -(-self.config.iterations // self.workers)))
        if budget is None:
            self.last = fixed_search(view, self.net, share, seeds, self._pool)
        else:
            self.last = timed_search(view, self.net, share, budget, seeds, self._pool)
        visits = self.last.visits
        return action_at(max(visits, key=lambda i: (visits[i], -i)))

    def __getstate__(self) -> dict[str, object]:
        """Pickled without its threads (an arena sends agents to worker processes)."""
        return {**self.__dict__, "_pool": None}

    def close(self) -> None:
        """Stop the worker threads, if any were started."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
