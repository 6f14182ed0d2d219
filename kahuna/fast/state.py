""":class:`FastState`: a game on the compiled core, with the referee's interface where it matters.

It plays the same game as :class:`~kahuna.rules.GameState` (same deal, same reshuffles from the
same queue or RNG, same legal actions in the same order, same state document) at C speed. Words
stay with the referee: an illegal action is explained by asking the referee about the same
position, so error messages are the referee's own. Events, views and records stay Python-only:
players, the server and the UI use the referee. A record replays on it through the referee's own
loop: ``record.replay_with(FastState.start_of)``.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from kahuna.fast import core_module
from kahuna.fast.layout import PHASES, REASONS, fields_of, outcome_of, referee_state, state_json
from kahuna.rules import (
    ALL_ACTIONS,
    Action,
    GameRecord,
    GameState,
    IllegalActionError,
    Outcome,
    Phase,
    Reason,
    RecordError,
    Termination,
    Variant,
    parse,
)
from kahuna.rules.board import LETTERS, NUM_ISLANDS, cards_to_str


def _order_cards(text: str, what: str) -> list[int]:
    bad = [ch for ch in text if ch not in LETTERS]
    if bad:
        raise RecordError(f"{what} {text!r} holds {bad[0]!r}, which is not an island letter")
    return [LETTERS.index(ch) for ch in text]


class FastState:
    """A whole game held by the compiled core (see the module docstring)."""

    __slots__ = ("_s", "_termination", "reshuffle_queue", "reshuffles", "rng", "variant")

    def __init__(self, core_state: Any, variant: Variant, reshuffles: list[str] | tuple[str, ...] = ()) -> None:
        self._s = core_state
        self.variant = variant
        self.reshuffle_queue = list(reshuffles)
        self.reshuffles: list[str] = []
        self.rng: random.Random | None = None
        self._termination: Termination | None = None

    # ----------------------------------------------------------------- creation

    @classmethod
    def from_state(cls, state: GameState) -> FastState:
        """The same position as a referee state (its RNG and reshuffle queue shared as copies)."""
        fast = cls(core_module().State(fields_of(state)), state.variant, state.reshuffle_queue)
        fast.rng = state.rng
        fast._termination = state.termination
        return fast

    @classmethod
    def from_deal(
        cls, deal: str, variant: Variant | None = None, reshuffles: list[str] | tuple[str, ...] = ()
    ) -> FastState:
        """The start of a game with a given deal and reshuffle orders (checked by the referee)."""
        return cls.from_state(GameState.from_deal(deal, variant, reshuffles))

    @classmethod
    def start_of(cls, record: GameRecord) -> FastState:
        """The state before a record's first action, its reshuffles queued (``GameRecord.start``)."""
        return cls.from_deal(record.deal, record.variant, record.reshuffles)

    @classmethod
    def new(cls, rng: random.Random, variant: Variant | None = None) -> FastState:
        """A fresh game dealt with ``rng`` exactly as ``GameState.new(rng)`` deals it."""
        return cls.from_state(GameState.new(rng, variant))

    def copy(self) -> FastState:
        twin = FastState(self._s.copy(), self.variant, self.reshuffle_queue)
        twin.reshuffles = self.reshuffles[:]
        twin.rng = self.rng
        twin._termination = self._termination
        return twin

    # ----------------------------------------------------------------- queries

    @property
    def phase(self) -> Phase:
        return Phase(PHASES[self._s.phase])

    @property
    def is_over(self) -> bool:
        return bool(self._s.phase == 2)

    @property
    def to_move(self) -> int:
        return int(self._s.to_move)

    @property
    def round(self) -> int:
        return int(self._s.round)

    @property
    def outcome(self) -> Outcome | None:
        outcome = outcome_of(self.fields())
        if outcome is None or self._termination is None:
            return outcome
        return replace(outcome, seat=self._termination.seat)

    @property
    def termination(self) -> Termination | None:
        """How the game ended off the board, or ``None`` (``GameState.termination``)."""
        return self._termination

    def fields(self) -> list[int]:
        """The flat fields (kahuna.fast.layout), equal to ``fields_of`` of the referee's state."""
        fields: list[int] = self._s.fields()
        return fields

    def legal_indices(self) -> bytes:
        """The legal actions' indices in token order (one byte each)."""
        legal: bytes = self._s.legal()
        return legal

    def legal_actions(self) -> list[Action]:
        """Every legal action, sorted by token, as ``GameState.legal_actions``."""
        return [ALL_ACTIONS[i] for i in self._s.legal()]

    def to_json(self) -> dict[str, Any]:
        return state_json(self.fields())

    def referee_state(self) -> GameState:
        """The position as a referee state, to ask the referee why an action is refused (no
        history and no record: the compiled core keeps neither)."""
        state = referee_state(self.fields(), self.variant)
        state.outcome = self.outcome
        return state

    def heuristic(self) -> float:
        """Seat 0's win probability by the search heuristic with both hands known (exact beliefs)."""
        value: float = self._s.heuristic()
        return value

    def playout(self, rng: random.Random) -> int | None:
        """The winner (``None``: a draw) of a uniformly random playout of a copy of this position,
        reshuffles included, all drawn from ``rng``: the game and the draws of ``rng`` are those of
        ``while not s.is_over: s.apply(s.legal_actions()[rng.randrange(...)])`` with ``s.rng`` = ``rng``,
        played in C.

        Future reshuffles come from ``rng``, so the reshuffle queue must be empty.
        """
        if self.reshuffle_queue:
            raise ValueError("a playout draws its reshuffles from the RNG: the reshuffle queue must be empty")
        version, words, gauss = rng.getstate()
        winner, words = self._s.playout(words)
        rng.setstate((version, words, gauss))
        return None if winner < 0 else int(winner)

    # ----------------------------------------------------------------- applying

    def apply(self, action: Action | str) -> None:
        """Apply one action for the seat to move; the referee's exceptions, state unchanged on error."""
        if isinstance(action, str):
            action = parse(action)
        index = action.index
        if index not in self._s.legal():
            reason = self.referee_state().why_illegal(action)
            if reason is None:
                raise RuntimeError(f"the compiled core refuses {action.token}, which the referee allows")
            raise IllegalActionError(reason)
        if self._s.needs_reshuffle(index):
            order = self._next_order()
            self._s.apply(index, order)
            if self.reshuffle_queue:
                self.reshuffle_queue.pop(0)
            self.reshuffles.append("".join(LETTERS[c] for c in order))
        else:
            self._s.apply(index)

    def terminate(self, termination: Termination) -> None:
        """End the game off the board (resignation, timeout, abort) as ``GameState.terminate``
        does: the board, cards and points stay; ``IllegalActionError`` (code ``game_over``) if the
        game is already over."""
        if self.is_over:
            raise IllegalActionError(Reason.of("game_over"))
        winner = termination.winner
        self._s.terminate(-1 if winner is None else winner, REASONS.index(termination.reason))
        self._termination = termination

    def _next_order(self) -> list[int]:
        """The coming reshuffle order, from the queue (checked) or the RNG, as the referee draws it."""
        pile: list[int] = self._s.pile()
        coming = self.round + 1
        if self.reshuffle_queue:
            text = self.reshuffle_queue[0]
            order = _order_cards(text, f"reshuffle for round {coming}")
            counts = [0] * NUM_ISLANDS
            for c in order:
                counts[c] += 1
            if counts != pile:
                pile_text = cards_to_str(pile)
                raise RecordError(
                    f"reshuffle for round {coming} {text!r} is not an ordering of the discard pile {pile_text!r}"
                )
            return order
        if self.rng is None:
            raise RecordError(f"a reshuffle order is needed for round {coming}")
        order = [c for c in range(NUM_ISLANDS) for _ in range(pile[c])]
        self.rng.shuffle(order)
        return order


__all__ = ["FastState"]
