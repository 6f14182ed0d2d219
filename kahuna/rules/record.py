"""Game records (``kahuna-record/1``): read, write and replay.

A record is the whole truth of a game: deal + reshuffle orders + actions. Replaying it through
the referee rebuilds the identical state, which is how games are stored, resumed and checked.
:meth:`GameRecord.replay_with` is the one replay loop: the compiled core (``kahuna.fast``) runs it
on its own state, so both cores read records, report errors and end games alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from kahuna.rules.errors import IllegalActionError, KahunaError, NotationError, RecordError
from kahuna.rules.reasons import Reason
from kahuna.rules.state import GameState, Termination, Variant

FORMAT = "kahuna-record/1"


class ReplayError(KahunaError):
    """An action of a record that cannot be applied: names the step (0-based), the token and why.

    ``reason`` is the referee's :class:`~kahuna.rules.reasons.Reason` for an illegal action and
    ``None`` for a token that is not an action at all; ``message`` is the sentence in both cases.
    """

    def __init__(self, step: int, token: object, message: str, reason: Reason | None = None) -> None:
        super().__init__(f"step {step}: {token!r}: {message}")
        self.step = step
        self.token = token
        self.message = message
        self.reason = reason


class Replayable(Protocol):
    """What a replay needs of a game: the referee's ``GameState`` and the compiled core's state.

    ``apply`` raises the referee's exceptions for a token it cannot apply; ``terminate`` ends the
    game off the board (resignation, timeout, abort)."""

    @property
    def is_over(self) -> bool: ...

    def apply(self, action: str) -> object: ...

    def terminate(self, termination: Termination) -> object: ...


S = TypeVar("S", bound=Replayable)


@dataclass
class GameRecord:
    """A game as stored: the deal, the reshuffle orders, the actions and free-form metadata."""

    deal: str
    actions: list[str] = field(default_factory=list)
    """Tokens as read; a non-string entry is reported as an illegal action when replayed."""
    reshuffles: list[str] = field(default_factory=list)
    variant: Variant = field(default_factory=Variant)
    players: list[str] | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    termination: Termination | None = None
    """How the game ended off the board (resign, timeout, aborted), applied after the actions."""

    # ----------------------------------------------------------------- JSON

    @classmethod
    def from_json(cls, data: object) -> GameRecord:
        """From a parsed JSON value; ``RecordError`` saying what is malformed."""
        if not isinstance(data, dict):
            raise RecordError("a record must be a JSON object")
        if data.get("format") != FORMAT:
            raise RecordError(f"'format' must be {FORMAT!r}, not {data.get('format')!r}")
        deal = data.get("deal")
        if not isinstance(deal, str):
            raise RecordError("'deal' must be a string of 24 island letters")
        reshuffles = data.get("reshuffles", [])
        if not isinstance(reshuffles, list) or not all(isinstance(r, str) for r in reshuffles):
            raise RecordError("'reshuffles' must be a list of strings")
        actions = data.get("actions", [])
        if not isinstance(actions, list):
            raise RecordError("'actions' must be a list of tokens")
        players = data.get("players")
        if players is not None and (not isinstance(players, list) or not all(isinstance(p, str) for p in players)):
            raise RecordError("'players' must be a list of names")
        meta = data.get("meta", {})
        if not isinstance(meta, dict):
            raise RecordError("'meta' must be an object")
        variant = Variant.from_json(data.get("variant"))
        GameState.from_deal(deal, variant)  # validates the deal
        ended = data.get("termination")
        termination = None if ended is None else Termination.from_json(ended)
        return cls(deal, list(actions), list(reshuffles), variant, players, dict(meta), termination)

    @classmethod
    def loads(cls, text: str) -> GameRecord:
        """From JSON text; ``RecordError`` for text that is not JSON."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise RecordError(f"not JSON: {exc}") from None
        return cls.from_json(data)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": FORMAT,
            "variant": self.variant.to_json(),
            "deal": self.deal,
            "reshuffles": list(self.reshuffles),
            "actions": list(self.actions),
        }
        if self.players is not None:
            out["players"] = list(self.players)
        if self.meta:
            out["meta"] = dict(self.meta)
        if self.termination is not None:
            out["termination"] = self.termination.to_json()
        return out

    def dumps(self) -> str:
        return json.dumps(self.to_json(), indent=1)

    @classmethod
    def of(cls, state: GameState, players: list[str] | None = None, meta: dict[str, Any] | None = None) -> GameRecord:
        """The record of a game played so far (the state must have been dealt, not sampled)."""
        if state.deal is None:
            raise ValueError("a sampled (determinized) state has no record")
        return cls(
            deal=state.deal,
            actions=[a.token for _, a in state.history],
            reshuffles=list(state.reshuffles),
            variant=state.variant,
            players=players,
            meta=dict(meta or {}),
            termination=state.termination,
        )

    # ----------------------------------------------------------------- replay

    def start(self) -> GameState:
        """The state before the first action, with the record's reshuffles queued."""
        return GameState.from_deal(self.deal, self.variant, self.reshuffles)

    def replay(self, before_each: Callable[[int, GameState], None] | None = None) -> GameState:
        """The record replayed on the referee (see :meth:`replay_with`)."""
        return self.replay_with(GameRecord.start, before_each)

    def replay_with(self, start: Callable[[GameRecord], S], before_each: Callable[[int, S], None] | None = None) -> S:
        """Apply every action to ``start(self)`` and end the game as the record's ``termination``
        says; ``before_each(step, state)`` sees the state before each action.

        ``start`` makes the state before the first action on a core (:meth:`start` for the referee),
        so that every core replays a record through this one loop. Raises ``ReplayError`` for an
        action that cannot be applied and ``RecordError`` for a malformed record (including a
        missing or wrong reshuffle, or a termination of a game the actions already ended).
        """
        state = start(self)
        for step, token in enumerate(self.actions):
            if before_each is not None:
                before_each(step, state)
            if not isinstance(token, str):
                raise ReplayError(step, token, "an action token must be a string")
            try:
                state.apply(str(token))
            except IllegalActionError as exc:
                raise ReplayError(step, token, str(exc), exc.reason) from None
            except NotationError as exc:
                raise ReplayError(step, token, str(exc)) from None
            except RecordError as exc:
                raise RecordError(f"step {step}: {token!r}: {exc}") from None
        if self.termination is not None:
            if state.is_over:
                raise RecordError("'termination' is given, but the actions already ended the game")
            state.terminate(self.termination)
        return state
