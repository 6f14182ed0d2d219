"""What happened when an action was applied, in order: the material of logs and animations.

Events are plain slotted records (not frozen: they are built in the referee's hot path, and
frozen dataclasses cost three times as much to create); treat them as read-only.

Every event knows who acted and can produce the version a given seat (or a spectator, seat
``None``) may see: :meth:`Event.seen_by` hides the card of a deck draw or a face-down discard
from everyone but its owner. Everything else in an event is public.
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from kahuna.rules.board import LETTERS, LINE_NAMES


@dataclass(slots=True)
class Event:
    """Base class; ``type`` names the event in JSON."""

    def seen_by(self, seat: int | None) -> Event:
        """This event as ``seat`` may see it (``None``: a spectator)."""
        return self

    def to_json(self) -> dict[str, Any]:
        """A JSON object: ``{"type": ..., fields...}`` with cards and lines as letters."""
        out: dict[str, Any] = {"type": _TYPE_NAMES[type(self)]}
        for key in _FIELD_NAMES[type(self)]:
            value = getattr(self, key)
            if key in ("card", "island"):
                out[key] = None if value is None else LETTERS[value]
            elif key == "cards":
                out[key] = "".join(LETTERS[c] for c in value)
            elif key == "line":
                out[key] = LINE_NAMES[value]
            else:
                out[key] = list(value) if isinstance(value, tuple) else value
        return out


@dataclass(slots=True)
class BridgeBuilt(Event):
    """``card`` is ``None`` for the bridge a removal puts back at once (variant replace_on_remove)."""

    seat: int
    card: int | None
    line: int


@dataclass(slots=True)
class BridgeRemoved(Event):
    """A 2-card removal: ``seat`` removed ``owner``'s bridge on ``line`` with ``cards``."""

    seat: int
    owner: int
    line: int
    cards: tuple[int, ...]


@dataclass(slots=True)
class IslandClaimed(Event):
    seat: int
    island: int


@dataclass(slots=True)
class BridgeReturned(Event):
    """A bridge sent back to ``owner``'s supply by a claim."""

    owner: int
    line: int


@dataclass(slots=True)
class StoneLost(Event):
    owner: int
    island: int


@dataclass(slots=True)
class CardDiscarded(Event):
    """A face-down discard; ``card`` is ``None`` for everyone but the discarding seat."""

    seat: int
    card: int | None

    def seen_by(self, seat: int | None) -> Event:
        return self if seat == self.seat else replace(self, card=None)


@dataclass(slots=True)
class CardTaken(Event):
    """A card taken from the display (public) or the deck (``card`` hidden from others)."""

    seat: int
    card: int | None
    from_display: bool

    def seen_by(self, seat: int | None) -> Event:
        return self if self.from_display or seat == self.seat else replace(self, card=None)


@dataclass(slots=True)
class DisplayRefilled(Event):
    """The top card of the deck turned face up into the display."""

    card: int


@dataclass(slots=True)
class Declined(Event):
    seat: int


@dataclass(slots=True)
class TurnEnded(Event):
    """A final turn closed with ``end``."""

    seat: int


@dataclass(slots=True)
class RoundScored(Event):
    """Scoring: the stone counts and the points each seat got for ``round``.

    Rounds 1 and 2 are scored when their last card is taken (1 and 2 points to the leader in
    stones); round 3 only once, at the final scoring after the two last turns (``final``: the
    leader scores the difference).
    """

    round: int
    stones: tuple[int, int]
    points: tuple[int, int]
    final: bool = False


@dataclass(slots=True)
class Reshuffled(Event):
    """A new round began: the discard pile became the deck; ``display`` is the new display."""

    round: int
    display: str
    deck_size: int


@dataclass(slots=True)
class FinalTurnsBegan(Event):
    """Round 3 is over; each seat has one more turn, without drawing, ``first`` first."""

    first: int


@dataclass(slots=True)
class GameOver(Event):
    winner: int | None
    reason: str


_TYPE_NAMES: dict[type, str] = {
    BridgeBuilt: "bridge_built",
    BridgeRemoved: "bridge_removed",
    IslandClaimed: "island_claimed",
    BridgeReturned: "bridge_returned",
    StoneLost: "stone_lost",
    CardDiscarded: "card_discarded",
    CardTaken: "card_taken",
    DisplayRefilled: "display_refilled",
    Declined: "declined",
    TurnEnded: "turn_ended",
    RoundScored: "round_scored",
    Reshuffled: "reshuffled",
    FinalTurnsBegan: "final_turns_began",
    GameOver: "game_over",
}

_FIELD_NAMES: dict[type, tuple[str, ...]] = {cls: tuple(f.name for f in fields(cls)) for cls in _TYPE_NAMES}
