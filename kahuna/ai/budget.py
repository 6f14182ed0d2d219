"""The time budget of one decision of a level that thinks by time (``grandmaster``).

Its own module, light to import: the clock's time manager (:mod:`kahuna.ai.timed`), the server and
the arena make budgets without importing the search (:mod:`kahuna.ai.agents.timed_net`) that
spends them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TimeBudget:
    """How long one decision may think (``kahuna.ai.agents.timed_net`` says how it is spent)."""

    seconds: float
    """The budget of a decision, > 0."""
    hard_seconds: float
    """The most a close decision may take (>= ``seconds``)."""
    close: float = 0.02
    """The mean-value margin (win probability) under which the root counts as close."""

    def __post_init__(self) -> None:
        if not (0 < self.seconds <= self.hard_seconds <= 3600 and 0 <= self.close <= 1):
            raise ValueError("a time budget needs 0 < seconds <= hard_seconds <= 3600 and 0 <= close <= 1")

    @classmethod
    def of(cls, seconds: float, stretch: float = 2.0, close: float = 0.02) -> TimeBudget:
        """``seconds`` a decision, up to ``stretch`` times that when the root is close."""
        return cls(seconds, seconds * stretch, close)
