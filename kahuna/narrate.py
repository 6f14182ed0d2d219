"""Events in plain English, for people: turn logs, the terminal game, server logs.

The referee reports what an action did as a list of :mod:`~kahuna.rules.events`; this module
turns such a list into one sentence whose clauses follow the table, e.g. ``White builds
ELAI–JOJO and claims JOJO; Black's bridges JOJO–KAHU and JOJO–GOLA return; Black loses KAHU``.
It only words what the events say: pass it events already redacted with ``Event.seen_by`` for
whoever will read the sentence, and a hidden card stays hidden.
"""

from __future__ import annotations

from collections.abc import Sequence

from kahuna.rules.board import LETTERS, LINES, NAMES, SEAT_NAMES
from kahuna.rules.events import (
    BridgeBuilt,
    BridgeRemoved,
    BridgeReturned,
    CardDiscarded,
    CardTaken,
    Declined,
    DisplayRefilled,
    Event,
    FinalTurnsBegan,
    GameOver,
    IslandClaimed,
    Reshuffled,
    RoundScored,
    StoneLost,
    TurnEnded,
)


def line_words(line: int, first: int | None = None) -> str:
    """``ELAI–JOJO``: a line by its island names, ``first`` (an island of the line) leading."""
    a, b = LINES[line]
    if first == b:
        a, b = b, a
    return f"{NAMES[a]}–{NAMES[b]}"


def join_words(items: Sequence[str]) -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def outcome_words(winner: int | None, reason: str, names: Sequence[str] = SEAT_NAMES) -> str:
    """Who won and why, as a sentence without the final full stop."""
    if reason == "aborted":
        return "The game was aborted: nobody wins"
    if reason == "left-draw":
        return "A player left the game: it was called a draw"
    if winner is None:
        return "The game is a draw: equal points, equal final scoring and equal bridges"
    who = names[winner]
    other = names[1 - winner]
    return {
        "resign": f"{other} resigned: {who} wins",
        "timeout": f"{other} ran out of time: {who} wins",
        "left": f"{other} left the game: {who} wins",
        "points": f"{who} wins on points",
        "final-scoring": f"{who} wins: equal points, and {who} scored in the final scoring",
        "bridges": f"{who} wins: equal points and no final score, but more bridges on the board",
        "no-bridges": f"{who} wins at once: {other} has no bridge left on the board",
    }.get(reason, f"{who} wins ({reason})")


class _Sentence:
    """Collects the clauses of one sentence while walking the events in order."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = names
        self.clauses: list[str] = []
        self.done: list[str] = []
        """Finished sentences: scoring, new rounds and the end of the game stand on their own."""
        self.returned: dict[int, list[str]] = {}
        self.lost: dict[int, list[str]] = {}
        self.claim_island: int | None = None
        self.open_build = False
        """The last clause is a build that a claim may still extend with "and claims X"."""

    def add(self, text: str) -> None:
        self.flush_consequences()
        self.clauses.append(text)
        self.open_build = False

    def flush_consequences(self) -> None:
        """Bridges sent back and stones lost, grouped per owner, after the act that caused them."""
        for owner, lines in self.returned.items():
            verb = "returns" if len(lines) == 1 else "return"
            noun = "bridge" if len(lines) == 1 else "bridges"
            self.clauses.append(f"{self.names[owner]}'s {noun} {join_words(lines)} {verb}")
        for owner, islands in self.lost.items():
            self.clauses.append(f"{self.names[owner]} loses {join_words(islands)}")
        if self.returned or self.lost:
            self.open_build = False
        self.returned = {}
        self.lost = {}

    def event(self, ev: Event) -> None:
        names = self.names
        if isinstance(ev, BridgeBuilt):
            if ev.card is None:
                self.add(f"{names[ev.seat]} puts a bridge on {line_words(ev.line)} at once")
            else:
                self.add(f"{names[ev.seat]} builds {line_words(ev.line, ev.card)}")
            self.open_build = True
        elif isinstance(ev, IslandClaimed):
            self.claim_island = ev.island
            if self.open_build and not self.returned and not self.lost:
                self.clauses[-1] += f" and claims {NAMES[ev.island]}"
            else:
                self.add(f"{names[ev.seat]} claims {NAMES[ev.island]}")
        elif isinstance(ev, BridgeReturned):
            self.returned.setdefault(ev.owner, []).append(line_words(ev.line, self.claim_island))
        elif isinstance(ev, StoneLost):
            self.lost.setdefault(ev.owner, []).append(NAMES[ev.island])
        elif isinstance(ev, BridgeRemoved):
            cards = " and ".join(NAMES[c] for c in ev.cards)
            self.add(f"{names[ev.seat]} removes {names[ev.owner]}'s bridge {line_words(ev.line)} with {cards}")
            self.claim_island = None
        elif isinstance(ev, CardDiscarded):
            card = "a card" if ev.card is None else NAMES[ev.card]
            self.add(f"{names[ev.seat]} discards {card} face down")
        elif isinstance(ev, CardTaken):
            if ev.card is None:
                self.add(f"{names[ev.seat]} draws from the deck")
            elif ev.from_display:
                self.add(f"{names[ev.seat]} takes {NAMES[ev.card]} from the display")
            else:
                self.add(f"{names[ev.seat]} draws {NAMES[ev.card]} from the deck")
        elif isinstance(ev, DisplayRefilled):
            self.add(f"{NAMES[ev.card]} turns up")
        elif isinstance(ev, Declined):
            self.add(f"{names[ev.seat]} declines to draw")
        elif isinstance(ev, TurnEnded):
            self.add(f"{names[ev.seat]} ends the turn")
        else:
            self.close()
            self.done.append(_round_words(ev, names) + ".")

    def close(self) -> None:
        self.flush_consequences()
        if self.clauses:
            self.done.append("; ".join(self.clauses) + ".")
        self.clauses = []
        self.open_build = False

    def text(self) -> str:
        self.close()
        return " ".join(self.done)


def _round_words(ev: Event, names: Sequence[str]) -> str:
    """Scoring, new rounds, the last turns and the end of the game."""
    if isinstance(ev, RoundScored):
        counts = f"stones {names[0]} {ev.stones[0]}, {names[1]} {ev.stones[1]}"
        scorer = next((s for s in (0, 1) if ev.points[s]), None)
        score = "nobody scores" if scorer is None else f"{names[scorer]} scores {plural(ev.points[scorer], 'point')}"
        what = "Final scoring" if ev.final else f"Round {ev.round} is over"
        return f"{what} ({counts}): {score}"
    if isinstance(ev, Reshuffled):
        shown = " ".join(NAMES[LETTERS.index(c)] for c in ev.display)
        return f"Round {ev.round} begins: a new deck of {ev.deck_size} cards, display {shown}"
    if isinstance(ev, FinalTurnsBegan):
        second = names[1 - ev.first]
        return f"One last turn each without drawing: {names[ev.first]} first, then {second}"
    if isinstance(ev, GameOver):
        return outcome_words(ev.winner, ev.reason, names)
    return type(ev).__name__


def narrate(events: Sequence[Event], names: Sequence[str] = SEAT_NAMES) -> str:
    """One sentence for the events of one action (empty string for no events)."""
    sentence = _Sentence(names)
    for ev in events:
        sentence.event(ev)
    return sentence.text()


def narrate_for(events: Sequence[Event], seat: int | None, names: Sequence[str] = SEAT_NAMES) -> str:
    """:func:`narrate` of the events as ``seat`` (``None``: a spectator) may see them."""
    return narrate([ev.seen_by(seat) for ev in events], names)
