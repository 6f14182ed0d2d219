"""Agent specs: the strings that name an agent on command lines and in the server.

A spec is ``NAME`` or ``NAME:OPTIONS``; what OPTIONS means is up to the agent's factory (most use
``key=value,key=value``, see :func:`parse_options`; ``cmd:PROGRAM ARGS`` takes a command line).
Factories are named by ``module:function`` so that nothing heavy is imported until it is used.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import cast

from kahuna.ai.base import Agent

FACTORIES: dict[str, str] = {
    # name: "module:function", the function taking the OPTIONS text (possibly "") -> Agent
    "random": "kahuna.ai.registry:_random",
}


class SpecError(ValueError):
    """An agent spec that names no agent or has bad options."""


def parse_options(text: str, allowed: dict[str, type]) -> dict[str, object]:
    """``"iterations=200,seconds=1.5"`` → typed values, checking names against ``allowed``."""
    out: dict[str, object] = {}
    if not text:
        return out
    for part in text.split(","):
        key, sep, value = part.partition("=")
        key = key.strip()
        if not sep or key not in allowed:
            names = ", ".join(sorted(allowed)) or "none"
            raise SpecError(f"bad option {part!r} (options: {names}; write key=value)")
        kind = allowed[key]
        try:
            out[key] = kind(value.strip()) if kind is not bool else value.strip().lower() in ("1", "true", "yes")
        except ValueError:
            raise SpecError(f"option {key} needs a {kind.__name__}, not {value!r}") from None
    return out


def make_agent(spec: str) -> Agent:
    """The agent a spec names; ``SpecError`` (a ``ValueError``) with the known names otherwise."""
    name, _, options = spec.partition(":")
    target = FACTORIES.get(name.strip())
    if target is None:
        known = ", ".join(sorted(FACTORIES))
        raise SpecError(f"unknown agent {name!r} (known: {known})")
    module, _, func = target.partition(":")
    factory = cast(Callable[[str], Agent], getattr(importlib.import_module(module), func))
    return factory(options)


def _random(options: str) -> Agent:
    from kahuna.ai.base import RandomAgent

    parse_options(options, {})
    return RandomAgent()
