"""Information-Set Monte Carlo Tree Search (single observer).

Every iteration samples a world consistent with the agent's view (:func:`determinize`: the cards
the agent has not located, by card counting, are dealt at random to the opponent's hidden hand
slots, its face-down discards and the deck), then walks one shared tree of actions: among the
children legal in that world it picks by UCB1, where a child's exploration term counts the
iterations in which it was *available* rather than its parent's visits. At the first untried
action it expands, plays the world on with a cheap heuristic policy for a few turns (claims and
stone-breaking strikes first, otherwise builds or draws at random) and scores the position with
the heuristic's win probability (with the configured :class:`~kahuna.ai.agents.heuristic.Weights`, so
tuned weights change the leaf values); the result is backed up from each mover's side. The most
visited root action is played.

The budget is a number of iterations, or seconds (then the choice depends on the machine's speed,
so same view + same seed gives the same action only under an iteration budget). With
``workers`` > 1 the search runs as independent trees in that many processes (root
parallelism) and their root visit counts are added up.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, replace
from typing import Any

from kahuna.ai.agents.heuristic import DEFAULT_WEIGHTS, CardBelief, Weights, win_probability
from kahuna.rules import NOBODY, Action, GameState, Kind, PlayerView, action_at, determinize, legal_actions_of
from kahuna.rules.board import CONTROL, HAND_LIMIT, LINES


@dataclass(frozen=True)
class SearchConfig:
    """What one search may spend and how it plays out."""

    iterations: int = 1000
    seconds: float = 0.0
    """When positive, search until this many seconds have passed (``iterations`` is then ignored)."""
    exploration: float = 0.7
    playout_turns: int = 2
    """Turns played by the playout policy after the tree before the heuristic judges the position."""
    weights: Weights = DEFAULT_WEIGHTS
    """The heuristic's weights at the leaves (``kahuna tune --agent ismcts`` tunes them)."""


class Node:
    """A tree node: statistics of the action that led here, from the side of the seat that chose it."""

    __slots__ = ("available", "children", "reward", "visits")

    def __init__(self) -> None:
        self.children: dict[int, Node] = {}
        self.visits = 0
        self.reward = 0.0
        self.available = 0


Clock = Callable[[], float]
"""Seconds from some fixed point (``time.perf_counter``): what a search in seconds reads."""


def search(
    view: PlayerView, config: SearchConfig, seed: int, clock: Clock = time.perf_counter
) -> tuple[dict[int, int], int]:
    """Run one tree; returns root visits per action index and the number of iterations made."""
    root, done = search_tree(view, config, seed, clock)
    return {index: child.visits for index, child in root.children.items()}, done


def search_tree(
    view: PlayerView, config: SearchConfig, seed: int, clock: Clock = time.perf_counter
) -> tuple[Node, int]:
    """Run one tree and return its root (children's visits and rewards, e.g. for post-game
    analysis, which needs the mean reward of every root action) and the iterations made.

    With a budget in seconds the search reads ``clock`` after every iteration and stops at the
    first reading at or past its deadline; it always makes at least one iteration."""
    rng = random.Random(seed)
    root = Node()
    deadline = clock() + config.seconds if config.seconds > 0 else None
    done = 0
    while True:
        if deadline is None:
            if done >= config.iterations:
                break
        elif done and clock() >= deadline:
            break
        iterate(root, determinize(view, rng), rng, config)
        done += 1
    return root, done


def iterate(root: Node, state: GameState, rng: random.Random, config: SearchConfig) -> float:
    """One iteration from ``root`` in the world ``state`` (which it plays on); returns the
    playout's chance that seat 0 wins, already backed up into the nodes below ``root``."""
    node = root
    path: list[tuple[Node, int]] = []
    c = config.exploration
    while not state.is_over:
        mover = state.to_move
        legal = tree_actions(state)
        untried = [a for a in legal if a.index not in node.children]
        for action in legal:
            child = node.children.get(action.index)
            if child is not None:
                child.available += 1
        if untried:
            action = untried[rng.randrange(len(untried))]
            child = Node()
            child.available = 1
            node.children[action.index] = child
            state.apply_unchecked(action)
            path.append((child, mover))
            break
        best_value = -1.0
        best_action = legal[0]
        for action in legal:
            child = node.children[action.index]
            value = child.reward / child.visits + c * math.sqrt(math.log(child.available) / child.visits)
            if value > best_value:
                best_value, best_action = value, action
        state.apply_unchecked(best_action)
        node = node.children[best_action.index]
        path.append((node, mover))
    result = _playout(state, rng, config.playout_turns, config.weights)
    for node, mover in path:
        node.visits += 1
        node.reward += result if mover == 0 else 1.0 - result
    return result


