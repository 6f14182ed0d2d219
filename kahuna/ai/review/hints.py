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
from typing import Any

from kahuna.ai.registry import make_agent
from kahuna.narrate import join_words
from kahuna.rules import Action, Kind, PlayerView, determinize
from kahuna.rules.board import LETTERS, LINE_NAMES, LINES, NAMES, SEAT_NAMES
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


Part = tuple[str, dict[str, str | int | list[str]]]
"""One thing a move does: a code and its parameters (island letters, line names, a count), which a
client words in its language (the browser's five: ``kahuna/web/js/hintbutton.js``)."""


@dataclass(frozen=True)
class Hint:
    """The suggested action, what it does (coded parts) and the same in one English line."""

    action: Action
    why: str
    parts: tuple[Part, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {
            "action": self.action.token,
            "why": self.why,
            "reasons": [{"code": code, **params} for code, params in self.parts],
        }


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
    parts = reason_parts(action, events, view.seat)
    return Hint(action, english(action, parts, view.seat), tuple(parts))


def _count(n: int, noun: str) -> str:
    word = NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else str(n)
    return f"{word} {noun}{'' if n == 1 else 's'}"


def reason(action: Action, events: list[Event], seat: int) -> str:
    """One English line for what ``action`` did for ``seat``, from the view-determined part of ``events``."""
    return english(action, reason_parts(action, events, seat), seat)


def reason_parts(action: Action, events: list[Event], seat: int) -> list[Part]:
    """What ``action`` did for ``seat``, as coded parts, from the view-determined part of ``events``
    (the seat whose bridges or stones suffer is always the other one: ``1 - seat``)."""
    parts: list[Part] = []
    claimed = [LETTERS[e.island] for e in events if isinstance(e, IslandClaimed) and e.seat == seat]
    returned = sum(1 for e in events if isinstance(e, BridgeReturned) and e.owner != seat)
    lost = [LETTERS[e.island] for e in events if isinstance(e, StoneLost) and e.owner != seat]
    own_lost = [LETTERS[e.island] for e in events if isinstance(e, StoneLost) and e.owner == seat]
    for e in events:
        if isinstance(e, BridgeRemoved) and e.seat == seat:
            parts.append(("removes", {"line": LINE_NAMES[e.line]}))
        elif isinstance(e, BridgeBuilt) and e.seat == seat and not claimed:
            parts.append(("builds", {"line": _line_from(e.line, e.card)}))
    if claimed:
        parts.append(("claims", {"islands": claimed}))
    if returned:
        parts.append(("sends_home", {"count": returned}))
    if lost:
        parts.append(("breaks", {"islands": lost}))
    if own_lost:
        parts.append(("gives_up", {"islands": own_lost}))
    for e in events:
        if isinstance(e, CardTaken) and e.from_display:
            parts.append(("takes", {"card": LETTERS[e.card]}) if e.card is not None else ("takes_card", {}))
        elif isinstance(e, CardTaken):
            parts.append(("draws", {}))
        elif isinstance(e, CardDiscarded) and e.card is not None:
            parts.append(("discards", {"card": LETTERS[e.card]}))
        elif isinstance(e, Declined):
            parts.append(("declines", {}))
        elif isinstance(e, TurnEnded):
            parts.append(("ends_turn", {}))
        elif isinstance(e, RoundScored) and e.final:
            parts.append(("final_scoring", {}))
        elif isinstance(e, GameOver) and e.winner == seat:
            parts.append(("wins", {}))
    if action.kind is Kind.PASS and not parts:
        parts.append(("passes", {}))
    return parts


def _line_from(line: int, first: int | None) -> str:
    """A line's name (two island letters), ``first`` leading."""
    a, b = LINES[line]
    if first == b:
        a, b = b, a
    return LETTERS[a] + LETTERS[b]


def english(action: Action, parts: list[Part], seat: int) -> str:
    """``E>J: builds ELAI–JOJO``: the parts in English (the API's ``why``, the terminal's hint)."""
    other = SEAT_NAMES[1 - seat]

    def name(letter: object) -> str:
        return NAMES[LETTERS.index(str(letter))]

    def line(text: object) -> str:
        return f"{name(str(text)[0])}–{name(str(text)[1])}"

    def islands(value: object) -> str:
        assert isinstance(value, list)
        return join_words([name(letter) for letter in value])

    def phrase(code: str, p: dict[str, Any]) -> str:
        fixed = {
            "takes_card": "takes a card", "draws": "draws from the deck", "declines": "declines to draw",
            "ends_turn": "ends the turn", "final_scoring": "goes to the final scoring", "wins": "wins the game",
            "passes": "passes",
        }  # fmt: skip
        if code in fixed:
            return fixed[code]
        if code == "removes":
            return f"removes {other}'s bridge {line(p['line'])}"
        if code == "builds":
            return f"builds {line(p['line'])}"
        if code == "claims":
            return f"claims {islands(p['islands'])}"
        if code == "sends_home":
            return f"sends {_count(int(p['count']), f'{other} bridge')} home"
        if code == "breaks":
            return f"breaks {other}'s stone on {islands(p['islands'])}"
        if code == "gives_up":
            return f"gives up {islands(p['islands'])}"
        if code == "takes":
            return f"takes {name(p['card'])} from the display"
        assert code == "discards", code
        return f"discards {name(p['card'])} face down"

    text = join_words([phrase(code, params) for code, params in parts]) if parts else action.token
    return f"{action.token}: {text}"
