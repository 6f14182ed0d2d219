"""Structured logs: one JSON object per line, for each request, each game event and anything else logged.

What may appear: game ids (public), seats, actions as a spectator sees them, error codes, timings.
What never appears: tokens, invites, query strings, hands, the deck, face-down cards, error
messages sent to a seat (they may name its own cards).
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import Any

import orjson

log = logging.getLogger("kahuna.server")


def event(kind: str, **fields: Any) -> None:
    """Log one game or server event."""
    if log.isEnabledFor(logging.INFO):
        line = {"event": kind, **fields}
        try:  # orjson: the per-action line costs a fraction of json.dumps (docs/scaling.md)
            log.info(orjson.dumps(line, default=str).decode())
        except (orjson.JSONEncodeError, TypeError):  # a lone surrogate, an int over 64 bits
            log.info(json.dumps(line, separators=(",", ":"), default=str))


class JsonLineFormatter(logging.Formatter):
    """One JSON object per line, whatever is logged: an event's fields, or another logger's message;
    a traceback (or stack) goes inside the object as a string, never on lines of its own, so that
    every line a log collector reads parses alone."""

    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        message = record.getMessage()
        if record.name == "kahuna.server" and message.startswith("{"):
            line = f'{{"time":"{stamp}","level":"{record.levelname.lower()}",{message[1:]}'
        else:
            line = json.dumps(
                {"time": stamp, "level": record.levelname.lower(), "logger": record.name, "message": message}
            )
        extra = {}
        if record.exc_info:
            extra["traceback"] = self.formatException(record.exc_info)
        if record.stack_info:
            extra["stack"] = self.formatStack(record.stack_info)
        if extra:
            line = line[:-1] + "," + json.dumps(extra)[1:]
        return line


def configure(level: int = logging.INFO) -> None:
    """Send the server's log lines to standard error; silence uvicorn's own lines, which would
    print WebSocket query strings (seat tokens) and invite paths."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLineFormatter())
    log.handlers[:] = [handler]
    log.setLevel(level)
    log.propagate = False
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        other = logging.getLogger(name)
        other.handlers[:] = [handler]
        other.setLevel(logging.WARNING)
        other.propagate = False
