"""A Kahuna position evaluator shared by the greedy agent and the ISMCTS leaves.

The score is in *points* from one seat's side: points already scored, stones on the board
(weighted by island degree, discounted when one removal by the opponent would cost them),
bridges one short of a claim, bridges the mover's cards can strike, cards in hand, and the
leader's bonus at the end of the round, growing as the round's cards run out.

What each seat may do next depends on its cards. :class:`CardBelief` says, per seat, how likely
it holds a card of each island and can pay for removing a bridge on each line: exactly from a
hand (inside a determinized state) or from a player view's card counting (for the opponent).
The weights are :class:`Weights`; :func:`load_weights` reads those a spec names (tuned by
``kahuna tune``, :mod:`kahuna.ai.training.tuning`).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from kahuna.ai.agents import WEIGHTS_DIR
from kahuna.rules import NOBODY, GameState, Phase, PlayerView
from kahuna.rules.board import (
    BRIDGES_PER_PLAYER,
    CONTROL,
    DEGREE,
    ISLAND_LINES,
    LINES,
    NEIGHBOURS,
    NUM_CARDS,
    NUM_ISLANDS,
    NUM_LINES,
)

WIN_SCORE = 100.0
"""The score of a finished game for its winner (minus for the loser, 0 for a draw)."""

STONE = 1.0
DEGREE_BONUS = 0.06
FRAGILE_LOSS = 0.45
CLAIM_THREAT = 0.45
PROGRESS = 0.12
BRIDGE = 0.07
STRIKE = 0.08
CARD = 0.1
ROUND_POINTS = (1.0, 2.0, 3.0)
SCALE = 1.5
"""Score difference that moves the win probability from 50 % to about 73 %."""


@dataclass(frozen=True, slots=True)
class Weights:
    """The heuristic's tunable weights (``kahuna tune`` searches them; the compiled ISMCTS is
    handed them too, in this field order, so a tuned agent plays alike in both cores).

    ``scale`` only squashes the score into a win probability (:func:`win_probability`), which is
    what the ISMCTS leaves read; the greedy planner compares raw scores and ignores it.
    """

    stone: float = STONE
    degree_bonus: float = DEGREE_BONUS
    fragile_loss: float = FRAGILE_LOSS
    claim_threat: float = CLAIM_THREAT
    progress: float = PROGRESS
    bridge: float = BRIDGE
    strike: float = STRIKE
    card: float = CARD
    scale: float = SCALE

    def __post_init__(self) -> None:
        if not all(math.isfinite(getattr(self, name)) for name in self.__slots__) or not self.scale > 0:
            raise ValueError("heuristic weights must be finite and the scale positive")

    @classmethod
    def from_json(cls, data: dict[str, float]) -> Weights:
        """From a ``{"name": value}`` object (names as the fields; missing ones keep the default)."""
        unknown = set(data) - set(cls.__slots__)
        if unknown:
            raise ValueError(f"unknown heuristic weights: {', '.join(sorted(unknown))}")
        return cls(**{k: float(v) for k, v in data.items()})

    def to_json(self) -> dict[str, float]:
        return {name: getattr(self, name) for name in self.__slots__}


DEFAULT_WEIGHTS = Weights()


def load_weights(name: str) -> Weights:
    """The weights a spec names: ``""`` the defaults, a shipped name, or a path to a JSON file."""
    if not name:
        return DEFAULT_WEIGHTS
    shipped = WEIGHTS_DIR / f"{name}.json"
    path = shipped if shipped.is_file() else Path(name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"cannot read heuristic weights {name!r}: {exc}") from None
    return Weights.from_json(data.get("weights", data))


@dataclass(frozen=True, slots=True)
class CardBelief:
    """How likely one seat holds a card of each island and can pay for a removal on each line."""

    has: tuple[float, ...]
    removal: tuple[float, ...]

    @classmethod
    def exact(cls, hand: list[int] | tuple[int, ...]) -> CardBelief:
        """From a known hand (12 counts)."""
        has = tuple(1.0 if n else 0.0 for n in hand)
        removal = tuple(1.0 if hand[a] + hand[b] >= 2 else 0.0 for a, b in LINES)
        return cls(has, removal)

    @classmethod
    def of_opponent(cls, view: PlayerView) -> CardBelief:
        """The viewer's belief about the other seat's hand, from card counting alone.

        The other seat holds its publicly known cards plus ``hidden`` cards drawn without
        replacement from the cards the viewer has not located; hypergeometric odds follow.
        """
        assert view.seat is not None
        other = 1 - view.seat
        known = view.known[other]
        unseen = view.unseen()
        pool = sum(unseen)
        hidden = view.hand_sizes[other] - sum(known)
        has = tuple(1.0 if known[c] else _at_least(1, unseen[c], pool, hidden) for c in range(NUM_ISLANDS))
        removal = tuple(
            _at_least(max(0, 2 - known[a] - known[b]), unseen[a] + unseen[b], pool, hidden) for a, b in LINES
        )
        return cls(has, removal)


def _at_least(k: int, good: int, pool: int, draws: int) -> float:
    """P(at least ``k`` of ``draws`` cards drawn from ``pool`` are among ``good`` marked ones)."""
    if k <= 0:
        return 1.0
    if draws <= 0 or good <= 0 or pool <= 0:
        return 0.0
    draws = min(draws, pool)
    total = math.comb(pool, draws)
    below = sum(math.comb(good, i) * math.comb(pool - good, draws - i) for i in range(min(k, good + 1)))
    return max(0.0, 1.0 - below / total)


def score(
    state: GameState, seat: int, beliefs: tuple[CardBelief, CardBelief], weights: Weights = DEFAULT_WEIGHTS
) -> float:
    """How good ``state`` is for ``seat``, in points (see the module docstring)."""
    if state.phase is Phase.OVER:
        assert state.outcome is not None
        winner = state.outcome.winner
        return 0.0 if winner is None else (WIN_SCORE if winner == seat else -WIN_SCORE)
    value = _side(state, seat, beliefs, weights) - _side(state, 1 - seat, beliefs, weights)
    return value + sum(state.points[seat]) - sum(state.points[1 - seat]) + _round_end(state, seat)


def win_probability(
    state: GameState, seat: int, beliefs: tuple[CardBelief, CardBelief], weights: Weights = DEFAULT_WEIGHTS
) -> float:
    """The score squashed to [0, 1] by ``weights.scale``: how MCTS reads a position it stops
    playing out."""
    if state.phase is Phase.OVER:
        assert state.outcome is not None
        winner = state.outcome.winner
        return 0.5 if winner is None else float(winner == seat)
    try:
        return 1.0 / (1.0 + math.exp(-score(state, seat, beliefs, weights) / weights.scale))
    except OverflowError:  # a tiny scale: C's exp gives infinity there, hence 0, and so do we
        return 0.0


def _round_end(state: GameState, seat: int) -> float:
    """The stone leader's expected bonus, weighted by how close the round is to its end."""
    lead = state.stones_on_board(seat) - state.stones_on_board(1 - seat)
    if not lead:
        return 0.0
    left = len(state.deck) + sum(state.display)
    closeness = 1.0 - left / NUM_CARDS
    if state.round == 3:
        return 0.0  # the final scoring is the stone difference itself, already counted
    return (1.0 if lead > 0 else -1.0) * ROUND_POINTS[state.round - 1] * closeness * closeness


