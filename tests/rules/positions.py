"""Hand-built positions for the rule tests, written in the state format of NOTATION.md."""

from __future__ import annotations

import random
from typing import Any

from kahuna.rules import GameState, Variant
from kahuna.rules.board import LETTERS, LINE_NAMES


def position(
    *,
    bridges: dict[str, int] | None = None,
    stones: dict[str, int] | None = None,
    hands: tuple[str, str] = ("", ""),
    display: str = "",
    deck: str | None = None,
    to_move: int = 0,
    round: int = 1,
    phase: str = "play",
    declined: bool = False,
    final_turns: int = 0,
    points: list[list[int]] | None = None,
    variant: Variant | None = None,
) -> GameState:
    """A consistent state: bridges/stones as given, supplies to match, every card not in a hand,
    the display or the deck in the discard pile (so that the 24 cards are accounted for)."""
    bridges = bridges or {}
    stones = stones or {}
    placed = hands[0] + hands[1] + display + (deck or "")
    rest = list(LETTERS + LETTERS)
    for ch in placed:
        rest.remove(ch)
    data: dict[str, Any] = {
        "round": round,
        "phase": phase,
        "to_move": to_move,
        "bridges": {n: bridges.get(n) for n in LINE_NAMES},
        "stones": {x: stones.get(x) for x in LETTERS},
        "supply": [
            {
                "bridges": 25 - sum(1 for o in bridges.values() if o == s),
                "stones": 10 - sum(1 for o in stones.values() if o == s),
            }
            for s in (0, 1)
        ],
        "hands": ["".join(sorted(hands[0])), "".join(sorted(hands[1]))],
        "display": "".join(sorted(display)),
        "deck": deck or "",
        "discard": "".join(sorted(rest)),
        "declined": declined,
        "final_turns": final_turns,
        "points": points or [[0, 0, 0], [0, 0, 0]],
        "result": None,
        "variant": (variant or Variant()).to_json(),
        "face_down": ["", ""],
        "known": ["", ""],
        "history": [],
        "deal": None,
        "reshuffles": [],
        "termination": None,
    }
    return GameState.from_json(data)


def tokens(state: GameState) -> list[str]:
    return [a.token for a in state.legal_actions()]


def event_types(events: list[Any]) -> list[str]:
    return [e.to_json()["type"] for e in events]


def random_game(seed: int, steps: int, variant: Variant | None = None) -> GameState:
    """A game dealt from ``seed`` after up to ``steps`` uniformly random legal actions."""
    rng = random.Random(seed)
    state = GameState.new(random.Random(seed + 1), variant)
    for _ in range(steps):
        if state.is_over:
            break
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return state
