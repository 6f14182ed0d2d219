"""What the player typed: an action (by token or in friendly words) or a command such as ``legal``.

Typed text becomes candidate notation tokens; the referee's legal list then decides. One legal
candidate is played, several give a question naming them, none gives the referee's reason and
what would work instead. Nothing here knows a rule: legality comes from the engine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from kahuna.rules import Action, Reason
from kahuna.rules.actions import BY_TOKEN, Kind
from kahuna.rules.board import LETTERS, LINE_INDEX, NAMES

COMMANDS: dict[str, str] = {
    "help": "help",
    "?": "help",
    "legal": "legal",
    "moves": "legal",
    "rules": "rules",
    "quit": "quit",
    "resign": "resign",
    "exit": "quit",
    "q": "quit",
}
SHOWN = 16
"""At most this many alternatives in a refusal: one or two lines; ``legal`` lists them all."""
EXAMPLES = "try E J (build), remove EJ with E E, discard K, draw, draw E, pass, or legal / help"
KIND_WORDS: dict[Kind, str] = {
    Kind.BUILD: "builds",
    Kind.REMOVE: "removals",
    Kind.DISCARD: "discards",
    Kind.TAKE_DISPLAY: "ways to end the turn",
    Kind.TAKE_DECK: "ways to end the turn",
    Kind.PASS: "ways to end the turn",
    Kind.END: "ways to end the turn",
}
_ISLAND_WORDS: dict[str, str] = {name.lower(): letter for letter, name in zip(LETTERS, NAMES, strict=True)} | {
    letter.lower(): letter for letter in LETTERS
}


@dataclass(frozen=True)
class Parsed:
    """Exactly one of: an ``action`` to play, a ``command`` name, or an ``error`` line."""

    action: Action | None = None
    command: str | None = None
    error: str | None = None


def island(word: str) -> str | None:
    """The letter of an island given by letter or name (any case)."""
    return _ISLAND_WORDS.get(word.lower())


def islands(words: Sequence[str]) -> list[str] | None:
    """Island letters from words like ``E J``, ``elai jojo``, ``EJ`` or ``EE``; ``None`` if any word is not one."""
    out: list[str] = []
    for word in words:
        one = island(word)
        if one is not None:
            out.append(one)
        elif len(word) > 1 and all(island(ch) for ch in word):
            out.extend(ch.upper() for ch in word)
        else:
            return None
    return out


def _line(*ends: str) -> str | None:
    """The line joining two islands given by letter, if there is one."""
    if len(ends) != 2:
        return None
    name = "".join(sorted(ends))
    return name if name in LINE_INDEX else None


def _normalised_token(text: str) -> str | None:
    """A notation token typed in any case (``e>j``, ``xej:ee``, ``-k``, ``de``)."""
    if text in BY_TOKEN:
        return text
    upper = text.upper()
    first = text[:1].lower()
    candidate = first + upper[1:] if first in ("x", "d") else upper
    if candidate in BY_TOKEN:
        return candidate
    return text.lower() if text.lower() in BY_TOKEN else None


def candidates(text: str) -> list[str] | str:
    """Tokens the text may mean, or an error line when it means nothing."""
    words = [w for w in re.split(r"[\s,]+", text.strip()) if w]
    if not words:
        return "type an action or a command: " + EXAMPLES
    token = _normalised_token(text.strip()) if len(words) == 1 else None
    # Typed exactly, a token is a token; in another case, two letters naming a line ("de") are the line.
    if token is not None and (token == text.strip() or _line(*text.strip().upper()) is None):
        return [token]
    head, rest = words[0].lower(), words[1:]
    if head in ("draw", "take"):
        if not rest or (len(rest) == 1 and rest[0].lower() in ("deck", "?")):
            return ["d?"]
        cards = islands(rest)
        if cards is None or len(cards) != 1:
            return "draw what? 'draw' takes the top card of the deck, 'draw E' the face-up ELAI card"
        return ["d" + cards[0]]
    if head in ("pass", "decline") and not rest:
        return ["pass"]
    if head == "end" and (not rest or [w.lower() for w in rest] == ["turn"]):
        return ["end"]
    if head == "discard":
        cards = islands(rest)
        if cards is None or len(cards) != 1:
            return "discard what? e.g. 'discard K' puts a KAHU card face down"
        return ["-" + cards[0]]
    if head == "remove":
        return _removal(rest)
    if head == "build":
        words = rest
    return _build(words, text)


def _removal(words: list[str]) -> list[str] | str:
    lowered = [w.lower() for w in words]
    replace = bool(lowered) and lowered[-1] in ("+", "replace")
    if replace:
        lowered = lowered[:-1]
        if lowered and lowered[-1] == "and":
            lowered = lowered[:-1]
    line_words, card_words = lowered, []
    if "with" in lowered:
        cut = lowered.index("with")
        line_words, card_words = lowered[:cut], lowered[cut + 1 :]
    ends = islands(line_words)
    line = _line(ends[0], ends[1]) if ends and len(ends) == 2 else None
    if line is None:
        return "remove which bridge? e.g. 'remove EJ with E E' (the line, then two cards of its islands)"
    plus = "+" if replace else ""
    if not card_words:
        return [f"x{line}:{pair}{plus}" for pair in (line[0] * 2, line, line[1] * 2)]
    cards = islands(card_words)
    if cards is None or len(cards) != 2:
        return f"a removal takes two cards, each {NAMES[LETTERS.index(line[0])]} or {NAMES[LETTERS.index(line[1])]}"
    return [f"x{line}:{''.join(sorted(cards))}{plus}"]


def _build(words: list[str], text: str) -> list[str] | str:
    ends = islands(words)
    if ends is None or not ends:
        return f"{text.strip()!r} is not understood: {EXAMPLES}"
    if len(ends) == 1:
        return [f"{ends[0]}>{letter}" for letter in LETTERS]
    if len(ends) != 2:
        return "a build names two islands: the card's island first, e.g. 'E J' or 'elai jojo'"
    if _line(ends[0], ends[1]) is None:
        return f"there is no line between {NAMES[LETTERS.index(ends[0])]} and {NAMES[LETTERS.index(ends[1])]}"
    if len(words) == 1 and len(words[0]) == 2 and island(words[0]) is None:
        return [f"{ends[0]}>{ends[1]}", f"{ends[1]}>{ends[0]}"]  # "EJ": either card may build it
    return [f"{ends[0]}>{ends[1]}"]


def interpret(text: str, legal: Sequence[Action], why_illegal: Callable[[Action], Reason | None]) -> Parsed:
    """Turn typed text into a legal action, a command, or one line saying why not and what works."""
    command = COMMANDS.get(text.strip().lower())
    if command is not None:
        return Parsed(command=command)
    options = candidates(text)
    if isinstance(options, str):
        return Parsed(error=options)
    tokens = [t for t in options if t in BY_TOKEN]
    legal_tokens = {a.token: a for a in legal}
    playable = [t for t in tokens if t in legal_tokens]
    if len(playable) == 1:
        return Parsed(action=legal_tokens[playable[0]])
    if playable:
        return Parsed(error=f"which one? {' or '.join(playable)} — type it as shown")
    if not tokens:
        return Parsed(error=f"{text.strip()!r} is not understood: {EXAMPLES}")
    reasons = {t: str(why_illegal(BY_TOKEN[t]) or "not possible now") for t in tokens}
    return Parsed(error=_refusal(BY_TOKEN[tokens[0]], reasons, legal))


def _refusal(action: Action, reasons: dict[str, str], legal: Sequence[Action]) -> str:
    """Why not, and the legal actions of the same sort (or a pointer to ``legal``)."""
    distinct = set(reasons.values())
    if len(distinct) == 1:
        why = f"{' / '.join(list(reasons)[:3])}{' …' if len(reasons) > 3 else ''}: {distinct.pop()}"
    else:
        why = "; ".join(f"{t}: {r}" for t, r in list(reasons.items())[:3])
    sort = KIND_WORDS[action.kind]
    same = [a.token for a in legal if KIND_WORDS[a.kind] == sort]
    if same:
        shown = " ".join(same[:SHOWN]) + (" …" if len(same) > SHOWN else "")
        return f"{why}. Possible {sort}: {shown}"
    return f"{why}. No {sort} now; type legal for the options"


def grouped(legal: Sequence[Action]) -> list[str]:
    """The legal actions in groups, one line each (the ``legal`` command)."""
    groups: dict[str, list[str]] = {}
    labels = {
        Kind.BUILD: "Build",
        Kind.REMOVE: "Remove",
        Kind.DISCARD: "Discard",
        Kind.TAKE_DISPLAY: "End turn",
        Kind.TAKE_DECK: "End turn",
        Kind.PASS: "End turn",
        Kind.END: "End turn",
    }
    for action in legal:
        groups.setdefault(labels[action.kind], []).append(action.token)
    order = ["Build", "Remove", "Discard", "End turn"]
    return [f"{label}: {' '.join(groups[label])}" for label in order if label in groups]