def _side(state: GameState, p: int, beliefs: tuple[CardBelief, CardBelief], w: Weights) -> float:
    """One seat's share of the score: its stones, threats, bridges and cards."""
    o = 1 - p
    mine, theirs = beliefs[p], beliefs[o]
    stones, bridges = state.stones, state.bridges
    counts = state.counts[p]
    # The side to move can react before the opponent strikes, the other side cannot.
    exposure = w.fragile_loss * (0.5 if state.to_move == p else 1.0)
    can_build = state.supply_bridges[p] > 0
    value = 0.0
    for island in range(NUM_ISLANDS):
        owner = stones[island]
        need = CONTROL[island]
        have = counts[island]
        if owner == p:
            stone = w.stone + w.degree_bonus * DEGREE[island]
            if have == need:
                risk = 0.0
                for line in ISLAND_LINES[island]:
                    if bridges[line] == p and theirs.removal[line] > risk:
                        risk = theirs.removal[line]
                stone *= 1.0 - exposure * risk
            value += stone
        elif owner == NOBODY and have:
            value += w.progress * have / need
            if have == need - 1 and can_build and state.supply_stones[p]:
                chance = 0.0
                for other, line in NEIGHBOURS[island]:
                    if bridges[line] == NOBODY:
                        chance = max(chance, mine.has[island], mine.has[other])
                if chance:
                    returned = state.counts[o][island]
                    value += w.claim_threat * chance * (1.0 + 0.15 * returned) * (1.0 + w.degree_bonus * DEGREE[island])
    on_board = BRIDGES_PER_PLAYER - state.supply_bridges[p]
    value += w.bridge * on_board + w.card * state.hand_size[p]
    strike = mine.removal
    for line in range(NUM_LINES):
        if bridges[line] == o and strike[line]:
            value += w.strike * strike[line]
    return value
