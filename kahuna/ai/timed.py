"""AI seats on the clock: a level plays as itself while it has time, then its quick fallback.

Levels are budgeted in iterations, not seconds (``levels.py``), so a strong level's thinking time
depends on the machine. On a clock that must never cost it the game: while the seat has more than
:data:`RESERVE_SECONDS` left it plays its own level; below that it plays the quick level, whose
decisions take milliseconds, so that even a clock with no increment cannot run out
(``docs/ai.md`` gives the measured times per decision; the smallest offered clock,
``kahuna.clock.MIN_INITIAL``, is three times the reserve).
"""

from __future__ import annotations

from kahuna.ai.base import Agent

RESERVE_SECONDS = 20.0
"""Below this many seconds left, a timed AI seat switches to :data:`QUICK_LEVEL`."""
QUICK_LEVEL = "medium"


def agent_on_clock(agent: Agent, quick: Agent, seconds_left: float | None) -> Agent:
    """The agent to ask for this decision: ``agent`` untimed or with time to spare, else ``quick``."""
    return agent if seconds_left is None or seconds_left > RESERVE_SECONDS else quick


__all__ = ["QUICK_LEVEL", "RESERVE_SECONDS", "agent_on_clock"]
