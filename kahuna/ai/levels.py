"""The named levels: fixed agent configurations, each measured to beat the one below.

Budgets are iteration counts, not seconds, so that a level plays the same on any machine (only
slower or faster) and a game replays identically under a seed. ``docs/ai.md`` gives the measured
win rates and times per turn. A level is made like any agent, by its name
(``kahuna.ai.registry.make_agent("hard")``).
"""

from __future__ import annotations

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
