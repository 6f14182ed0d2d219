"""The archipelago: 12 islands, 27 lines, read once from the packaged ``board.json``.

Islands and cards are small integers (0 = ``A`` … 11 = ``L``) and lines are indices into
``LINES`` (alphabetical, as in the notation), so that the referee can work on flat lists and
precomputed tables instead of strings and dictionaries.
"""

from __future__ import annotations

import json
import operator
from importlib import resources
from typing import Any, Final

_DATA: Final[dict[str, Any]] = json.loads(
    resources.files("kahuna.rules").joinpath("board.json").read_text(encoding="utf-8")
)

LETTERS: Final[str] = "".join(i["letter"] for i in _DATA["islands"])
"""Island letters in order; a card or island index is a position in this string."""
NAMES: Final[tuple[str, ...]] = tuple(i["name"] for i in _DATA["islands"])
DEGREE: Final[tuple[int, ...]] = tuple(i["lines"] for i in _DATA["islands"])
CONTROL: Final[tuple[int, ...]] = tuple(i["control"] for i in _DATA["islands"])
"""Bridges a player needs on an island's lines to hold a strict majority."""
LAYOUT: Final[tuple[tuple[float, float], ...]] = tuple((i["layout"]["x"], i["layout"]["y"]) for i in _DATA["islands"])

NUM_ISLANDS: Final[int] = len(LETTERS)
CARDS_PER_ISLAND: Final[int] = _DATA["cards_per_island"]
NUM_CARDS: Final[int] = NUM_ISLANDS * CARDS_PER_ISLAND
BRIDGES_PER_PLAYER: Final[int] = _DATA["bridges_per_player"]
STONES_PER_PLAYER: Final[int] = _DATA["stones_per_player"]
HAND_LIMIT: Final[int] = 5
DISPLAY_SIZE: Final[int] = 3
HAND_SIZE_AT_START: Final[int] = 3
ROUNDS: Final[int] = 3
ROUND_POINTS: Final[tuple[int, int]] = (1, 2)
"""Points for the leader in stones when the last card of round 1 and of round 2 is taken. Round 3
gives none then: the final scoring after the two last turns scores it (the stone difference)."""
SEAT_NAMES: Final[tuple[str, str]] = ("Black", "White")
"""Seat 0 moves first and plays Black; seat 1 plays White (the English names; UIs translate)."""

LINE_NAMES: Final[tuple[str, ...]] = tuple(_DATA["lines"])
LINES: Final[tuple[tuple[int, int], ...]] = tuple(
    (LETTERS.index(name[0]), LETTERS.index(name[1])) for name in LINE_NAMES
)
NUM_LINES: Final[int] = len(LINES)
LINE_INDEX: Final[dict[str, int]] = {name: i for i, name in enumerate(LINE_NAMES)}

ISLAND_LINES: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(li for li, (a, b) in enumerate(LINES) if island in (a, b)) for island in range(NUM_ISLANDS)
)
"""For each island, its lines in alphabetical order of the line names."""
NEIGHBOURS: Final[tuple[tuple[tuple[int, int], ...], ...]] = tuple(
    tuple(sorted(((b if a == island else a), li) for li, (a, b) in enumerate(LINES) if island in (a, b)))
    for island in range(NUM_ISLANDS)
)
"""For each island, ``(neighbour, line)`` pairs sorted by the neighbour's letter."""


def island_index(letter: str) -> int:
    """The index of an island letter; ``ValueError`` for anything else."""
    if len(letter) != 1 or letter not in LETTERS:
        raise ValueError(f"no island {letter!r} (islands are {LETTERS[0]}–{LETTERS[-1]})")
    return LETTERS.index(letter)


def cards_to_str(counts: list[int]) -> str:
    """A card multiset given as 12 counts, written as its sorted letters."""
    return "".join(map(operator.mul, LETTERS, counts))


def str_to_cards(text: str) -> list[int]:
    """Sorted-letter card text back to 12 counts; ``ValueError`` on a non-island letter."""
    counts = [0] * NUM_ISLANDS
    for ch in text:
        counts[island_index(ch)] += 1
    return counts


def board_data() -> dict[str, Any]:
    """A copy of the packaged board description (for front ends that draw the board)."""
    copy: dict[str, Any] = json.loads(json.dumps(_DATA))
    return copy
