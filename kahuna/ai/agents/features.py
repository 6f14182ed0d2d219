"""A player view as a fixed-size vector of floats in [0, 1], from the viewer's side of the table.

This is the one observation encoding: the research adapters (:mod:`kahuna.envs.observation`) and
the policy/value network (:mod:`kahuna.ai.agents.net`) both use it, so a network trained on PettingZoo or
OpenSpiel observations reads the same numbers at play time. It lives in ``kahuna.ai`` because the
network plays here and ``kahuna.ai`` must not import ``kahuna.envs``.

Built from a :class:`~kahuna.rules.PlayerView` only, so an observation can never hold a hidden
card. "Mine" and "theirs" are relative to the viewing seat, so that one policy can play both
colours; the seat itself is one entry. Counts are divided by their largest possible value. The
layout (:data:`LAYOUT`, in order) is the table in ``docs/research.md``; keep the two in step.
"""

from __future__ import annotations

from typing import Final

import numpy as np
import numpy.typing as npt

from kahuna.rules import Phase, PlayerView
from kahuna.rules.board import (
    BRIDGES_PER_PLAYER,
    CARDS_PER_ISLAND,
    DISPLAY_SIZE,
    HAND_LIMIT,
    NUM_CARDS,
    NUM_ISLANDS,
    NUM_LINES,
    ROUNDS,
    STONES_PER_PLAYER,
)

MAX_DECK: Final[int] = NUM_CARDS - DISPLAY_SIZE
"""A bound on the deck: a reshuffled pile may hold every card not in a hand (hands may be empty)."""
MAX_POINTS: Final[tuple[int, ...]] = (1, 2, STONES_PER_PLAYER)
"""Round 1 and 2 leaders score 1 and 2; the final scoring at most the stone difference."""

LAYOUT: Final[tuple[tuple[str, int], ...]] = (
    ("my_bridges", NUM_LINES),
    ("their_bridges", NUM_LINES),
    ("my_stones", NUM_ISLANDS),
    ("their_stones", NUM_ISLANDS),
    ("my_hand", NUM_ISLANDS),
    ("their_known_hand", NUM_ISLANDS),
    ("display", NUM_ISLANDS),
    ("discard_face_up", NUM_ISLANDS),
    ("my_face_down", NUM_ISLANDS),
    ("unseen", NUM_ISLANDS),
    ("hand_sizes", 2),
    ("their_face_down_count", 1),
    ("deck_size", 1),
    ("supply", 4),
    ("round", ROUNDS),
    ("final_phase", 1),
    ("final_turns", 1),
    ("declined", 1),
    ("my_points", ROUNDS),
    ("their_points", ROUNDS),
    ("seat", 1),
    ("variant", 2),
)
"""(name, length) of each block, in order."""
OBS_SIZE: Final[int] = sum(n for _, n in LAYOUT)


def _offsets() -> dict[str, slice]:
    out: dict[str, slice] = {}
    start = 0
    for name, length in LAYOUT:
        out[name] = slice(start, start + length)
        start += length
    return out


OFFSETS: Final[dict[str, slice]] = _offsets()
"""Where each block of :data:`LAYOUT` sits in the vector."""


def encode_view(view: PlayerView) -> npt.NDArray[np.float32]:
    """The observation vector of a seat's view (``view.seat`` must be 0 or 1)."""
    if view.seat is None or view.hand is None or view.own_face_down is None:
        raise ValueError("observations are made of a seat's view, not a spectator's")
    me, them = view.seat, 1 - view.seat
    obs = np.zeros(OBS_SIZE, dtype=np.float32)

    def put(name: str, values: list[float] | tuple[float, ...] | tuple[int, ...]) -> None:
        obs[OFFSETS[name]] = values

    put("my_bridges", [1.0 if o == me else 0.0 for o in view.bridges])
    put("their_bridges", [1.0 if o == them else 0.0 for o in view.bridges])
    put("my_stones", [1.0 if o == me else 0.0 for o in view.stones])
    put("their_stones", [1.0 if o == them else 0.0 for o in view.stones])
    per_island = float(CARDS_PER_ISLAND)
    put("my_hand", [n / per_island for n in view.hand])
    put("their_known_hand", [n / per_island for n in view.known[them]])
    put("display", [n / per_island for n in view.display])
    put("discard_face_up", [n / per_island for n in view.discard_face_up])
    put("my_face_down", [n / per_island for n in view.own_face_down])
    put("unseen", [n / per_island for n in view.unseen()])
    put("hand_sizes", (view.hand_sizes[me] / HAND_LIMIT, view.hand_sizes[them] / HAND_LIMIT))
    put("their_face_down_count", (view.face_down_counts[them] / NUM_CARDS,))
    put("deck_size", (view.deck_size / MAX_DECK,))
    put(
        "supply",
        (
            view.supply_bridges[me] / BRIDGES_PER_PLAYER,
            view.supply_bridges[them] / BRIDGES_PER_PLAYER,
            view.supply_stones[me] / STONES_PER_PLAYER,
            view.supply_stones[them] / STONES_PER_PLAYER,
        ),
    )
    put("round", [1.0 if view.round == r + 1 else 0.0 for r in range(ROUNDS)])
    put("final_phase", (1.0 if view.phase is Phase.FINAL else 0.0,))
    put("final_turns", (view.final_turns / 2,))
    put("declined", (1.0 if view.declined else 0.0,))
    put("my_points", [p / m for p, m in zip(view.points[me], MAX_POINTS, strict=True)])
    put("their_points", [p / m for p, m in zip(view.points[them], MAX_POINTS, strict=True)])
    put("seat", (float(me),))
    put("variant", (float(view.variant.no_build_at_enemy_stone), float(view.variant.replace_on_remove)))
    return obs
