"""The one action codec of the research adapters: action ⇄ integer, and legal-action masks.

It does not define a mapping of its own: the integer of an action is :attr:`Action.index` from
:mod:`kahuna.rules.actions` (243 actions; the table is in that module's docstring and in
``docs/research.md``). PettingZoo, Gymnasium, OpenSpiel and the bot protocol all go through here,
so an integer means the same action everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import SupportsIndex

import numpy as np
import numpy.typing as npt

from kahuna.rules import NUM_ACTIONS, Action, GameState, PlayerView, action_at, legal_actions_of, parse

__all__ = ["NUM_ACTIONS", "decode", "encode", "legal_indices", "mask_of", "view_mask"]


def encode(action: Action | str) -> int:
    """The integer of an action or notation token (``NotationError`` for an unknown token)."""
    return (parse(action) if isinstance(action, str) else action).index


def decode(index: SupportsIndex) -> Action:
    """The action with that integer (``NotationError`` when outside 0–242); numpy integers too."""
    return action_at(int(index))


def mask_of(actions: Iterable[Action]) -> npt.NDArray[np.int8]:
    """A 0/1 vector of length :data:`NUM_ACTIONS` with a 1 at each given action's integer."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    for action in actions:
        mask[action.index] = 1
    return mask


def legal_indices(state: GameState) -> list[int]:
    """The integers of the legal actions, ascending (OpenSpiel's order)."""
    return sorted(a.index for a in state.legal_actions())


def view_mask(view: PlayerView) -> npt.NDArray[np.int8]:
    """The legal-action mask of the seat to move, computed from its player view alone."""
    return mask_of(legal_actions_of(view))
