"""ISMCTS on the compiled core: the search of :mod:`kahuna.ai.ismcts`, node for node.

The whole search (determinization, selection, expansion, playout, heuristic, backup) runs in C
without crossing into Python per node, and without the GIL. The random stream is CPython's
Mersenne Twister seeded as ``random.Random(seed)``, and every choice and floating-point step
follows the Python code, so for the same view, settings and seed the root visit counts are the
ones :func:`kahuna.ai.ismcts.search` gives (tests/fast checks it) — only many times faster.
"""

from __future__ import annotations

import random

from kahuna.ai.ismcts import SearchConfig
from kahuna.fast import core_module
from kahuna.fast.layout import view_fields
from kahuna.rules import PlayerView


def search(view: PlayerView, config: SearchConfig, seed: int) -> tuple[dict[int, int], int]:
    """Run one tree; returns root visits per action index and the number of iterations made."""
    fields, hand_slots, down_slots = view_fields(view)
    assert view.seat is not None
    state = random.Random(seed).getstate()[1]
    visits, done = core_module().search(
        fields,
        view.seat,
        hand_slots,
        down_slots,
        state,
        config.iterations,
        float(config.seconds),
        float(config.exploration),
        config.playout_turns,
    )
    return visits, done
