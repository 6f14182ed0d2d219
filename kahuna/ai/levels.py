"""The named levels: fixed agent configurations, each measured to beat the one below.

Budgets are iteration counts, not seconds, so that a level plays the same on any machine (only
slower or faster) and a game replays identically under a seed. ``docs/ai.md`` gives the measured
win rates and times per turn.
"""

from __future__ import annotations

from kahuna.ai.base import Agent
from kahuna.ai.registry import SpecError, make_agent, parse_options

LEVEL_SPECS: dict[str, str] = {
    "easy": "greedy:noise=0.3",
    "medium": "greedy:weights=greedy-tuned",
    "hard": "ismcts:iterations=250,weights=ismcts-tuned",
    "expert": "ismcts:iterations=1500,weights=ismcts-tuned",
    "master": "net:iterations=500,c=1,mix=0.5,heuristic=ismcts-tuned,weights=net",
}
"""Level name → the agent spec it stands for, weakest first."""

LEVELS: tuple[str, ...] = tuple(LEVEL_SPECS)
"""The level names, weakest first: the one list that the terminal game, the server and the lobby
offer (the server adds the ``random`` baseline)."""


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
