"""AI seats on the clock: how long a decision may think, and the quick fallback that cannot lose on time.

Two rules, from the outside in:

1. **The reserve.** While the seat has more than :func:`reserve` left it plays its own level; below
   that it plays the quick level, whose decisions take milliseconds, so that even a clock with no
   increment cannot run out (``docs/ai.md`` gives the measured times per decision; the smallest
   offered clock, ``kahuna.clock.MIN_INITIAL``, is three times the reserve).
2. **The share** (:func:`decision_budget`), for a level that thinks by time (``grandmaster``,
   :class:`~kahuna.ai.budget.TimeBudget`): the time above the reserve and a safety margin
   (:data:`LATENCY_SECONDS`) is spread over the decisions still to come (:data:`EXPECTED_TURNS`
   turns a seat plays, :data:`DECISIONS_PER_TURN` decisions a turn, measured), plus most of the
   increment a turn earns; never more than the level's own budget. A close decision may take up
   to twice its share (the search's own ``hard_seconds``), never more than
   :data:`MAX_SHARE_OF_LEFT` of what is left above the reserve. Levels budgeted in iterations
   (``master`` and below) take milliseconds and only need rule 1.
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from kahuna.ai.base import Agent
from kahuna.ai.budget import TimeBudget
from kahuna.clock import TimeControl
from kahuna.rules import Action, PlayerView

RESERVE_SECONDS = 20.0
"""Below this many seconds left, a timed AI seat switches to :data:`QUICK_LEVEL` (less on clocks
shorter than the offered ones, which a server allows only when told to: a third of the clock)."""
QUICK_LEVEL = "medium"

LATENCY_SECONDS = 1.5
"""Kept off every share as the worst case between the clock's reading and the move's arrival: a
server's queue hand-off to a worker process and back, the database write, the search's own overrun
(it looks at the clock every 16 iterations, well under a millisecond) and a loaded machine's
scheduling."""
EXPECTED_TURNS = 36
"""Turns a seat plays in a game: 29–35 in 12 games of ``master`` against itself (seeds 1000–1011,
``docs/ai.md``), rounded up so that a long game does not run the share dry."""
MIN_TURNS_TO_COME = 8
"""Turns still budgeted for however late the game: a game can run longer than expected."""
DECISIONS_PER_TURN = 2.0
"""Decisions with a choice a seat makes per turn: 1.8 on average in the same 12 games."""
MAX_SHARE_OF_LEFT = 0.25
"""The most one decision may take of the time above the reserve, even when close."""
TURN_ENDS = ("pass", "end")
"""The tokens besides draws (``d…``) that end a turn (``kahuna.rules.actions``)."""
MIN_SECONDS = 0.05
"""A share below this is not worth a search by time: the seat plays quickly instead."""


def reserve(control: TimeControl) -> float:
    """The time a seat keeps for quick play under ``control``."""
    return RESERVE_SECONDS if control.initial is None else min(RESERVE_SECONDS, control.initial / 3)


def short_of_time(seconds_left: float | None, control: TimeControl) -> bool:
    """Whether a seat with ``seconds_left`` (``None``: untimed) must play quickly now."""
    return seconds_left is not None and seconds_left <= reserve(control)


def agent_on_clock(agent: Agent, quick: Agent, seconds_left: float | None, control: TimeControl) -> Agent:
    """The agent to ask for this decision: ``agent`` untimed or with time to spare, else ``quick``."""
    return quick if short_of_time(seconds_left, control) else agent


@runtime_checkable
class TimedAgent(Protocol):
    """An agent that thinks by time and can be given a budget per decision (``grandmaster``)."""

    name: str
    budget: TimeBudget | None

    def choose(self, view: PlayerView, rng: random.Random) -> Action: ...

    def choose_within(self, view: PlayerView, rng: random.Random, budget: TimeBudget | None) -> Action: ...


def decision_budget(own: TimeBudget, seconds_left: float, control: TimeControl, turns_played: int) -> TimeBudget | None:
    """The budget of one decision of a level thinking by ``own`` budget, with ``seconds_left`` on a
    real-time ``control`` after ``turns_played`` of its turns; ``None``: too little time to search
    (play quickly). Correspondence clocks leave ``own`` as it is."""
    if control.correspondence:
        return own
    usable = seconds_left - reserve(control) - LATENCY_SECONDS
    if usable <= 0:
        return None
    decisions = max(MIN_TURNS_TO_COME, EXPECTED_TURNS - turns_played) * DECISIONS_PER_TURN
    share = usable / decisions + 0.8 * control.increment / DECISIONS_PER_TURN
    ceiling = MAX_SHARE_OF_LEFT * usable
    seconds = min(own.seconds, share, ceiling)
    if seconds < MIN_SECONDS:
        return None
    hard = min(own.hard_seconds * seconds / own.seconds, ceiling)
    return TimeBudget(seconds, max(seconds, hard), own.close)


def turns_played(view: PlayerView) -> int:
    """Turns the seat to move has finished (about half of all finished turns). A view's history
    hides the other seat's discards (``-?``); only draws, ``pass`` and ``end`` end a turn."""
    return sum(1 for token in view.history if token[:1] == "d" or token in TURN_ENDS) // 2


def choose_on_clock(
    agent: Agent,
    quick: Agent,
    view: PlayerView,
    rng: random.Random,
    seconds_left: float | None,
    control: TimeControl | None,
) -> Action:
    """One decision on a clock (``None``: untimed), by both rules of the module: the quick level when
    short of time, a thinking-by-time level within its share, any other level as itself."""
    if control is None or seconds_left is None:
        return agent.choose(view, rng)
    if short_of_time(seconds_left, control):
        return quick.choose(view, rng)
    if isinstance(agent, TimedAgent) and agent.budget is not None:
        budget = decision_budget(agent.budget, seconds_left, control, turns_played(view))
        return quick.choose(view, rng) if budget is None else agent.choose_within(view, rng, budget)
    return agent.choose(view, rng)


__all__ = [
    "DECISIONS_PER_TURN",
    "EXPECTED_TURNS",
    "LATENCY_SECONDS",
    "QUICK_LEVEL",
    "RESERVE_SECONDS",
    "TimedAgent",
    "agent_on_clock",
    "choose_on_clock",
    "decision_budget",
    "reserve",
    "short_of_time",
    "turns_played",
]
