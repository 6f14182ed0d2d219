"""Time controls and the game clock: Fischer clocks for real time, deadlines for correspondence.

The clock counts **turns**, not actions: a turn is all card plays up to the draw, ``pass`` or
``end`` (``Action.ends_turn``), so thinking over several card plays costs one turn's time.

* Real time (``{"initial": S, "increment": I}``): each seat has ``S`` seconds; the clock of the
  seat to move runs; when its turn ends, ``I`` seconds are added.
* Correspondence (``{"days": N}``): each turn may take up to ``N`` days.

This module does no I/O and reads no clock itself: every call takes ``now`` (seconds since the
epoch), so the server, the terminal and the tests decide what time it is, and a clock stored with a
game is rebuilt exactly after a restart. The seat whose deadline passes loses (``timeout``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

DAY = 86_400.0
MIN_INITIAL = 60
"""Fewest seconds of a real-time clock: enough for every AI level to finish a game (see ai/timed.py)."""
MAX_INITIAL = 3 * 3600
MAX_INCREMENT = 180
MAX_DAYS = 14


class ClockError(ValueError):
    """A time control that is malformed or out of the offered range; the message says which."""


@dataclass(frozen=True, slots=True)
class TimeControl:
    """A real-time control (``initial`` and ``increment`` in seconds) or a correspondence one
    (``days`` per turn). Untimed games have no time control at all (``None``)."""

    initial: int | None = None
    increment: int = 0
    days: int | None = None

    @property
    def correspondence(self) -> bool:
        return self.days is not None

    @property
    def turn_allowance(self) -> float:
        """Seconds each turn may take under correspondence (0 for real time)."""
        return 0.0 if self.days is None else self.days * DAY

    @classmethod
    def from_json(cls, data: object, min_initial: int = MIN_INITIAL) -> TimeControl | None:
        """``{"initial", "increment"}``, ``{"days"}`` or ``None`` (untimed); ``ClockError`` otherwise.

        ``min_initial`` is the smallest real-time clock offered (a server may lower it for tests)."""
        if data is None:
            return None
        if not isinstance(data, dict):
            raise ClockError('a clock is {"initial": seconds, "increment": seconds}, {"days": N} or null')
        keys = set(data)
        if keys == {"days"}:
            days = _whole(data["days"], "days")
            if not 1 <= days <= MAX_DAYS:
                raise ClockError(f"correspondence days must be 1 to {MAX_DAYS}, not {days}")
            return cls(days=days)
        if keys in ({"initial"}, {"initial", "increment"}):
            initial = _whole(data["initial"], "initial")
            increment = _whole(data.get("increment", 0), "increment")
            if not min_initial <= initial <= MAX_INITIAL:
                raise ClockError(f"initial time must be {min_initial} to {MAX_INITIAL} seconds, not {initial}")
            if not 0 <= increment <= MAX_INCREMENT:
                raise ClockError(f"increment must be 0 to {MAX_INCREMENT} seconds, not {increment}")
            return cls(initial=initial, increment=increment)
        raise ClockError(
            f"unknown clock fields {sorted(keys)}: use initial and increment (real time) or days (correspondence)"
        )

    @classmethod
    def parse(cls, text: str) -> TimeControl:
        """A command-line spelling: ``5+3`` (minutes + seconds of increment) or ``2d`` (days per turn)."""
        real = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*\+\s*(\d+)\s*", text)
        if real:
            minutes = float(real.group(1))
            if minutes * 60 != int(minutes * 60):
                raise ClockError(f"{text!r}: the minutes must come to whole seconds")
            control = cls.from_json({"initial": int(minutes * 60), "increment": int(real.group(2))})
        else:
            days = re.fullmatch(r"\s*(\d+)\s*d\s*", text)
            if not days:
                raise ClockError(f"{text!r} is not a clock: write MINUTES+SECONDS (5+3) or DAYS d (2d)")
            control = cls.from_json({"days": int(days.group(1))})
        assert control is not None
        return control

    def to_json(self) -> dict[str, int]:
        if self.days is not None:
            return {"days": self.days}
        assert self.initial is not None
        return {"initial": self.initial, "increment": self.increment}

    def describe(self) -> str:
        """``5+3`` or ``2 days per turn``."""
        if self.days is not None:
            return f"{self.days} day{'s' if self.days != 1 else ''} per turn"
        assert self.initial is not None
        minutes = self.initial / 60
        return f"{minutes:g}+{self.increment}"


def _whole(value: object, name: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise ClockError(f"{name} must be a whole number, not {value!r}")
    return value


@dataclass(slots=True)
class Clock:
    """The two clocks of a game. ``remaining[seat]`` is what the seat had when its clock last
    stopped (or started); the running seat's time left is ``remaining[running] - (now - since)``."""

    control: TimeControl
    remaining: list[float]
    running: int | None
    """The seat whose clock runs, or ``None`` (not started yet, or stopped at the end)."""
    since: float | None
    """When the running clock last started (seconds since the epoch)."""
    starts_by: float | None = None
    """A clock waiting for its players (``running`` is ``None``): when it starts at the latest, if
    they are not all there before (the first-move grace; seconds since the epoch)."""

    @classmethod
    def new(cls, control: TimeControl) -> Clock:
        """Both clocks full and stopped: a game's clock starts when both seats are taken."""
        full = control.turn_allowance if control.correspondence else float(control.initial or 0)
        return cls(control, [full, full], None, None)

    def copy(self) -> Clock:
        return Clock(self.control, self.remaining[:], self.running, self.since, self.starts_by)

    def start(self, seat: int, now: float) -> None:
        """Start ``seat``'s clock (the first turn, once both seats are taken and there)."""
        self.running, self.since, self.starts_by = seat, now, None

    def wait_for_players(self, now: float, grace: float) -> None:
        """Stay stopped until the players are there, for ``grace`` seconds at most: nobody's time
        runs out before they could see the board (lichess's first-move timer does the same)."""
        self.running, self.since, self.starts_by = None, None, now + grace

    @property
    def waiting(self) -> bool:
        """Whether the clock waits for its players (set by :meth:`wait_for_players`, not started yet)."""
        return self.running is None and self.starts_by is not None

    def due(self) -> float | None:
        """When the server must look at this clock next: the running seat's deadline, or when a
        waiting clock starts at the latest; ``None`` if neither."""
        return self.starts_by if self.waiting else self.deadline()

    def left(self, seat: int, now: float) -> float:
        """Seconds ``seat`` has left at ``now`` (negative once its deadline has passed)."""
        if seat == self.running and self.since is not None:
            return self.remaining[seat] - (now - self.since)
        return self.remaining[seat]

    def deadline(self) -> float | None:
        """When the running seat's time runs out, or ``None`` if no clock runs."""
        if self.running is None or self.since is None:
            return None
        return self.since + self.remaining[self.running]

    def flagged(self, now: float) -> int | None:
        """The seat whose time has run out at ``now``, if any."""
        deadline = self.deadline()
        return self.running if deadline is not None and now >= deadline else None

    def turn_ended(self, seat: int, now: float) -> None:
        """``seat`` ended its turn at ``now`` (in time): add the increment (real time) or refill
        the turn's allowance (correspondence), and start the other seat's clock. A clock still
        waiting for the players stays stopped (the turn cost no time)."""
        if self.waiting:
            return
        if self.control.correspondence:
            self.remaining[seat] = self.control.turn_allowance
        else:
            self.remaining[seat] = self.left(seat, now) + self.control.increment
        self.running, self.since = 1 - seat, now

    def stop(self, now: float) -> None:
        """The game ended: freeze both clocks as they are at ``now``."""
        if self.running is not None:
            self.remaining[self.running] = max(0.0, self.left(self.running, now))
        self.running, self.since, self.starts_by = None, None, None

    def to_json(self, now: float) -> dict[str, Any]:
        """For clients: the time control, the seconds left of each seat at ``now`` and which
        clock runs (clients count down locally and correct themselves on every message); a clock
        waiting for the players also says in how many seconds it starts at the latest."""
        out: dict[str, Any] = {
            "control": self.control.to_json(),
            "remaining": [round(max(0.0, self.left(s, now)), 3) for s in (0, 1)],
            "running": self.running,
        }
        if self.waiting:
            assert self.starts_by is not None
            out["starts_in"] = round(max(0.0, self.starts_by - now), 3)
        return out

    def to_store(self) -> dict[str, Any]:
        """Everything needed to rebuild this clock exactly (for the database)."""
        return {"control": self.control.to_json(), "remaining": self.remaining[:], "running": self.running,
                "since": self.since, "starts_by": self.starts_by}  # fmt: skip

    @classmethod
    def from_store(cls, data: dict[str, Any]) -> Clock:
        control = TimeControl.from_json(data["control"], min_initial=1)
        if control is None:
            raise ClockError("a stored clock needs a time control")
        remaining = [float(r) for r in data["remaining"]]
        running = data["running"]
        since = None if data["since"] is None else float(data["since"])
        starts_by = None if data.get("starts_by") is None else float(data["starts_by"])
        malformed = (running is None) != (since is None) or (starts_by is not None and running is not None)
        if len(remaining) != 2 or running not in (0, 1, None) or malformed:
            raise ClockError(f"malformed stored clock {data!r}")
        return cls(control, remaining, running, since, starts_by)


def format_seconds(seconds: float) -> str:
    """``4:05``, ``1:02:03``, ``2d 3h``; never negative."""
    s = max(0, int(seconds + 0.999))  # show 0:01 until the very end, as chess clocks do
    if s >= DAY:
        return f"{s // 86400}d {s % 86400 // 3600}h"
    if s >= 3600:
        return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"
    return f"{s // 60}:{s % 60:02d}"


__all__ = ["Clock", "ClockError", "TimeControl", "format_seconds"]
