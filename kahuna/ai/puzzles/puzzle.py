"""A puzzle and the referee's check of an attempt at it.

A puzzle is a moment of a real game, kept whole (:attr:`Puzzle.state`, the complete state with
the hidden cards), and the seat that is to move there. The solver sees only that seat's view
(:meth:`Puzzle.view`); the task is its best *turn*: the actions up to the draw, the decline or the
``end`` that closes it. :attr:`Puzzle.solutions` lists every accepted turn (the best first); the
order of a turn's card plays matters only where it changes the position, so an attempt is judged
by the positions it reaches, not by its tokens (:func:`check`).

The check replays the attempt through the referee on a copy of the state: an illegal action is
refused with the referee's reason (and the attempt counts as nothing); a legal action that leaves
every accepted turn is wrong; a turn-closing action that completes an accepted turn is right;
anything shorter is still open (right so far).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass, field
from typing import Any, Literal

from kahuna.rules import GameState, NotationError, PlayerView, parse, view_of

Status = Literal["correct", "wrong", "open", "refused"]


@dataclass(frozen=True)
class Puzzle:
    """One proved puzzle; JSON: :meth:`to_json` (one line of the shipped set)."""

    puzzle_id: str
    state: dict[str, Any]
    """The complete state (:meth:`GameState.to_json` with ``complete=True``): never sent to a client."""
    seat: int
    solutions: tuple[tuple[str, ...], ...]
    """Every accepted turn as its tokens; the first is the best line found."""
    themes: tuple[str, ...]
    rating: int
    """The starting rating (:mod:`kahuna.ai.puzzles.rate`)."""
    solves: dict[str, int] = field(default_factory=dict)
    """How many of its :attr:`tries` each AI level solved when it was rated."""
    tries: int = 0
    """Tries per level in the rating run (:mod:`kahuna.ai.puzzles.rate`)."""
    proof: dict[str, Any] = field(default_factory=dict)
    """The proof's figures: worlds, agreement, the best value and the runner-up's."""
    source: dict[str, Any] = field(default_factory=dict)
    """Where it was cut: the generator's seed, game and step."""

    def game_state(self) -> GameState:
        """A fresh copy of the puzzle's position (the referee's state). A turn that ends a round
        reshuffles the discard pile: its order is drawn from the puzzle's id, the same every time."""
        state = GameState.from_json(self.state)
        state.rng = random.Random(f"kahuna-puzzle:{self.puzzle_id}")
        return state

    def view(self) -> PlayerView:
        """What the solver sees: the seat's own view, never the opponent's hand or the deck."""
        return view_of(self.game_state(), self.seat)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "puzzle",
            "puzzle_id": self.puzzle_id,
            "seat": self.seat,
            "solutions": [list(s) for s in self.solutions],
            "themes": list(self.themes),
            "rating": self.rating,
            "solves": self.solves,
            "tries": self.tries,
            "proof": self.proof,
            "source": self.source,
            "state": self.state,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Puzzle:
        return cls(
            puzzle_id=str(data["puzzle_id"]),
            state=dict(data["state"]),
            seat=int(data["seat"]),
            solutions=tuple(tuple(str(t) for t in s) for s in data["solutions"]),
            themes=tuple(str(t) for t in data["themes"]),
            rating=int(data["rating"]),
            solves={str(k): int(v) for k, v in data.get("solves", {}).items()},
            tries=int(data.get("tries", 0)),
            proof=dict(data.get("proof", {})),
            source=dict(data.get("source", {})),
        )


def puzzle_id_of(state: dict[str, Any], seat: int) -> str:
    """A stable id from the position itself: the same moment cut twice is one puzzle."""
    text = json.dumps({"state": state, "seat": seat}, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def fingerprint(state: GameState) -> str:
    """The position, without the order in which it was reached (the history)."""
    data = state.to_json(complete=True)
    data.pop("history", None)
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


@dataclass(frozen=True)
class Verdict:
    """An attempt as the referee and the accepted turns judge it.

    ``status``: ``correct`` (an accepted turn, completed), ``wrong`` (a legal action that leaves
    every accepted turn, at ``step``), ``open`` (right so far, the turn not closed) or ``refused``
    (the action at ``step`` is not legal there; ``reason`` says why; the attempt counts as nothing).
    A refusal's ``reason`` is the referee's (:class:`kahuna.rules.Reason`, as JSON), or
    ``{"code": "malformed", "token"}`` for a token that is no action, or ``{"code": "turn_over"}``
    for actions after the one that closed the turn.
    """

    status: Status
    step: int
    reason: dict[str, str | int] | None = None


def _reached(puzzle: Puzzle) -> list[set[str]]:
    """Per number of actions played, the positions the accepted turns pass through."""
    out: list[set[str]] = []
    for turn in puzzle.solutions:
        state = puzzle.game_state()
        for i, token in enumerate(turn):
            state.apply(token)
            while len(out) <= i:
                out.append(set())
            out[i].add(fingerprint(state))
    return out


def check(puzzle: Puzzle, actions: list[str]) -> Verdict:
    """Judge ``actions`` (tokens, from the puzzle's position) with the referee."""
    state = puzzle.game_state()
    reached = _reached(puzzle)
    for i, token in enumerate(actions):
        try:
            action = parse(token)
        except NotationError:
            return Verdict("refused", i, {"code": "malformed", "token": str(token)[:20]})
        reason = state.why_illegal(action)
        if reason is not None:
            return Verdict("refused", i, reason.to_json())
        state.apply(action)
        if i >= len(reached) or fingerprint(state) not in reached[i]:
            return Verdict("wrong", i)
        if action.ends_turn:
            if i + 1 < len(actions):
                return Verdict("refused", i + 1, {"code": "turn_over"})
            return Verdict("correct", i)
    return Verdict("open", len(actions))
