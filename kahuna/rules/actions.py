"""Actions, their notation tokens and their fixed integer indices.

Every possible action exists once, as an immutable :class:`Action` in :data:`ALL_ACTIONS`; parsing
a token is a dictionary look-up and the referee hands out these shared objects, so actions
compare by identity, hash cheaply and carry their token and index with them.

The index of an action is the one action codec of the project (the RL adapters use it as is):

====================  ==========  =====================================================
range                 count       meaning
====================  ==========  =====================================================
0 – 53                54          build: ``2 * line + end`` (end 0: card of the line's
                                  first island, 1: of its second), token ``X>Y``
54 – 134              81          removal: ``54 + 3 * line + pair`` (pair 0: ``XX``,
                                  1: ``XY``, 2: ``YY``), token ``xXY:..``
135 – 215             81          removal and replace (variant): ``135 + 3 * line + pair``
216 – 227             12          discard face down: ``216 + card``, token ``-X``
228 – 239             12          take a display card: ``228 + card``, token ``dX``
240                   1           take the top card of the deck, ``d?``
241                   1           decline to draw, ``pass``
242                   1           end a final turn, ``end``
====================  ==========  =====================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Final

from kahuna.rules.board import LETTERS, LINE_INDEX, LINE_NAMES, LINES, NUM_ISLANDS, NUM_LINES
from kahuna.rules.errors import NotationError


class Kind(IntEnum):
    """What an action does."""

    BUILD = 0
    REMOVE = 1
    DISCARD = 2
    TAKE_DISPLAY = 3
    TAKE_DECK = 4
    PASS = 5
    END = 6


@dataclass(frozen=True, slots=True, eq=False)
class Action:
    """One action. Use :func:`parse` or the tables below; never construct one yourself."""

    index: int
    kind: Kind
    token: str
    card: int = -1
    """The card played, discarded or taken (builds, discards, display takes); -1 otherwise."""
    line: int = -1
    """The line built on or cleared (builds, removals); -1 otherwise."""
    cards: tuple[int, ...] = ()
    """The two cards of a removal, sorted."""
    replace: bool = False
    """A removal that puts the remover's bridge on the freed line at once (variant)."""
    public_token: str = ""
    """The token as seats other than the actor see it: ``-?`` for a face-down discard."""

    def __post_init__(self) -> None:
        if not self.public_token:
            hidden = self.kind is Kind.DISCARD
            object.__setattr__(self, "public_token", "-?" if hidden else self.token)

    @property
    def ends_turn(self) -> bool:
        """Drawing, declining and ``end`` close the turn; card play does not."""
        return self.kind >= Kind.TAKE_DISPLAY

    def __str__(self) -> str:
        return self.token

    def __repr__(self) -> str:
        return f"Action({self.token!r})"

    def __reduce__(self) -> tuple[object, tuple[int]]:
        # Pickling (process pools) must give back the shared object, not a copy.
        return (action_at, (self.index,))


def _make_table() -> list[Action]:
    table: list[Action] = []
    for li, (a, b) in enumerate(LINES):
        for card, other in ((a, b), (b, a)):
            table.append(Action(len(table), Kind.BUILD, f"{LETTERS[card]}>{LETTERS[other]}", card=card, line=li))
    for replace in (False, True):
        for li, (a, b) in enumerate(LINES):
            for pair in ((a, a), (a, b), (b, b)):
                token = f"x{LINE_NAMES[li]}:{LETTERS[pair[0]]}{LETTERS[pair[1]]}" + ("+" if replace else "")
                table.append(Action(len(table), Kind.REMOVE, token, line=li, cards=pair, replace=replace))
    for c in range(NUM_ISLANDS):
        table.append(Action(len(table), Kind.DISCARD, f"-{LETTERS[c]}", card=c))
    for c in range(NUM_ISLANDS):
        table.append(Action(len(table), Kind.TAKE_DISPLAY, f"d{LETTERS[c]}", card=c))
    table.append(Action(len(table), Kind.TAKE_DECK, "d?"))
    table.append(Action(len(table), Kind.PASS, "pass"))
    table.append(Action(len(table), Kind.END, "end"))
    return table


