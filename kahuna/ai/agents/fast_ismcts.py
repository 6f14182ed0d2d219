"""ISMCTS on the compiled core: the agent of :mod:`kahuna.ai.agents.ismcts` with its search in C.

The whole search (determinization, selection, expansion, playout, heuristic, backup) runs in C
without crossing into Python per node, and without the GIL. Its random stream is CPython's
Mersenne Twister seeded as ``random.Random(seed)``, and every choice and floating-point step
follows the Python code, so for the same view, settings and seed :func:`search` gives the root
visit counts of :func:`kahuna.ai.agents.ismcts.search` (tests/fast checks it) and the agent plays the
action the Python agent plays, many times faster. With ``workers`` > 1 the independent trees run
in threads.
:func:`ismcts_agent` is how specs get an ISMCTS agent: the compiled one when the core is built
and ``KAHUNA_CORE`` is not ``python``.
"""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor
from dataclasses import astuple

from kahuna.ai.agents.heuristic import load_weights
from kahuna.ai.agents.ismcts import IsmctsAgent, SearchConfig
from kahuna.ai.spec import SpecError, option, parse_options
from kahuna.fast import core_module, selected_core
from kahuna.fast.layout import view_fields
from kahuna.rules import PlayerView

OPTIONS: dict[str, type] = {
    "iterations": int,
    "seconds": float,
    "c": float,
    "playout": int,
    "workers": int,
    "weights": str,
}
"""The options of the ``ismcts`` and ``fast-ismcts`` specs."""


def search_config(opts: dict[str, object]) -> SearchConfig:
    """The search settings of parsed spec options; ``weights`` is a shipped name or a JSON path."""
    try:
        weights = load_weights(option(opts, "weights", ""))
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    return SearchConfig(
        iterations=option(opts, "iterations", 1000),
        seconds=option(opts, "seconds", 0.0),
        exploration=option(opts, "c", 0.7),
        playout_turns=option(opts, "playout", 2),
        weights=weights,
    )


def search(view: PlayerView, config: SearchConfig, seed: int) -> tuple[dict[int, int], int]:
    """Run one tree in C; returns root visits per action index and the number of iterations made."""
    fields, hand_slots, down_slots = view_fields(view)
    assert view.seat is not None
    visits, done = core_module().search(
        fields,
        view.seat,
        hand_slots,
        down_slots,
        random.Random(seed).getstate()[1],
        config.iterations,
        float(config.seconds),
        float(config.exploration),
        config.playout_turns,
        astuple(config.weights),
    )
    return visits, done


class FastIsmctsAgent(IsmctsAgent):
    """ISMCTS over determinizations, searched by the compiled core (same choices as IsmctsAgent);
    several workers are threads, since the core releases the GIL while it searches."""

    search_function = staticmethod(search)
    executor = ThreadPoolExecutor

    def __init__(self, config: SearchConfig, workers: int = 1, name: str = "fast-ismcts") -> None:
        core_module()  # fail now, not at the first move, when the extension is missing
        super().__init__(config, workers, name)


def ismcts_agent(config: SearchConfig, workers: int, name: str) -> IsmctsAgent | FastIsmctsAgent:
    """The ISMCTS agent for a spec: compiled when the core is built and selected (and the settings
    are within the compiled search's bounds), else Python."""
    bounded = config.iterations <= 10_000_000 and config.seconds <= 3600
    bounded = bounded and config.exploration <= 100 and config.playout_turns <= 1000
    if bounded and selected_core() == "fast":
        return FastIsmctsAgent(config, workers=workers, name=name)
    return IsmctsAgent(config, workers=workers, name=name)


def make(options: str) -> FastIsmctsAgent:
    """``fast-ismcts[:iterations=1000,seconds=0,c=0.7,playout=2,workers=1,weights=NAME]``: always
    the compiled search (an error without the extension), whatever ``KAHUNA_CORE`` says."""
    opts = parse_options(options, OPTIONS)
    config = search_config(opts)
    workers = option(opts, "workers", 1)
    if not 1 <= config.iterations <= 10_000_000 or not 0 <= config.seconds <= 3600:
        raise SpecError("fast-ismcts needs 1 <= iterations <= 10000000 and 0 <= seconds <= 3600")
    if not 0 <= config.exploration <= 100 or not 0 <= config.playout_turns <= 1000 or not 1 <= workers <= 64:
        raise SpecError("fast-ismcts needs 0 <= c <= 100, 0 <= playout <= 1000 and 1 <= workers <= 64")
    return FastIsmctsAgent(config, workers=workers, name="fast-ismcts" + (f":{options}" if options else ""))
