"""The named levels: fixed agent configurations, each measured to beat the one below.

Budgets up to ``master`` are iteration counts, not seconds, so that those levels play the same on
any machine (only slower or faster) and a game replays identically under a seed. ``grandmaster``
is the exception, on purpose: it thinks by time (about a second a decision, on every core the
process may use, ``kahuna.ai.agents.timed_net``), which is what a person waiting for a move
measures, so its strength depends on the machine and its games do not replay move for move.
``docs/ai.md`` gives the measured win rates and times per turn. A level is made like any agent, by
its name (``kahuna.ai.registry.make_agent("hard")``).
"""

from __future__ import annotations

_NET = "c=1,mix=0.5,heuristic=ismcts-tuned,weights=net"
"""The network search's settings shared by master and grandmaster."""

LEVEL_SPECS: dict[str, str] = {
    "easy": "greedy:noise=0.3",
    "medium": "greedy:weights=greedy-tuned",
    "hard": "ismcts:iterations=250,weights=ismcts-tuned",
    "expert": "ismcts:iterations=1500,weights=ismcts-tuned",
    "master": f"net:iterations=500,{_NET}",
    # iterations: a bound on one decision's trees, all workers together (about 1.2 KB an iteration,
    # so 360 MB), not the budget: a core searches some 100,000 iterations a second.
    "grandmaster": f"net:seconds=1,workers=0,iterations=300000,{_NET}",
}
"""Level name → the agent spec it stands for, weakest first."""

LEVELS: tuple[str, ...] = tuple(LEVEL_SPECS)
"""The level names, weakest first: the one list that the terminal game, the server and the lobby
offer (the server adds the ``random`` baseline)."""

DEEP_SPECS: dict[str, str] = {
    "grandmaster": f"net:seconds=10,workers=0,iterations=600000,{_NET}",
}
"""The spec a level plays in a correspondence game, where nobody waits for the move: ``grandmaster``
thinks up to ten seconds a decision there, within 600,000 iterations (about 720 MB: memory, not
time, bounds it on two idle cores, which search some 200,000 iterations a second)."""


def deep_spec(level: str) -> str:
    """The spec of ``level`` for a correspondence game (the level itself when it has no deeper one)."""
    return DEEP_SPECS.get(level, level)
