"""The server's log: one JSON object per line, a traceback inside its object, never on lines of its own."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from kahuna.server.common import logs
from kahuna.server.common.logs import JsonLineFormatter


@contextmanager
def _capture(logger: logging.Logger) -> Iterator[io.StringIO]:
    """What ``logger`` writes through the server's formatter (its settings restored afterwards)."""
    saved = (logger.handlers[:], logger.level, logger.propagate)
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(JsonLineFormatter())
    logger.handlers[:] = [handler]
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield out
    finally:
        logger.handlers[:], logger.level, logger.propagate = saved


def test_an_exception_is_logged_as_one_json_object_with_its_traceback() -> None:
    with _capture(logging.getLogger("uvicorn.error")) as out:
        try:
            raise ValueError("the lifespan failed")
        except ValueError:
            logging.getLogger("uvicorn.error").exception("Exception in 'lifespan' protocol")
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    entry = json.loads(lines[0])
    assert entry["level"] == "error" and entry["logger"] == "uvicorn.error"
    assert entry["message"] == "Exception in 'lifespan' protocol"
    assert entry["traceback"].startswith("Traceback (most recent call last):")
    assert "ValueError: the lifespan failed" in entry["traceback"]


def test_an_event_keeps_its_fields_and_gains_the_traceback_and_stack() -> None:
    with _capture(logs.log) as out:
        try:
            empty: dict[str, int] = {}
            empty["missing"]
        except KeyError:
            logs.log.error('{"event":"server_error","path":"/api/x"}', exc_info=True, stack_info=True)
        logs.event("started", resumed_games=2)
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["event"] == "server_error" and first["path"] == "/api/x" and first["level"] == "error"
    assert "KeyError: 'missing'" in first["traceback"] and first["stack"].startswith("Stack (most recent call last):")
    assert second == {"time": second["time"], "level": "info", "event": "started", "resumed_games": 2}


def test_an_event_line_written_without_a_record_is_the_line_of_its_record() -> None:
    formatter = JsonLineFormatter()
    for message in ('{"event":"action","game_id":"g","seat":1,"ms":0.42}', '{"event":"started"}'):
        record = logging.LogRecord(logs.log.name, logging.INFO, "(unknown file)", 0, message, None, None)
        assert formatter.event_line(record.created, message) == formatter.format(record)


@pytest.mark.parametrize("direct", [False, True])
def test_the_lines_of_a_turn_of_the_event_loop_are_written_together_and_none_is_lost(
    direct: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``LineHandler``: lines logged on an event loop are held until the loop's next turn, then written
    with one write, in order; a line logged where no loop runs is written at once, after any held;
    the same whether ``event`` hands the handler a record or (the handler ``configure`` set) the line."""
    writes: list[str] = []

    class Stream(io.StringIO):
        def write(self, text: str) -> int:
            writes.append(text)
            return super().write(text)

    stream = Stream()
    handler = logs.LineHandler(stream)
    handler.setFormatter(JsonLineFormatter())
    if direct:
        monkeypatch.setattr(logs, "_direct", handler)
    saved = (logs.log.handlers[:], logs.log.level, logs.log.propagate)
    logs.log.handlers[:], logs.log.propagate = [handler], False
    logs.log.setLevel(logging.INFO)

    async def turn() -> int:
        for n in range(3):
            logs.event("action", n=n)
        held = len(handler.held)
        await asyncio.sleep(0)  # the loop's next turn: the held lines are written
        await asyncio.sleep(0)
        return held

    try:
        logs.event("before", n=-1)
        assert asyncio.run(turn()) == 3
        logs.event("after", n=3)
    finally:
        logs.log.handlers[:], logs.log.level, logs.log.propagate = saved
    assert [json.loads(line)["n"] for line in stream.getvalue().splitlines()] == [-1, 0, 1, 2, 3]
    assert len(writes) == 3 and writes[1].count("\n") == 3
