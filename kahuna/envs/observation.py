"""A player view as a fixed-size vector of floats in [0, 1], from the viewer's side of the table.

The encoding itself is :mod:`kahuna.ai.agents.features` (the network plays with it inside ``kahuna.ai``,
which must not import this package); this module is its name for the research adapters. The
layout (:data:`LAYOUT`, in order) is the table in ``docs/research.md``; keep the two in step.
"""

from __future__ import annotations

from kahuna.ai.agents.features import LAYOUT, MAX_DECK, MAX_POINTS, OBS_SIZE, OFFSETS, encode_view

__all__ = ["LAYOUT", "MAX_DECK", "MAX_POINTS", "OBS_SIZE", "OFFSETS", "encode_view"]
