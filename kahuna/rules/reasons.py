"""Why an action is refused: stable machine-readable reason codes with parameters.

Every refusal of the referee is a :class:`Reason`: a ``code`` that never changes meaning, the
``params`` that make it precise (an island letter, a line name, numbers) and an English sentence
for logs and the terminal. Clients translate the code and parameters into their own language
(the browser does, in five), so no client needs a copy of any rule to explain a refusal.
The list of codes is :data:`MESSAGES`; ``docs/protocol.md`` documents each one.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

MESSAGES: Final[dict[str, str]] = {
    # The game.
    "game_over": "the game is over",
    # Cards in the hand.
    "no_card": "you hold no {card} card",
    "cards_missing": "you hold {held} {card} card(s); the removal needs {needed}",
    # Bridges and lines.
    "no_bridge_left": "you have no bridge left in your supply",
    "line_occupied": "line {line} is occupied",
    "enemy_stone": "line {line} touches an opposing stone (variant no_build_at_enemy_stone)",
    "line_empty": "line {line} has no bridge to remove",
    "own_bridge": "the bridge on {line} is your own",
    "replace_not_allowed": "removal with replacement ('+') is only allowed with variant replace_on_remove",
    "no_bridge_to_replace": "you have no bridge left in your supply to put on the freed line",
    "replace_at_enemy_stone": "line {line} would touch an opposing stone (variant no_build_at_enemy_stone)",
    # Ending the turn.
    "end_only_in_final": "'end' is only for the two last turns after round 3",
    "no_draw_in_final": "in the last turns after round 3 nobody draws: end the turn with 'end'",
    "declined_twice": "you may not decline: your opponent declined last turn",
    "hand_full": "you hold {limit} cards: discard one before taking a card",
    "deck_empty": "the deck is empty",
    "not_in_display": "no {card} card in the display",
}
"""Every reason code and its English sentence (``{name}`` stands for a parameter)."""


@dataclass(frozen=True, slots=True)
class Reason:
    """One refusal: ``code`` (a key of :data:`MESSAGES`) and its parameters."""

    code: str
    params: tuple[tuple[str, str | int], ...] = ()

    @classmethod
    def of(cls, code: str, **params: str | int) -> Reason:
        """A reason; ``KeyError`` for a code that is not in :data:`MESSAGES` (a programming error)."""
        MESSAGES[code]
        return cls(code, tuple(params.items()))

    @property
    def message(self) -> str:
        """The English sentence, e.g. ``line EJ is occupied``."""
        params = dict(self.params)
        if self.code == "cards_missing":  # "you hold no E card", "... only one E card (the removal needs 2)"
            held = "no" if params["held"] == 0 else "only one"
            needs = "" if params["needed"] == 1 else f" (the removal needs {params['needed']})"
            return f"you hold {held} {params['card']} card{needs}"
        return MESSAGES[self.code].format(**params)

    def to_json(self) -> dict[str, str | int]:
        """``{"code": ..., **params}``, as sent to clients."""
        return {"code": self.code, **dict(self.params)}

    def __str__(self) -> str:
        return self.message


__all__ = ["MESSAGES", "Reason"]
