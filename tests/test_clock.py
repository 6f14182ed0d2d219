"""Time controls and the clock (``kahuna.clock``): parsing, bounds, Fischer and correspondence."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from kahuna.clock import DAY, Clock, ClockError, TimeControl, format_seconds


@pytest.mark.parametrize(
    ("data", "expected"),
    [(None, None), ({"initial": 300, "increment": 3}, TimeControl(300, 3)), ({"initial": 60}, TimeControl(60, 0)),
     ({"days": 3}, TimeControl(days=3))],
)  # fmt: skip
def test_time_controls_from_json(data: object, expected: TimeControl | None) -> None:
    assert TimeControl.from_json(data) == expected
    if expected is not None:
        assert TimeControl.from_json(expected.to_json()) == expected


@pytest.mark.parametrize(
    ("data", "words"),
    [({"initial": 300, "increment": -1}, "increment must be"), ({"days": 10000}, "days must be"),
     ({"days": 0}, "days must be"), ({"initial": 5}, "initial time must be"), ({"initial": "300"}, "whole number"),
     ({"initial": 300.5}, "whole number"), ({"initial": True}, "whole number"), ({"minutes": 5}, "unknown clock"),
     ({"initial": 300, "days": 2}, "unknown clock"), ([300, 3], "a clock is"), ("5+3", "a clock is")],
)  # fmt: skip
def test_bad_time_controls_say_what_is_wrong(data: object, words: str) -> None:
    with pytest.raises(ClockError, match=words):
        TimeControl.from_json(data)


def test_command_line_spellings() -> None:
    assert TimeControl.parse("5+3") == TimeControl(300, 3)
    assert TimeControl.parse("1.5+0") == TimeControl(90, 0)
    assert TimeControl.parse("2d") == TimeControl(days=2)
    assert TimeControl.parse("5+3").describe() == "5+3" and TimeControl(days=1).describe() == "1 day per turn"
    for bad in ("5", "+3", "5+", "d", "0.01+0", "3 days"):
        with pytest.raises(ClockError):
            TimeControl.parse(bad)


def test_fischer_clock_counts_turns_and_adds_the_increment() -> None:
    clock = Clock.new(TimeControl(300, 3))
    assert clock.deadline() is None and clock.flagged(10**9) is None  # not started: nothing runs
    clock.start(0, 1000.0)
    assert clock.left(0, 1010.0) == 290.0 and clock.left(1, 1010.0) == 300.0
    clock.turn_ended(0, 1010.0)
    assert clock.remaining == [293.0, 300.0] and clock.running == 1 and clock.deadline() == 1310.0
    assert clock.flagged(1309.9) is None and clock.flagged(1310.0) == 1
    clock.stop(1400.0)
    assert clock.remaining == [293.0, 0.0] and clock.running is None
    assert clock.to_json(5000.0) == {"control": {"initial": 300, "increment": 3}, "remaining": [293.0, 0.0],
                                     "running": None}  # fmt: skip


def test_correspondence_gives_each_turn_its_days() -> None:
    clock = Clock.new(TimeControl(days=2))
    clock.start(0, 0.0)
    clock.turn_ended(0, 1.5 * DAY)
    assert clock.remaining == [2 * DAY, 2 * DAY] and clock.deadline() == 3.5 * DAY
    assert clock.flagged(3.5 * DAY) == 1


@given(st.lists(st.floats(0, 400, allow_nan=False), min_size=1, max_size=60), st.integers(0, 10))
def test_time_used_is_the_time_that_passed(thinking: list[float], increment: int) -> None:
    """Whatever the turn lengths, each seat's time left is its initial time plus its increments
    minus the time it spent; the stored form rebuilds the same clock."""
    clock = Clock.new(TimeControl(600, increment))
    now = 0.0
    clock.start(0, now)
    spent = [0.0, 0.0]
    turns = [0, 0]
    for seconds in thinking:
        seat = clock.running
        assert seat is not None
        now += seconds
        spent[seat] += seconds
        turns[seat] += 1
        clock.turn_ended(seat, now)
        assert Clock.from_store(clock.to_store()) == clock
    for seat in (0, 1):
        assert clock.left(seat, now) == pytest.approx(600 + increment * turns[seat] - spent[seat])


def test_clock_format() -> None:
    assert [format_seconds(s) for s in (0, -3, 0.2, 59.2, 61, 3600, 3725, 2 * DAY + 3 * 3600)] == [
        "0:00", "0:00", "0:01", "1:00", "1:01", "1:00:00", "1:02:05", "2d 3h"
    ]  # fmt: skip


def test_a_clock_waiting_for_the_players_costs_no_time_until_it_starts() -> None:
    clock = Clock.new(TimeControl(60, 5))
    clock.wait_for_players(1000.0, 30)
    assert clock.waiting and clock.due() == 1030.0 and clock.deadline() is None
    assert clock.to_json(1010.0) == {"control": {"initial": 60, "increment": 5}, "remaining": [60.0, 60.0],
                                     "running": None, "starts_in": 20.0}  # fmt: skip
    clock.turn_ended(0, 1020.0)  # a turn played while waiting: no time used, no increment
    assert clock.remaining == [60.0, 60.0] and clock.running is None and clock.waiting
    assert Clock.from_store(clock.to_store()) == clock
    clock.start(1, 1025.0)
    assert not clock.waiting and clock.due() == clock.deadline() == 1085.0 and "starts_in" not in clock.to_json(1030)
    with pytest.raises(ClockError):
        Clock.from_store({**clock.to_store(), "starts_by": 1030.0})  # running and waiting at once
