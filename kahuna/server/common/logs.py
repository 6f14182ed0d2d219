"""Structured logs: one JSON object per line, for each request, each game event and anything else logged.

What may appear: game ids (public), seats, actions as a spectator sees them, error codes, timings.
What never appears: tokens, invites, query strings, hands, the deck, face-down cards, error
messages sent to a seat (they may name its own cards).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import sys
import time
from typing import Any, TextIO

import orjson

log = logging.getLogger("kahuna.server")


def event(kind: str, **fields: Any) -> None:
    """Log one game or server event.

    The record is handed to the logger's handlers as ``log.info`` would hand it, less the search of
    the caller's file and line up the stack (no formatter of the server's shows them): every action
    logs a line, and the search was a fifth of its cost (docs/scaling.md, issue 54)."""
    if log.isEnabledFor(logging.INFO):
        line = {"event": kind, **fields}
        try:  # orjson: the per-action line costs a fraction of json.dumps (docs/scaling.md)
            text = orjson.dumps(line, default=str).decode()
        except (orjson.JSONEncodeError, TypeError):  # a lone surrogate, an int over 64 bits
            text = json.dumps(line, separators=(",", ":"), default=str)
        log.handle(logging.LogRecord(log.name, logging.INFO, _UNKNOWN_FILE, 0, text, None, None, "event"))


_UNKNOWN_FILE = "(unknown file)"
"""What ``logging`` itself records as the file of a record whose caller it did not look for."""


class JsonLineFormatter(logging.Formatter):
    """One JSON object per line, whatever is logged: an event's fields, or another logger's message;
    a traceback (or stack) goes inside the object as a string, never on lines of its own, so that
    every line a log collector reads parses alone."""

    _second: int | None = None
    _second_text = ""

    def format(self, record: logging.LogRecord) -> str:
        second = int(record.created)
        if second != self._second:  # the date and time formatted once a second, not per line
            self._second_text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = second
        stamp = f"{self._second_text}.{int(record.msecs):03d}Z"
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


class LineHandler(logging.StreamHandler[TextIO]):
    """A stream handler that writes the lines logged on an event loop's thread together, once the
    loop has run what was ready: one write to the stream (a system call, and a chance for another
    thread to take the interpreter) for the lines of a turn of the loop rather than one per line,
    and every action logs a line (docs/scaling.md, issue 54). A line logged where no loop runs (a
    worker thread, before the server starts) is written at once, after the lines held; the held
    lines are written by :meth:`flush`, which ``logging`` also calls at exit."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__(stream)
        self.held: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:  # under the handler's lock (Handler.handle)
        try:
            line = self.format(record) + self.terminator
        except Exception:
            self.handleError(record)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None and not self.held:
            try:
                loop.call_soon(self.flush)
            except RuntimeError:  # the loop is closing: no later turn to write in
                loop = None
        self.held.append(line)
        if loop is None:
            self.flush()

    def flush(self) -> None:
        with self.lock if self.lock is not None else contextlib.nullcontext():
            try:
                if self.held:
                    text = "".join(self.held)
                    self.held.clear()
                    self.stream.write(text)
                self.stream.flush()
            except Exception:
                self.held.clear()
                self.handleError(logging.LogRecord(log.name, logging.ERROR, _UNKNOWN_FILE, 0, "", None, None))


def configure(level: int = logging.INFO) -> None:
    """Send the server's log lines to standard error (:class:`LineHandler`); silence uvicorn's own
    lines, which would print WebSocket query strings (seat tokens) and invite paths."""
    handler = LineHandler(sys.stderr)
    handler.setFormatter(JsonLineFormatter())
    log.handlers[:] = [handler]
    log.setLevel(level)
    log.propagate = False
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        other = logging.getLogger(name)
        other.handlers[:] = [handler]
        other.setLevel(logging.WARNING)
        other.propagate = False
