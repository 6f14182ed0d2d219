"""The greedy agent: plans the rest of its own turn with a beam search and the heuristic.

It samples one world consistent with its view (only the deck order and the opponent's hidden
cards are invented, and the score never reads them: the opponent's cards enter through card
counting), then tries its card plays in sequence, keeping the ``beam`` best positions after each
play, and closes every kept position with each way of ending the turn (take a display card,
draw blind, decline, or ``end`` after round 3). The first action of the best closed plan is
played; the plan is made afresh at each decision, so it reacts to what a blind draw brought.

With ``noise`` > 0 it plays, with that probability, a random action instead (never a needless
face-down discard): a weaker, more human opponent.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from kahuna.ai.agents.heuristic import DEFAULT_WEIGHTS, CardBelief, Weights, score
from kahuna.rules import Action, GameState, Kind, PlayerView, determinize, legal_actions_of
from kahuna.rules.board import HAND_LIMIT

Evaluate = Callable[[GameState], float]


class GreedyAgent:
    """One turn of look-ahead: claims, cascades, strikes, threats and draw timing via the score."""

    def __init__(
        self,
        beam: int = 4,
        depth: int = 5,
        noise: float = 0.0,
        name: str = "greedy",
        weights: Weights = DEFAULT_WEIGHTS,
    ) -> None:
        """``beam``: positions kept after each play; ``depth``: further plays searched after the first;
        ``weights``: the heuristic's weights (tuned ones from ``kahuna tune``)."""
        self.weights = weights
        self.beam = beam
        self.depth = depth
        self.noise = noise
        self.name = name

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        legal = legal_actions_of(view)
        if len(legal) == 1:
            return legal[0]
        assert view.seat is not None
        seat = view.seat
        if self.noise and rng.random() < self.noise:
            full = view.hand_sizes[seat] >= HAND_LIMIT
            sensible = [a for a in legal if a.kind is not Kind.DISCARD or full] or legal
            return sensible[rng.randrange(len(sensible))]
        theirs = CardBelief.of_opponent(view)
        weights = self.weights

        def evaluate(state: GameState) -> float:
            mine = CardBelief.exact(state.hands[seat])
            return score(state, seat, (mine, theirs) if seat == 0 else (theirs, mine), weights)

        return plan_turn(determinize(view, rng), legal, evaluate, self.beam, self.depth)


def card_plays(state: GameState, legal: list[Action]) -> list[Action]:
    """The actions that keep the turn going and are worth searching.

    A face-down discard only matters to make room for a draw, so it is searched with a full hand.
    """
    full = state.hand_size[state.to_move] >= HAND_LIMIT
    return [a for a in legal if not a.ends_turn and (a.kind is not Kind.DISCARD or full)]


def plan_turn(state: GameState, legal: list[Action], evaluate: Evaluate, beam: int, depth: int) -> Action:
    """The first action of the best plan for the rest of this turn (see the module docstring)."""
    seat = state.to_move
    best: dict[int, float] = {}
    """Best closed value reached so far through each first action (by index)."""

    def note(first: Action, value: float) -> None:
        if value > best.get(first.index, -float("inf")):
            best[first.index] = value

    frontier: list[tuple[float, GameState, Action]] = []
    for action in legal:
        child = state.copy()
        child.apply_unchecked(action)
        if action.ends_turn or child.to_move != seat or child.is_over:
            note(action, evaluate(child))
        else:
            frontier.append((evaluate(child), child, action))
    for level in range(depth + 1):
        frontier.sort(key=lambda item: -item[0])
        frontier = frontier[:beam]
        for _, position, first in frontier:
            note(first, _close(position, evaluate))
        if level == depth:
            break
        grown: list[tuple[float, GameState, Action]] = []
        for _, position, first in frontier:
            for action in card_plays(position, position.legal_actions()):
                child = position.copy()
                child.apply_unchecked(action)
                if child.is_over:
                    note(first, evaluate(child))
                else:
                    grown.append((evaluate(child), child, first))
        if not grown:
            break
        frontier = grown
    by_index = {a.index: a for a in legal}
    return by_index[max(best, key=lambda i: (best[i], -i))]


def _close(state: GameState, evaluate: Evaluate) -> float:
    """The best value of ending the turn from ``state`` (discarding first when that is the only way)."""
    legal = state.legal_actions()
    endings = [a for a in legal if a.ends_turn]
    if not endings:
        values = []
        for discard in (a for a in legal if a.kind is Kind.DISCARD):
            child = state.copy()
            child.apply_unchecked(discard)
            values.append(_close(child, evaluate))
        return max(values, default=-float("inf"))
    value = -float("inf")
    for action in endings:
        child = state.copy()
        child.apply_unchecked(action)
        value = max(value, evaluate(child))
    return value
