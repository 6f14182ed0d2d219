"""The win-probability graph for spectators and replays, from the public view only.

One point per turn: at the start of each turn we take the *spectator's* view (no hand, no
face-down discard, no deck order) and search it with the analysis's ISMCTS, every hidden card of
both seats sampled; the point is the estimated chance that Black (seat 0) wins, from the root's
mean reward for the seat to move. A last point gives the result (1, 0 or ½). Because no private
card enters the search, the graph reveals nothing a spectator could not see — which the
per-move analysis (:mod:`kahuna.ai.review.analysis`, from each mover's own hand) cannot promise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kahuna.ai.agents.ismcts import search_tree
from kahuna.ai.review.analysis import Budget, seed_for
from kahuna.rules import GameRecord, GameState, PlayerView, parse, view_of

GRAPH_BUDGET = Budget(iterations=400)
"""Iterations per turn by default: the graph is a trend, not a verdict on single moves."""


@dataclass(frozen=True)
class GraphPoint:
    """Black's estimated chance to win at the start of ``turn`` (before action ``step``)."""

    turn: int
    step: int
    black: float

    def to_json(self) -> dict[str, Any]:
        return {"turn": self.turn, "step": self.step, "black": round(self.black, 4)}


def public_estimate(view: PlayerView, budget: Budget, seed: int) -> float:
    """Black's chance to win from a spectator's view, by searching it."""
    assert view.seat is None and view.to_move is not None
    root, _ = search_tree(view, budget.config(), seed)
    visits = sum(child.visits for child in root.children.values())
    reward = sum(child.reward for child in root.children.values())
    mover = reward / visits if visits else 0.5
    return mover if view.to_move == 0 else 1.0 - mover


def turn_starts(record: GameRecord) -> tuple[list[tuple[int, int, PlayerView]], GameState]:
    """(turn, step, spectator view) before the first action of every turn, and the final state."""
    out: list[tuple[int, int, PlayerView]] = []
    fresh = True

    def before(step: int, state: GameState) -> None:
        nonlocal fresh
        if fresh:
            out.append((len(out), step, view_of(state, None)))
        fresh = parse(record.actions[step]).ends_turn

    final = record.replay(before_each=before)
    return out, final


def win_graph(record: GameRecord, budget: Budget = GRAPH_BUDGET, seed: int = 0) -> list[GraphPoint]:
    """Black's estimated chance to win at the start of every turn, then the result if it is over."""
    starts, final = turn_starts(record)
    points = [
        GraphPoint(turn, step, public_estimate(view, budget, seed_for(seed, step))) for turn, step, view in starts
    ]
    if final.outcome is not None:
        winner = final.outcome.winner
        black = 0.5 if winner is None else float(winner == 0)
        points.append(GraphPoint(len(points), len(record.actions), black))
    return points