ALL_ACTIONS: Final[tuple[Action, ...]] = tuple(_make_table())
NUM_ACTIONS: Final[int] = len(ALL_ACTIONS)
BY_TOKEN: Final[dict[str, Action]] = {a.token: a for a in ALL_ACTIONS}

REMOVE_BASE: Final[int] = 2 * NUM_LINES
REPLACE_BASE: Final[int] = REMOVE_BASE + 3 * NUM_LINES
DISCARD_BASE: Final[int] = REPLACE_BASE + 3 * NUM_LINES
TAKE_DISPLAY_BASE: Final[int] = DISCARD_BASE + NUM_ISLANDS
TAKE_DECK: Final[Action] = BY_TOKEN["d?"]
PASS: Final[Action] = BY_TOKEN["pass"]
END: Final[Action] = BY_TOKEN["end"]

BUILD: Final[tuple[dict[int, Action], ...]] = tuple(
    {a.line: a for a in ALL_ACTIONS if a.kind is Kind.BUILD and a.card == c} for c in range(NUM_ISLANDS)
)
"""``BUILD[card][line]``: the build of ``line`` with ``card``."""
REMOVE: Final[tuple[tuple[Action, Action, Action], ...]] = tuple(
    (ALL_ACTIONS[REMOVE_BASE + 3 * li], ALL_ACTIONS[REMOVE_BASE + 3 * li + 1], ALL_ACTIONS[REMOVE_BASE + 3 * li + 2])
    for li in range(NUM_LINES)
)
"""``REMOVE[line]``: the removals of ``line`` with the pairs XX, XY, YY."""
REMOVE_REPLACE: Final[tuple[tuple[Action, Action, Action], ...]] = tuple(
    (ALL_ACTIONS[REPLACE_BASE + 3 * li], ALL_ACTIONS[REPLACE_BASE + 3 * li + 1], ALL_ACTIONS[REPLACE_BASE + 3 * li + 2])
    for li in range(NUM_LINES)
)
DISCARD: Final[tuple[Action, ...]] = ALL_ACTIONS[DISCARD_BASE : DISCARD_BASE + NUM_ISLANDS]
TAKE_DISPLAY: Final[tuple[Action, ...]] = ALL_ACTIONS[TAKE_DISPLAY_BASE : TAKE_DISPLAY_BASE + NUM_ISLANDS]


def action_at(index: int) -> Action:
    """The action with a given codec index; ``NotationError`` when out of range."""
    if not 0 <= index < NUM_ACTIONS:
        raise NotationError(f"no action has index {index} (0–{NUM_ACTIONS - 1})")
    return ALL_ACTIONS[index]


def parse(token: str) -> Action:
    """The action a notation token stands for; ``NotationError`` saying what is wrong otherwise."""
    action = BY_TOKEN.get(token) if isinstance(token, str) else None
    if action is not None:
        return action
    raise NotationError(_explain(token))


def _explain(token: object) -> str:
    if not isinstance(token, str):
        return f"an action token must be a string, not {type(token).__name__}"
    shown = token if len(token) <= 20 else token[:20] + "…"
    if token == "":
        return "empty action token"
    if len(token) == 3 and token[1] == ">":
        x, y = token[0], token[2]
        if x not in LETTERS or y not in LETTERS:
            return f"{shown!r}: islands are the capital letters {LETTERS[0]}–{LETTERS[-1]}"
        return f"{shown!r}: there is no line between {x} and {y}"
    if token.startswith("x"):
        line = token[1:3]
        if line not in LINE_INDEX:
            return f"{shown!r}: {line!r} is not a line (write its two letters sorted, e.g. EJ)"
        return f"{shown!r}: a removal of {line} is written x{line}:XY with two cards of {line[0]} or {line[1]}, sorted"
    if token.startswith(("-", "d")) and len(token) == 2:
        return f"{shown!r}: {token[1]!r} is not an island letter"
    return f"{shown!r} is not an action (examples: E>J, xEJ:EJ, -K, dE, d?, pass, end)"


def tokens(actions: list[Action]) -> list[str]:
    """The tokens of a list of actions."""
    return [a.token for a in actions]
