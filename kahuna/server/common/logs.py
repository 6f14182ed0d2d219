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
import os
import sys
import time
from typing import Any, TextIO

import orjson

log = logging.getLogger("kahuna.server")


def event(kind: str, **fields: Any) -> None:
    """Log one game or server event.

    Every action logs a line, so the line costs what it must (docs/scaling.md, issue 54): when the
    logger writes through the one :class:`LineHandler` that :func:`configure` set (no filter), the
    line is formatted as :class:`JsonLineFormatter` would and handed to it with no ``LogRecord``;
    otherwise the record is handed to the logger's handlers as ``log.info`` would, less the search of
    the caller's file and line up the stack (no formatter of the server's shows them)."""
    if log.isEnabledFor(logging.INFO):
        line = {"event": kind, **fields}
        try:  # orjson: the per-action line costs a fraction of json.dumps (docs/scaling.md)
            text = orjson.dumps(line, default=str).decode()
        except (orjson.JSONEncodeError, TypeError):  # a lone surrogate, an int over 64 bits
            text = json.dumps(line, separators=(",", ":"), default=str)
        handlers = log.handlers
        direct = _direct
        if direct is not None and len(handlers) == 1 and handlers[0] is direct and direct.plain() and not log.filters:
            direct.line(text)
        else:
            log.handle(logging.LogRecord(log.name, logging.INFO, _UNKNOWN_FILE, 0, text, None, None, "event"))


_direct: LineHandler | None = None
"""The handler :func:`configure` set, to which :func:`event` hands its lines directly."""

_UNKNOWN_FILE = "(unknown file)"
"""What ``logging`` itself records as the file of a record whose caller it did not look for."""


class JsonLineFormatter(logging.Formatter):
    """One JSON object per line, whatever is logged: an event's fields, or another logger's message;
    a traceback (or stack) goes inside the object as a string, never on lines of its own, so that
    every line a log collector reads parses alone."""

    _second: int | None = None
    _second_text = ""

    def stamp(self, created: float) -> str:
        """The time of a record made at ``created`` (seconds since the epoch), to the millisecond
        (``LogRecord.msecs``); the date and time are formatted once a second, not per line."""
        second = int(created)
        if second != self._second:
            self._second_text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(second))
            self._second = second
        return f"{self._second_text}.{int((created - second) * 1000):03d}Z"

    def event_line(self, created: float, message: str) -> str:
        """The line of an info record of the server's logger whose message is ``message``, an event's
        JSON object: ``format`` of such a record, without the record."""
        return f'{{"time":"{self.stamp(created)}","level":"info",{message[1:]}'

    def format(self, record: logging.LogRecord) -> str:
        stamp = self.stamp(record.created)
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
        os.register_at_fork(after_in_child=self.held.clear)  # the parent writes what it held

    def plain(self) -> bool:
        """Whether an info line of an event may skip the record (:func:`event`): the server's
        formatter, no filter, a level that lets info through."""
        return type(self.formatter) is JsonLineFormatter and not self.filters and self.level <= logging.INFO

    def line(self, message: str) -> None:
        """An event's line (``message``, its JSON object) logged now, without a ``LogRecord``."""
        assert isinstance(self.formatter, JsonLineFormatter)
        line = self.formatter.event_line(time.time(), message) + self.terminator
        with self.lock if self.lock is not None else contextlib.nullcontext():
            self._hold(line)

    def emit(self, record: logging.LogRecord) -> None:  # under the handler's lock (Handler.handle)
        try:
            line = self.format(record) + self.terminator
        except Exception:
            self.handleError(record)
            return
        self._hold(line)

    def _hold(self, line: str) -> None:
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
    global _direct
    handler = _direct = LineHandler(sys.stderr)
    handler.setFormatter(JsonLineFormatter())
    log.handlers[:] = [handler]
    log.setLevel(level)
    log.propagate = False
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access"):
        other = logging.getLogger(name)
        other.handlers[:] = [handler]
        other.setLevel(logging.WARNING)
        other.propagate = False
