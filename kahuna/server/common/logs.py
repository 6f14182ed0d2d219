"""Structured logs: one JSON line per request and per game event.

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

log = logging.getLogger("kahuna.server")


def event(kind: str, **fields: Any) -> None:
    """Log one game or server event."""
    if log.isEnabledFor(logging.INFO):
        log.info(json.dumps({"event": kind, **fields}, separators=(",", ":"), default=str))


class _JsonLineFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z"
        message = record.getMessage()
        if record.name == "kahuna.server" and message.startswith("{"):
            line = f'{{"time":"{stamp}","level":"{record.levelname.lower()}",{message[1:]}'
        else:
            line = json.dumps(
                {"time": stamp, "level": record.levelname.lower(), "logger": record.name, "message": message}
            )
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def configure(level: int = logging.INFO) -> None:
    """Send the server's log lines to standard error; silence uvicorn's own lines, which would
    print WebSocket query strings (seat tokens) and invite paths."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonLineFormatter())
    log.handlers[:] = [handler]
    log.setLevel(level)
    log.propagate = False
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        other = logging.getLogger(name)
        other.handlers[:] = [handler]
        other.setLevel(logging.WARNING)
        other.propagate = False
