"""Agent specs: the strings that name an agent on command lines and in the server.

A spec is ``NAME`` or ``NAME:OPTIONS``; what OPTIONS means is up to the agent's factory (most use
``key=value,key=value``, see :func:`kahuna.ai.spec.parse_options`; ``cmd:PROGRAM ARGS`` takes a
command line). Factories are named by ``module:function`` so that nothing heavy is imported until
it is used; the agents (:mod:`kahuna.ai.agents`) never import the registry.

The built-in agents and the levels (:mod:`kahuna.ai.levels`) are in :data:`FACTORIES`. Other
packages add agents through the ``kahuna.agents`` entry-point group (name = the spec's NAME,
value = ``module:function``); this is how :mod:`kahuna.envs` contributes ``openspiel-ismcts``
without ``kahuna.ai`` depending on it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from importlib.metadata import entry_points
from typing import TYPE_CHECKING, cast

from kahuna.ai.base import Agent
from kahuna.ai.levels import LEVEL_SPECS, LEVELS
from kahuna.ai.spec import SpecError, option, parse_options

if TYPE_CHECKING:
    from kahuna.ai.agents.net import Network
    from kahuna.ai.agents.netsearch import NetSearchConfig

FACTORIES: dict[str, str] = {
    # name: "module:function", the function taking the OPTIONS text (possibly "") -> Agent
    "random": "kahuna.ai.registry:_random",
    "greedy": "kahuna.ai.registry:_greedy",
    "ismcts": "kahuna.ai.registry:_ismcts",
    "fast-ismcts": "kahuna.ai.agents.fast_ismcts:make",
    "net": "kahuna.ai.registry:_net",
    "easy": "kahuna.ai.registry:easy",
    "medium": "kahuna.ai.registry:medium",
    "hard": "kahuna.ai.registry:hard",
    "expert": "kahuna.ai.registry:expert",
    "master": "kahuna.ai.registry:master",
    "grandmaster": "kahuna.ai.registry:grandmaster",
    "cmd": "kahuna.ai.agents.external:make",
}

ENTRY_POINT_GROUP = "kahuna.agents"
"""Entry-point group through which installed packages add agent names (``pyproject.toml``)."""


def make_agent(spec: str) -> Agent:
    """The agent a spec names; ``SpecError`` (a ``ValueError``) with the known names otherwise."""
    name, _, options = spec.partition(":")
    return _factory(name.strip())(options)


def agent_names() -> list[str]:
    """Every agent name a spec may start with: the built-in ones and those of entry points."""
    return sorted(set(FACTORIES) | {ep.name for ep in entry_points(group=ENTRY_POINT_GROUP)})


def _factory(name: str) -> Callable[[str], Agent]:
    target = FACTORIES.get(name)
    if target is not None:
        module, _, func = target.partition(":")
        return cast(Callable[[str], Agent], getattr(importlib.import_module(module), func))
    for ep in entry_points(group=ENTRY_POINT_GROUP, name=name):
        return cast(Callable[[str], Agent], ep.load())
    raise SpecError(f"unknown agent {name!r} (known: {', '.join(agent_names())})")


def _random(options: str) -> Agent:
    from kahuna.ai.base import RandomAgent

    parse_options(options, {})
    return RandomAgent()


def _greedy(options: str) -> Agent:
    from kahuna.ai.agents.greedy import GreedyAgent
    from kahuna.ai.agents.heuristic import load_weights

    opts = parse_options(options, {"beam": int, "depth": int, "noise": float, "weights": str})
    beam, depth, noise = option(opts, "beam", 4), option(opts, "depth", 5), option(opts, "noise", 0.0)
    if beam < 1 or depth < 0 or not 0.0 <= noise <= 1.0:
        raise SpecError("greedy needs beam >= 1, depth >= 0 and 0 <= noise <= 1")
    weights = load_weights(option(opts, "weights", ""))
    name = "greedy" + (f":{options}" if options else "")
    return GreedyAgent(beam=beam, depth=depth, noise=noise, name=name, weights=weights)


def _ismcts(options: str) -> Agent:
    from kahuna.ai.agents.fast_ismcts import OPTIONS, ismcts_agent, search_config

    opts = parse_options(options, OPTIONS)
    config = search_config(opts)
    workers = option(opts, "workers", 1)
    if config.iterations < 1 or config.seconds < 0 or config.exploration < 0 or config.playout_turns < 0:
        raise SpecError("ismcts needs iterations >= 1, seconds >= 0, c >= 0 and playout >= 0")
    if not 1 <= workers <= 64:
        raise SpecError("ismcts needs 1 <= workers <= 64")
    # The compiled search when it is built and KAHUNA_CORE allows it: the same moves, faster.
    return ismcts_agent(config, workers, name="ismcts" + (f":{options}" if options else ""))


def _net(options: str) -> Agent:
    from kahuna.ai.agents.heuristic import load_weights
    from kahuna.ai.agents.net import load_network
    from kahuna.ai.agents.netsearch import NetAgent, NetSearchConfig

    allowed = {
        "iterations": int,
        "c": float,
        "mix": float,
        "playout": int,
        "weights": str,
        "heuristic": str,
        "stop": bool,
        "share": float,
        "seconds": float,
        "stretch": float,
        "close": float,
        "workers": int,
    }
    opts = parse_options(options, allowed)
    try:
        heuristic = load_weights(option(opts, "heuristic", ""))
    except ValueError as exc:
        raise SpecError(f"net: {exc}") from None
    config = NetSearchConfig(
        iterations=option(opts, "iterations", 200),
        c_puct=option(opts, "c", 1.5),
        mix=option(opts, "mix", 0.0),
        playout_turns=option(opts, "playout", 2),
        heuristic=heuristic,
        # On for an agent: it plays the move of the full budget, sooner (off in self-play only).
        stop=option(opts, "stop", True),
        share=option(opts, "share", 0.0),
    )
    if not 1 <= config.iterations <= 1_000_000 or config.c_puct < 0:
        raise SpecError("net needs 1 <= iterations <= 1000000 and c >= 0")
    if not 0.0 <= config.mix <= 1.0 or not 0.0 <= config.share <= 1.0 or not 0 <= config.playout_turns <= 1000:
        raise SpecError("net needs 0 <= mix <= 1, 0 <= share <= 1 and 0 <= playout <= 1000")
    try:
        network = load_network(option(opts, "weights", "net"))
    except (OSError, ValueError) as exc:
        raise SpecError(f"net: cannot load the weights: {exc}") from None
    name = "net" + (f":{options}" if options else "")
    if "seconds" in opts or "workers" in opts:
        return _timed_net(network, config, opts, name)
    # The search runs in the compiled core when it is built and KAHUNA_CORE allows it: same moves.
    return NetAgent(network, config, name=name)


def _timed_net(network: Network, config: NetSearchConfig, opts: dict[str, object], name: str) -> Agent:
    """``net`` with ``seconds`` (a budget by time) or ``workers`` (0: one per core this process may
    use; with ``seconds=0``, ``iterations`` per worker, reproducible): ``kahuna.ai.agents.timed_net``."""
    from kahuna.ai.agents.timed_net import TimedNetAgent
    from kahuna.ai.budget import TimeBudget

    seconds, workers = option(opts, "seconds", 0.0), option(opts, "workers", 1)
    stretch, close = option(opts, "stretch", 2.0), option(opts, "close", 0.02)
    if not 0 <= seconds <= 3600 or not 1 <= stretch <= 10 or not 0 <= close <= 1 or not 0 <= workers <= 64:
        raise SpecError("net needs 0 <= seconds <= 3600, 1 <= stretch <= 10, 0 <= close <= 1, 0 <= workers <= 64")
    if seconds * stretch > 3600:
        raise SpecError("net needs seconds * stretch <= 3600")
    budget = TimeBudget.of(seconds, stretch, close) if seconds else None
    # stop and share belong to the search by count; the search by time has its own stopping rule.
    return TimedNetAgent(network, config, budget, workers=workers, name=name)


def level(name: str, options: str) -> Agent:
    """The agent of a level (levels take no options), named after the level."""
    parse_options(options, {})
    spec = LEVEL_SPECS.get(name)
    if spec is None:
        raise SpecError(f"unknown level {name!r} (levels: {', '.join(LEVELS)})")
    agent = make_agent(spec)
    agent.name = name
    return agent


def easy(options: str) -> Agent:
    return level("easy", options)


def medium(options: str) -> Agent:
    return level("medium", options)


def hard(options: str) -> Agent:
    return level("hard", options)


def expert(options: str) -> Agent:
    return level("expert", options)


def master(options: str) -> Agent:
    return level("master", options)


def grandmaster(options: str) -> Agent:
    return level("grandmaster", options)
