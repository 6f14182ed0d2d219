"""``cmd:PROGRAM ARGS``: an agent that is a separate program speaking the bot protocol.

The protocol (``docs/bot-protocol.md``): one JSON object per line on the program's standard
input — ``hello`` once, ``move`` for every decision (the seat's player view and the legal tokens),
``end`` when the game is over — and one line back per ``move``: a token (``E>J``) or
``{"action": "E>J"}``. The program is started at the first decision and stopped by :meth:`close`.
Anything that goes wrong (cannot start, exits, no answer within the time limit, an answer that is
not a legal action) kills the program and raises :class:`AgentError` saying what happened, so the
arena scores a forfeit and carries on.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import random
import shlex
import signal
import subprocess
import threading
from collections import deque
from typing import IO, Any, Never

from kahuna.ai.base import AgentError
from kahuna.rules import Action, PlayerView, legal_actions_of
from kahuna.rules.actions import BY_TOKEN
from kahuna.rules.board import SEAT_NAMES

PROTOCOL = "kahuna-bot/1"
DEFAULT_TIMEOUT = 10.0
"""Seconds a bot may think about one move."""
_EOF = None


def parse_command(text: str) -> tuple[list[str], float]:
    """``[timeout=S] PROGRAM ARGS`` → (argv, timeout); ``ValueError`` with the reason otherwise."""
    try:
        words = shlex.split(text)
    except ValueError as exc:
        raise ValueError(f"cannot read the bot command {text!r}: {exc}") from None
    timeout = DEFAULT_TIMEOUT
    if words and words[0].startswith("timeout="):
        value = words.pop(0).partition("=")[2]
        try:
            timeout = float(value)
        except ValueError:
            raise ValueError(f"timeout needs a number of seconds, not {value!r}") from None
        if not timeout > 0:
            raise ValueError("timeout must be positive")
    if not words:
        raise ValueError("cmd: needs a program to run, e.g. cmd:python3 examples/bot.py")
    return words, timeout


class ExternalAgent:
    """A bot program run with ``argv``; each answer must come within ``timeout`` seconds."""

    def __init__(self, argv: list[str], timeout: float = DEFAULT_TIMEOUT, name: str | None = None) -> None:
        self.argv = argv
        self.timeout = timeout
        self.name = name or "cmd:" + shlex.join(argv)
        self._process: subprocess.Popen[str] | None = None
        self._lines: queue.Queue[str | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=5)
        self._stderr_reader: threading.Thread | None = None

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        legal = legal_actions_of(view)
        tokens = [a.token for a in legal]
        if self._process is None:
            self._start(view)
        self._send({"type": "move", "view": view.to_json(), "legal": tokens})
        answer = self._answer()
        token = _token_of(answer)
        if token is None or token not in tokens:
            shown = " ".join(tokens[:12]) + (" …" if len(tokens) > 12 else "")
            self._fail(f"answered {answer[:80]!r}, which is not one of the legal actions ({shown})")
        return BY_TOKEN[token]

    def close(self) -> None:
        """Says ``end``, gives the program a moment to exit, then stops it."""
        process = self._process
        if process is None:
            return
        with contextlib.suppress(AgentError):
            self._send({"type": "end"})
        if self._process is None:  # it had already exited
            return
        with contextlib.suppress(OSError, ValueError):
            assert process.stdin is not None
            process.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=1.0)
        self._kill()

    # ------------------------------------------------------------ plumbing

    def _start(self, view: PlayerView) -> None:
        try:
            process = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                bufsize=1,
                start_new_session=True,
            )
        except OSError as exc:
            raise AgentError(f"cannot start bot {shlex.join(self.argv)!r}: {exc.strerror or exc}") from None
        self._process = process
        self._lines = queue.Queue()  # a fresh start: nothing left over from an earlier process
        self._stderr = deque(maxlen=5)
        assert process.stdout is not None and process.stderr is not None
        threading.Thread(target=_pump, args=(process.stdout, self._lines), daemon=True).start()
        self._stderr_reader = threading.Thread(target=_drain, args=(process.stderr, self._stderr), daemon=True)
        self._stderr_reader.start()
        seat = view.seat if view.seat is not None else 0
        self._send(
            {"type": "hello", "protocol": PROTOCOL, "seat": seat, "colour": SEAT_NAMES[seat], "timeout": self.timeout}
        )

    def _send(self, message: dict[str, Any]) -> None:
        process = self._process
        assert process is not None and process.stdin is not None
        try:
            process.stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            self._fail_exited()

    def _answer(self) -> str:
        try:
            line = self._lines.get(timeout=self.timeout)
        except queue.Empty:
            self._fail(f"gave no answer within {self.timeout:g} s")
        if line is _EOF:
            self._fail_exited()
        return line.strip()

    def _fail_exited(self) -> Never:
        process = self._process
        assert process is not None
        try:
            status: int | None = process.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            status = None
        if self._stderr_reader is not None:
            self._stderr_reader.join(timeout=1.0)  # so that its last words are read
        said = f"; its last words: {self._stderr[-1][:200]!r}" if self._stderr else ""
        self._fail(f"exited (status {status}){said}" if status is not None else f"closed its output{said}")

    def _fail(self, why: str) -> Never:
        self._kill()
        raise AgentError(f"bot {self.name!r} {why}")

    def _kill(self) -> None:
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        with contextlib.suppress(OSError, ValueError):
            if process.stdin is not None:
                process.stdin.close()
        self._process = None


def _pump(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    """Reader thread: the bot's output lines, then ``_EOF``; it owns and closes the stream."""
    with stream, contextlib.suppress(OSError, ValueError):
        for line in stream:
            lines.put(line)
    lines.put(_EOF)


def _drain(stream: IO[str], last: deque[str]) -> None:
    """Reader thread: keeps the last lines the bot wrote to standard error."""
    with stream, contextlib.suppress(OSError, ValueError):
        for line in stream:
            if line.strip():
                last.append(line.strip())


def _token_of(answer: str) -> str | None:
    """The token in an answer line: the line itself, or the ``action`` of a JSON object."""
    if answer.startswith("{"):
        try:
            data = json.loads(answer)
        except json.JSONDecodeError:
            return None
        action = data.get("action") if isinstance(data, dict) else None
        return action if isinstance(action, str) else None
    return answer or None


def make(options: str) -> ExternalAgent:
    """Registry factory for ``cmd:[timeout=S] PROGRAM ARGS``."""
    from kahuna.ai.spec import SpecError

    try:
        argv, timeout = parse_command(options)
    except ValueError as exc:
        raise SpecError(str(exc)) from None
    return ExternalAgent(argv, timeout, name="cmd:" + options.strip())
