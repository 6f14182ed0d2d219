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
from kahuna.clock import TimeControl

RESERVE_SECONDS = 20.0
"""Below this many seconds left, a timed AI seat switches to :data:`QUICK_LEVEL` (less on clocks
shorter than the offered ones, which a server allows only when told to: a third of the clock)."""
QUICK_LEVEL = "medium"


def reserve(control: TimeControl) -> float:
    """The time a seat keeps for quick play under ``control``."""
    return RESERVE_SECONDS if control.initial is None else min(RESERVE_SECONDS, control.initial / 3)


def short_of_time(seconds_left: float | None, control: TimeControl) -> bool:
    """Whether a seat with ``seconds_left`` (``None``: untimed) must play quickly now."""
    return seconds_left is not None and seconds_left <= reserve(control)


def agent_on_clock(agent: Agent, quick: Agent, seconds_left: float | None, control: TimeControl) -> Agent:
    """The agent to ask for this decision: ``agent`` untimed or with time to spare, else ``quick``."""
    return quick if short_of_time(seconds_left, control) else agent


__all__ = ["QUICK_LEVEL", "RESERVE_SECONDS", "agent_on_clock", "reserve", "short_of_time"]