def tree_actions(state: GameState) -> list[Action]:
    """Legal actions worth a branch: face-down discards only with a full hand (to make room)."""
    legal = state.legal_actions()
    full = state.hand_size[state.to_move] >= HAND_LIMIT
    kept = [a for a in legal if a.kind is not Kind.DISCARD or full]
    return kept or legal


def _playout(state: GameState, rng: random.Random, turns: int, weights: Weights) -> float:
    """Play ``turns`` turns with the playout policy; the chance that seat 0 wins from there."""
    ended = 0
    while not state.is_over and ended < turns:
        action = playout_action(state, rng)
        state.apply_unchecked(action)
        if action.ends_turn:
            ended += 1
    beliefs = (CardBelief.exact(state.hands[0]), CardBelief.exact(state.hands[1]))
    return win_probability(state, 0, beliefs, weights)


def playout_action(state: GameState, rng: random.Random) -> Action:
    """A cheap, sensible move: claim, break a stone, build or strike now and then, else draw."""
    legal = state.legal_actions()
    seat = state.to_move
    other = 1 - seat
    counts = state.counts
    stones = state.stones
    builds: list[Action] = []
    endings: list[Action] = []
    discards: list[Action] = []
    removals: list[Action] = []
    for action in legal:
        kind = action.kind
        if kind is Kind.BUILD:
            a, b = LINES[action.line]
            for island in (a, b):
                if stones[island] == NOBODY and counts[seat][island] + 1 >= CONTROL[island]:
                    return action
            builds.append(action)
        elif kind is Kind.REMOVE:
            a, b = LINES[action.line]
            for island in (a, b):
                if stones[island] == other and counts[other][island] == CONTROL[island]:
                    return action
            removals.append(action)
        elif kind is Kind.DISCARD:
            discards.append(action)
        else:
            endings.append(action)
    roll = rng.random()
    if builds and roll < 0.45:
        return builds[rng.randrange(len(builds))]
    if removals and roll < 0.5:
        return removals[rng.randrange(len(removals))]
    draws = [a for a in endings if a.kind is not Kind.PASS] or endings
    if draws:
        return draws[rng.randrange(len(draws))]
    return discards[rng.randrange(len(discards))]


class IsmctsAgent:
    """ISMCTS over determinizations with heuristic playouts (see the module docstring).

    ``search_function`` runs one tree and ``executor`` holds the workers of a multi-worker
    search; the compiled twin (``kahuna.ai.agents.fast_ismcts``) changes only these two.
    """

    search_function: Callable[[PlayerView, SearchConfig, int], tuple[dict[int, int], int]] = staticmethod(search)
    executor: Callable[[int], Executor] = ProcessPoolExecutor

    def __init__(self, config: SearchConfig, workers: int = 1, name: str = "ismcts") -> None:
        self.config = config
        self.workers = max(1, workers)
        self.name = name
        self.last_iterations = 0
        """Iterations made by the last search (all workers together): for tests and benchmarks."""
        self._pool: Executor | None = None

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        legal = legal_actions_of(view)
        if len(legal) == 1:
            self.last_iterations = 0
            return legal[0]
        seeds = [rng.getrandbits(64) for _ in range(self.workers)]
        run = self.search_function
        if self.workers == 1:
            results = [run(view, self.config, seeds[0])]
        else:
            share = replace(self.config, iterations=-(-self.config.iterations // self.workers))
            if self._pool is None:
                self._pool = self.executor(self.workers)
            results = list(self._pool.map(run, [view] * self.workers, [share] * self.workers, seeds))
        visits: dict[int, int] = {}
        for counts, _ in results:
            for index, n in counts.items():
                visits[index] = visits.get(index, 0) + n
        self.last_iterations = sum(done for _, done in results)
        best = max(visits, key=lambda i: (visits[i], -i))
        return action_at(best)

    def close(self) -> None:
        """Stop the workers, if any were started."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def __getstate__(self) -> dict[str, Any]:
        # A pool cannot travel to another process; the copy starts its own when needed.
        state = dict(self.__dict__)
        state["_pool"] = None
        return state
