"""Themes: what a puzzle's solution does, named from the referee's events and positions.

The best turn is played on the puzzle's position by the referee; its events and the position
before and after give the themes (several may apply, in the order of :data:`THEMES`):

* ``cascade``: the turn claims two islands or more, or claims one and costs the opponent a stone;
* ``claim``: the turn claims an island (a majority of its lines);
* ``removal``: the turn removes an opposing bridge (two cards);
* ``capture``: the opponent loses a stone;
* ``scoring``: the turn's draw ends a round and the round is scored with the mover ahead;
* ``before_scoring``: a claim while the deck holds three cards or fewer (a majority just before a
  scoring);
* ``final_turn``: one of the two last turns before the final scoring;
* ``denial``: the turn takes a display card that would let the opponent claim an island at once
  (one build with it, on the position after the turn);
* ``no_bridges``: after the turn, a player has no bridge left in supply;
* ``discard``: the turn discards face down;
* ``quiet``: none of the above (the right card to draw or the right moment to decline).
"""

from __future__ import annotations

from kahuna.rules import Action, GameState, Kind, parse
from kahuna.rules.events import BridgeRemoved, Event, IslandClaimed, RoundScored, StoneLost

THEMES: tuple[str, ...] = (
    "cascade",
    "claim",
    "removal",
    "capture",
    "scoring",
    "before_scoring",
    "final_turn",
    "denial",
    "no_bridges",
    "discard",
    "quiet",
)
"""Every theme, in the order a puzzle lists them."""


def themes_of(state: GameState, turn: tuple[str, ...]) -> tuple[str, ...]:
    """The themes of playing ``turn`` from ``state`` (left unchanged)."""
    seat = state.to_move
    other = 1 - seat
    before = state.copy()
    after = state.copy()
    deck_before = after.deck_size
    events: list[Event] = []
    actions: list[Action] = []
    for token in turn:
        action = parse(token)
        actions.append(action)
        events.extend(after.apply(action))
    claims = sum(isinstance(e, IslandClaimed) and e.seat == seat for e in events)
    lost = sum(isinstance(e, StoneLost) and e.owner == other for e in events)
    found = {
        "cascade": claims >= 2 or (claims >= 1 and lost >= 1),
        "claim": claims >= 1,
        "removal": any(isinstance(e, BridgeRemoved) and e.seat == seat for e in events),
        "capture": lost >= 1,
        "scoring": any(isinstance(e, RoundScored) and _leads(e, seat) for e in events),
        "before_scoring": claims >= 1 and deck_before <= 3,
        "final_turn": before.final_turns > 0 or before.phase == "final",
        "denial": _denies(after, actions, other),
        "no_bridges": min(after.supply_bridges) == 0,
        "discard": any(a.kind is Kind.DISCARD for a in actions),
    }
    out = tuple(name for name in THEMES if found.get(name))
    return out or ("quiet",)


def _leads(event: RoundScored, seat: int) -> bool:
    return event.points[seat] > event.points[1 - seat]


def _denies(after: GameState, actions: list[Action], other: int) -> bool:
    """Whether the display card the turn took would have let ``other`` claim an island at once."""
    taken = [a.card for a in actions if a.kind is Kind.TAKE_DISPLAY]
    if not taken or after.is_over or after.to_move != other:
        return False
    card = taken[0]
    probe = after.copy()
    probe.hands[other][card] += 1
    probe.hand_size[other] += 1
    for action in probe.legal_actions():
        if action.kind is Kind.BUILD and action.card == card:
            trial = probe.copy()
            if any(isinstance(e, IslandClaimed) and e.seat == other for e in trial.apply_unchecked(action)):
                return True
    return False
