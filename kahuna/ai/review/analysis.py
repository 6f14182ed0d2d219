"""Post-game analysis: how good was each decision, judged from what the player could know then.

For every action of a record we rebuild the acting seat's :class:`PlayerView` just before it
(the record replayed through the referee) and search from that view alone: the hidden cards are
sampled by :func:`determinize`, never read from the record. The search is the ISMCTS of
:mod:`kahuna.ai.agents.ismcts` (the Python tree, because the analysis needs the mean reward of every
root action and the compiled search returns only visit counts). From its root:

* ``best`` is the most visited action (the one the AI would play) and ``win_best`` its mean
  reward — the tree's Q, a win probability for the acting seat;
* ``win_played`` is the played action's Q. A move the search thinks poor gets few visits, so its
  Q would be noisy: the played action is topped up with iterations forced through it until it has
  at least :attr:`Budget.min_share` of the budget (in the same tree, from the same view);
* ``win_before`` is the root's value, the mean reward over all the budgeted iterations;
* ``loss = max(0, win_best - win_played)`` classes the move by :data:`THRESHOLDS`.

A step with one legal action is *forced*: not searched, class ``forced``, no probabilities.
Each step's search is seeded from the run's seed and the step number alone, so the result does
not depend on ``jobs`` or on the order in which steps are searched.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from kahuna.ai.agents.ismcts import Node, SearchConfig, iterate, search_tree
from kahuna.rules import (
    Action,
    GameRecord,
    GameState,
    NotationError,
    PlayerView,
    action_at,
    determinize,
    legal_actions_of,
    parse,
    view_of,
)

CLASSES: tuple[str, ...] = ("best", "inaccuracy", "mistake", "blunder")
"""The classes of a searched decision, by growing loss; a forced step is classed ``forced``."""

THRESHOLDS: tuple[tuple[str, float], ...] = (("blunder", 0.20), ("mistake", 0.10), ("inaccuracy", 0.05))
"""A decision whose loss (in win probability) reaches a threshold gets that class, checked from
the largest down; below 0.05 it is ``best``. The loss is a difference of two tree means, each
with a sampling error of a few hundredths at the default budget, so smaller losses are noise."""

DEFAULT_ITERATIONS = 1000
"""Iterations per searched decision by default (docs/analysis.md measures a game's time)."""


def classify(loss: float) -> str:
    """The class of a searched decision that lost ``loss`` win probability to the best one found."""
    for name, threshold in THRESHOLDS:
        if loss >= threshold:
            return name
    return "best"


@dataclass(frozen=True)
class Budget:
    """What one decision's search may spend."""

    iterations: int = DEFAULT_ITERATIONS
    seconds: float = 0.0
    """When positive, search each decision for this long instead (results then vary by machine)."""
    min_share: float = 0.1
    """The played action gets at least this share of the budgeted iterations (forced through it)."""

    def config(self) -> SearchConfig:
        return SearchConfig(iterations=self.iterations, seconds=self.seconds)


DEFAULT_BUDGET = Budget()


@dataclass(frozen=True)
class Judgement:
    """One decision as the search saw it; probabilities are for the acting seat."""

    best: Action
    win_before: float
    win_played: float
    win_best: float
    iterations: int

    @property
    def loss(self) -> float:
        return max(0.0, self.win_best - self.win_played)


def judge(view: PlayerView, played: Action, budget: Budget, seed: int) -> Judgement:
    """Search ``view`` (the mover's own) and compare ``played`` with the best action found."""
    seat = view.seat
    assert seat is not None and seat == view.to_move, "a decision is judged from the mover's own view"
    root, done = search_tree(view, budget.config(), seed)
    visits = sum(child.visits for child in root.children.values())
    reward = sum(child.reward for child in root.children.values())
    win_before = reward / visits if visits else 0.5
    child = root.children.setdefault(played.index, Node())
    wanted = max(1, int(budget.min_share * done))
    rng = random.Random(seed ^ 0x5EED)
    config = budget.config()
    while child.visits < wanted:
        world = determinize(view, rng)
        world.apply_unchecked(played)  # legal in every world: legality depends on the view alone
        result = iterate(child, world, rng, config)
        child.visits += 1
        child.available += 1
        child.reward += result if seat == 0 else 1.0 - result
        done += 1
    best_index = max(root.children, key=lambda i: (root.children[i].visits, -i))
    best = root.children[best_index]
    return Judgement(
        best=action_at(best_index),
        win_before=win_before,
        win_played=child.reward / child.visits,
        win_best=best.reward / best.visits,
        iterations=done,
    )


@dataclass(frozen=True)
class MoveAnalysis:
    """One action of a record: forced, or judged (then the probabilities are set)."""

    step: int
    turn: int
    seat: int
    played: str
    forced: bool
    judgement: Judgement | None

    @property
    def loss(self) -> float | None:
        return None if self.judgement is None else self.judgement.loss

    @property
    def cls(self) -> str:
        return "forced" if self.judgement is None else classify(self.judgement.loss)

    def to_json(self) -> dict[str, Any]:
        j = self.judgement
        return {
            "step": self.step,
            "turn": self.turn,
            "seat": self.seat,
            "played": self.played,
            "best": self.played if j is None else j.best.token,
            "win_before": None if j is None else round(j.win_before, 4),
            "win_played": None if j is None else round(j.win_played, 4),
            "win_best": None if j is None else round(j.win_best, 4),
            "loss": None if j is None else round(j.loss, 4),
            "class": self.cls,
            "iterations": 0 if j is None else j.iterations,
        }


@dataclass(frozen=True)
class Decision:
    """What the analysis needs of one step: the mover's view before it and the action played."""

    step: int
    turn: int
    seat: int
    view: PlayerView
    played: Action


def decisions(record: GameRecord) -> list[Decision]:
    """Every action of ``record`` with the acting seat's own view just before it."""
    out: list[Decision] = []
    turn = 0

    def before(step: int, state: GameState) -> None:
        nonlocal turn
        seat = state.to_move
        try:
            played = parse(record.actions[step])
        except NotationError:
            return  # replay() reports the malformed token
        out.append(Decision(step, turn, seat, view_of(state, seat), played))
        if played.ends_turn:
            turn += 1

    record.replay(before_each=before)
    return out


def seed_for(seed: int, step: int) -> int:
    """The search seed of one step: a function of the run's seed and the step alone."""
    return random.Random(f"kahuna-analysis:{seed}:{step}").getrandbits(64)


def analyse_decision(decision: Decision, budget: Budget, seed: int) -> MoveAnalysis:
    """Judge one decision, or mark it forced when only one action was legal."""
    forced = len(legal_actions_of(decision.view)) == 1
    judgement = None if forced else judge(decision.view, decision.played, budget, seed_for(seed, decision.step))
    return MoveAnalysis(decision.step, decision.turn, decision.seat, decision.played.token, forced, judgement)


def _analyse_star(args: tuple[Decision, Budget, int]) -> MoveAnalysis:
    return analyse_decision(*args)


def analyse(
    record: GameRecord,
    budget: Budget = DEFAULT_BUDGET,
    seed: int = 0,
    jobs: int = 1,
    on_move: Callable[[MoveAnalysis], None] | None = None,
) -> list[MoveAnalysis]:
    """Analyse every action of ``record``, in step order; ``on_move`` hears each as it finishes.

    ``jobs`` > 1 searches that many decisions at once in worker processes (same results)."""
    tasks = [(d, budget, seed) for d in decisions(record)]
    results: list[MoveAnalysis] = []
    for move in _run(tasks, jobs):
        results.append(move)
        if on_move is not None:
            on_move(move)
    results.sort(key=lambda m: m.step)
    return results


def _run(tasks: list[tuple[Decision, Budget, int]], jobs: int) -> Iterator[MoveAnalysis]:
    if jobs <= 1 or len(tasks) < 2:
        yield from map(_analyse_star, tasks)
        return
    with ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(_analyse_star, tasks, chunksize=4)


def summary(moves: list[MoveAnalysis], players: list[str] | None = None) -> dict[str, dict[str, Any]]:
    """Per seat (``"0"``, ``"1"``): decisions, counts per class, mean loss over searched decisions."""
    out: dict[str, dict[str, Any]] = {}
    for seat in (0, 1):
        mine = [m for m in moves if m.seat == seat]
        losses = [m.loss for m in mine if m.loss is not None]
        entry: dict[str, Any] = {"actions": len(mine), "forced": sum(m.forced for m in mine)}
        if players is not None and seat < len(players):
            entry["player"] = players[seat]
        for name in CLASSES:
            entry[name] = sum(m.cls == name for m in mine)
        entry["mean_loss"] = round(sum(losses) / len(losses), 4) if losses else 0.0
        out[str(seat)] = entry
    return out
