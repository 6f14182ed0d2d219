"""Hints while learning: the move the AI would play now, and why, in one line.

A hint is computed from the asking seat's own :class:`PlayerView`, like any agent's move, so it
can never reveal a card the player could not see. The move is the choice of an AI level
(``expert`` by default: the strongest measured). The reason is worded from what the move does
on the board — its claims, the opposing bridges it sends home, the stones it breaks, the bridge
it removes — which depends on the view alone. The move is applied in one sampled world to get
those events, but events that depend on the sampled hidden cards (the card a deck draw brings,
the card turning up in the display, a reshuffle) are never worded.

Where hints may be offered (games against the AI and hot-seat, never rated games or games against
another person) is the caller's rule: the server's, see docs/analysis.md.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from kahuna.ai.registry import make_agent
from kahuna.narrate import join_words, line_words
from kahuna.rules import Action, Kind, PlayerView, determinize
from kahuna.rules.board import NAMES, SEAT_NAMES
from kahuna.rules.events import (
    BridgeBuilt,
    BridgeRemoved,
    BridgeReturned,
    CardDiscarded,
    CardTaken,
    Declined,
    Event,
    GameOver,
    IslandClaimed,
    RoundScored,
    StoneLost,
    TurnEnded,
)

HINT_AGENT = "expert"
"""The agent spec whose choice a hint shows."""

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six")


@dataclass(frozen=True)
class Hint:
    """The suggested action and one line saying what it does."""

    action: Action
    why: str

    def to_json(self) -> dict[str, str]:
        return {"action": self.action.token, "why": self.why}


def hint(view: PlayerView, seed: int, agent_spec: str = HINT_AGENT) -> Hint:
    """The move ``agent_spec`` would play from ``view`` (the asking seat's own), and why."""
    if view.seat is None or view.seat != view.to_move:
        raise ValueError("a hint is for the seat to move, from its own view")
    rng = random.Random(seed)
    agent = make_agent(agent_spec)
    try:
        action = agent.choose(view, rng)
    finally:
        close = getattr(agent, "close", None)
        if close is not None:
            close()
    world = determinize(view, random.Random(seed))
    events = world.apply(action)
    return Hint(action, reason(action, events, view.seat))


def _count(n: int, noun: str) -> str:
    word = NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)
    return f"{word} {noun}{'' if n == 1 else 's'}"


def reason(action: Action, events: list[Event], seat: int) -> str:
    """One line for what ``action`` did for ``seat``, from the view-determined part of ``events``."""
    other = SEAT_NAMES[1 - seat]
    parts: list[str] = []
    claimed = [NAMES[e.island] for e in events if isinstance(e, IslandClaimed) and e.seat == seat]
    returned = sum(1 for e in events if isinstance(e, BridgeReturned) and e.owner != seat)
    lost = [NAMES[e.island] for e in events if isinstance(e, StoneLost) and e.owner != seat]
    own_lost = [NAMES[e.island] for e in events if isinstance(e, StoneLost) and e.owner == seat]
    for e in events:
        if isinstance(e, BridgeRemoved) and e.seat == seat:
            parts.append(f"removes {other}'s bridge {line_words(e.line)}")
        elif isinstance(e, BridgeBuilt) and e.seat == seat and not claimed:
            parts.append(f"builds {line_words(e.line, e.card)}")
    if claimed:
        parts.append(f"claims {join_words(claimed)}")
    if returned:
        parts.append(f"sends {_count(returned, f'{other} bridge')} home")
    if lost:
        parts.append(f"breaks {other}'s stone on {join_words(lost)}")
    if own_lost:
        parts.append(f"gives up {join_words(own_lost)}")
    for e in events:
        if isinstance(e, CardTaken) and e.from_display:
            parts.append(f"takes {NAMES[e.card]} from the display" if e.card is not None else "takes a card")
        elif isinstance(e, CardTaken):
            parts.append("draws from the deck")
        elif isinstance(e, CardDiscarded) and e.card is not None:
            parts.append(f"discards {NAMES[e.card]} face down")
        elif isinstance(e, Declined):
            parts.append("declines to draw")
        elif isinstance(e, TurnEnded):
            parts.append("ends the turn")
        elif isinstance(e, RoundScored) and e.final:
            parts.append("goes to the final scoring")
        elif isinstance(e, GameOver) and e.winner == seat:
            parts.append("wins the game")
    if action.kind is Kind.PASS and not parts:
        parts.append("passes")
    text = join_words(parts) if parts else action.token
    return f"{action.token}: {text}"
