"""What the referee can tell a seat before it acts: the consequences of each of its legal actions,
and the islands whose control one bridge would change (issue 53, the screen-reader mode).

Both are computed from a :class:`~kahuna.rules.views.PlayerView` alone, on a state determinized
with a fixed seed, so that no hidden card can reach them: an action's consequences keep only the
events that follow from public information and the mover's own hand (a claim, a returned bridge,
a lost stone, the variant's replacing bridge, a scoring, the final turns, the end), never a card
drawn, refilled or reshuffled. Every answer is the referee's own :meth:`GameState.apply`, on
copies: nothing here re-states a rule.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from kahuna.rules.actions import parse
from kahuna.rules.board import ISLAND_LINES, LETTERS, LINE_NAMES, LINES, NUM_ISLANDS
from kahuna.rules.events import (
    BridgeBuilt,
    BridgeReturned,
    Event,
    FinalTurnsBegan,
    GameOver,
    IslandClaimed,
    RoundScored,
    StoneLost,
)
from kahuna.rules.state import NOBODY, GameState, Phase
from kahuna.rules.views import PlayerView, determinize

_FOLLOWS = (IslandClaimed, BridgeReturned, StoneLost, RoundScored, FinalTurnsBegan, GameOver)
"""Events an action causes beyond itself whose content is public (a build's or removal's own
event is the action; a drawn, refilled or reshuffled card is hidden)."""


def _follows(event: Event) -> bool:
    return isinstance(event, _FOLLOWS) or (isinstance(event, BridgeBuilt) and event.card is None)


def _sample(view: PlayerView) -> GameState:
    """A state consistent with ``view``; the fixed seed keeps answers free of chance."""
    return determinize(view, random.Random(0))


def consequences(view: PlayerView) -> dict[str, list[Event]]:
    """For the seat to move (``view.seat``): each legal action's token with the public events it
    would cause beyond itself, for the actions that cause any (a build that claims an island, a
    removal that costs a stone, the draw that ends a round and scores it, the last ``end``).
    Empty for a spectator, a seat not to move, or a finished game."""
    if view.seat is None or view.to_move != view.seat or view.phase is Phase.OVER:
        return {}
    state = _sample(view)
    out: dict[str, list[Event]] = {}
    for action in state.legal_actions():
        kept = [event for event in state.copy().apply_unchecked(action) if _follows(event)]
        if kept:
            out[action.token] = kept
    return out


@dataclass(frozen=True, slots=True)
class Close:
    """An island whose control one bridge changes: ``seat`` would claim it with one bridge more
    (``change`` ``"claim"``), or would lose its stone on it with one bridge fewer (``"lose"``)."""

    island: int
    seat: int
    change: str

    def to_json(self) -> dict[str, Any]:
        return {"island": LETTERS[self.island], "seat": self.seat, "change": self.change}


def _claims_with_one_more(state: GameState, seat: int, island: int) -> bool:
    """Whether one more bridge of ``seat`` on a line of ``island`` it may build on claims it: tried
    as a build by the referee, with a card of the island put in the seat's hand."""
    for line in ISLAND_LINES[island]:
        if state.bridges[line] != NOBODY:
            continue
        a, b = LINES[line]
        trial = state.copy()
        trial.to_move = seat
        trial.hands[seat][island] += 1
        trial.hand_size[seat] += 1
        action = parse(f"{LETTERS[island]}>{LETTERS[b if a == island else a]}")
        if trial.why_illegal(action) is None and any(
            isinstance(e, IslandClaimed) and e.island == island for e in trial.apply_unchecked(action)
        ):
            return True
    return False


def _lost_with_one_fewer(state: GameState, owner: int, island: int) -> bool:
    """Whether ``owner``'s stone on ``island`` goes when one of its bridges there is removed: tried
    as the other seat's removal by the referee, with two cards of the island put in its hand."""
    other = 1 - owner
    for line in ISLAND_LINES[island]:
        if state.bridges[line] != owner:
            continue
        trial = state.copy()
        trial.to_move = other
        trial.hands[other][island] += 2
        trial.hand_size[other] += 2
        action = parse(f"x{LINE_NAMES[line]}:{LETTERS[island] * 2}")
        if trial.why_illegal(action) is not None:
            continue
        return any(isinstance(e, StoneLost) and e.island == island for e in trial.apply_unchecked(action))
    return False


def close_islands(view: PlayerView) -> list[Close]:
    """The islands where one bridge would change who holds them: a free island one of the seats
    would claim with one more bridge, or a stone its owner would lose with one bridge fewer.
    Public: the same for every viewer of the same board."""
    if view.phase is Phase.OVER:
        return []
    state = _sample(view)
    out: list[Close] = []
    for island in range(NUM_ISLANDS):
        owner = state.stones[island]
        if owner == NOBODY:
            out += [Close(island, seat, "claim") for seat in (0, 1) if _claims_with_one_more(state, seat, island)]
        elif _lost_with_one_fewer(state, owner, island):
            out.append(Close(island, owner, "lose"))
    return out
