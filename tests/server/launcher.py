"""``kahuna serve`` for a test, forked from a process that has imported the server already.

A ``kahuna serve`` started as ``python -m kahuna serve`` spends about a second of CPU importing
FastAPI, SQLAlchemy, Alembic and the server before it answers, and the suite starts several
hundred of them. :func:`launch` forks each from a ``multiprocessing`` fork server that imported
those modules once (its ``preload``), so a start pays the fork and the server's own start-up only.
The child is still a process of its own with its own database, log file, environment, signals and
exit status, and it runs the same ``kahuna.cli.main`` as the command line.

``KAHUNA_TEST_FRESH_PROCESSES=1`` starts every server as a new interpreter instead (``make
coverage`` does: coverage measures a new interpreter, not a fork of one it never saw start).
"""

from __future__ import annotations

import atexit
import multiprocessing
import os
import subprocess
import sys
from collections.abc import Sequence
from multiprocessing import resource_tracker
from multiprocessing.context import ForkServerContext, ForkServerProcess
from pathlib import Path
from typing import Protocol

PRELOAD = ["kahuna.cli", "kahuna.server.app", "kahuna.server.serve"]
"""What the fork server imports once: the command line and the whole server behind it."""

FRESH = os.environ.get("KAHUNA_TEST_FRESH_PROCESSES", "") not in ("", "0")


class ServerProcess(Protocol):
    """What the tests do with a server's process: the part of :class:`subprocess.Popen` both kinds have."""

    @property
    def pid(self) -> int: ...

    @property
    def returncode(self) -> int | None: ...

    def poll(self) -> int | None: ...

    def wait(self, timeout: float | None = None) -> int: ...

    def send_signal(self, sig: int) -> None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...


class Forked:
    """A forked server, answering as a :class:`subprocess.Popen` does."""

    def __init__(self, process: ForkServerProcess, args: Sequence[str]) -> None:
        self.process = process
        self.args = list(args)

    @property
    def pid(self) -> int:
        pid = self.process.pid
        assert pid is not None
        return pid

    @property
    def returncode(self) -> int | None:
        return self.process.exitcode

    def poll(self) -> int | None:
        return self.process.exitcode

    def wait(self, timeout: float | None = None) -> int:
        self.process.join(timeout)
        code = self.process.exitcode
        if code is None:
            raise subprocess.TimeoutExpired(self.args, timeout or 0)
        return code

    def send_signal(self, sig: int) -> None:
        if self.process.exitcode is None:
            os.kill(self.pid, sig)

    def terminate(self) -> None:
        self.process.terminate()

    def kill(self) -> None:
        self.process.kill()


_context: ForkServerContext | None = None
_running: list[Forked] = []


def _fork_server() -> ForkServerContext:
    global _context
    if _context is None:
        _context = multiprocessing.get_context("forkserver")
        _context.set_forkserver_preload(PRELOAD)
        atexit.register(_stop_left_over)
    return _context


def _stop_left_over() -> None:
    """A server a test left running would hold the test process at exit (multiprocessing joins its
    children there): end it, as an orphaned ``kahuna serve`` would have been left to end."""
    for server in _running:
        if server.poll() is None:
            server.kill()
            server.wait(10)


def _own_resource_tracker() -> None:
    """Forget the fork server's resource tracker, which a forked child is handed: the server starts
    its own at its first AI worker, as a ``kahuna serve`` started from the command line does (a
    test checks that it ends with the server)."""
    tracker = getattr(resource_tracker, "_resource_tracker")  # noqa: B009 - private to multiprocessing
    tracker._fd = None
    tracker._pid = None


def _serve(args: list[str], cwd: str, env: dict[str, str], log_path: str) -> None:
    """The forked child: the test's folder, environment and log, then the command line's own ``main``."""
    _own_resource_tracker()
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update(env)
    log = os.open(log_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.dup2(log, 1)
    os.dup2(log, 2)
    os.close(log)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    from kahuna.cli import main

    sys.argv = ["kahuna", *args]
    sys.exit(main(args))


def launch(args: Sequence[str], log_path: Path, env: dict[str, str], cwd: Path | None = None) -> ServerProcess:
    """``kahuna ARGS`` with standard output and error appended to ``log_path``."""
    folder = str(cwd or Path.cwd())
    if FRESH:
        with open(log_path, "ab") as log:
            return subprocess.Popen(
                [sys.executable, "-m", "kahuna", *args],
                cwd=folder,
                env=env,
                stdout=log,
                stderr=log,
                stdin=subprocess.DEVNULL,
            )
    process = _fork_server().Process(target=_serve, args=(list(args), folder, env, str(log_path)))
    process.start()
    forked = Forked(process, ["kahuna", *args])
    _running[:] = [server for server in _running if server.poll() is None]
    _running.append(forked)
    return forked
