"""The server's log: one JSON object per line, a traceback inside its object, never on lines of its own."""

from __future__ import annotations

import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

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
