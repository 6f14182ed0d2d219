"""Test harness for the workers and the reference deployment: private Redis and PostgreSQL servers.

The failure tests restart Redis and stop PostgreSQL, which the machine's shared services must
never suffer (other engineers' tests use them): each test module starts its own ``redis-server``
and its own PostgreSQL cluster (``initdb`` in a temporary directory, owned by the ``postgres``
user when the tests run as root, since ``initdb`` refuses root) on free loopback ports, and
removes them afterwards.
"""

from __future__ import annotations

import glob
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from server_harness import ROOT, free_port


def _skip_or_fail(message: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(message + " (CI must run this test)")
    pytest.skip(message)


class Child:
    """A child process whose standard output and error go to ``log_path``."""

    def __init__(self, command: list[str], log_path: Path, env: dict[str, str] | None = None) -> None:
        self.command = command
        self.log_path = log_path
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> Child:
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                self.command, cwd=ROOT, env=self.env, stdout=log, stderr=log, stdin=subprocess.DEVNULL
            )
        return self

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        if self.alive():
            assert self.process is not None
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self, timeout: float = 10) -> None:
        if self.alive():
            assert self.process is not None
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""


def kahuna(*args: str) -> list[str]:
    return [sys.executable, "-m", "kahuna", *args]


class PrivateRedis:
    """``redis-server`` on a free loopback port, without persistence (a restart loses everything)."""

    def __init__(self, tmp: Path) -> None:
        if shutil.which("redis-server") is None:
            _skip_or_fail("redis-server is not installed")
        self.tmp = tmp
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.child: Child | None = None

    def start(self) -> PrivateRedis:
        command = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
        command += ["--dir", str(self.tmp)]
        self.child = Child(command, self.tmp / f"redis-{self.port}.log").start()
        _wait_for(lambda: _redis_ping(self.port), f"redis-server on port {self.port}")
        return self

    def restart(self, down_for: float = 0.0) -> None:
        self.stop()
        time.sleep(down_for)
        self.start()

    def stop(self) -> None:
        if self.child is not None:
            self.child.stop()


def _redis_ping(port: int) -> bool:
    out = subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True, text=True, check=False)
    return out.stdout.strip() == "PONG"


def _pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        _skip_or_fail(f"PostgreSQL's {name} is not installed")
    return found[-1]


class PrivatePostgres:
    """A PostgreSQL cluster of its own (``initdb``, trust auth, role ``postgres``) on a free port."""

    def __init__(self) -> None:
        self.port = free_port()
        # Not under pytest's temporary directory: another pytest session on the machine resets
        # its root to mode 0700, which would lock the postgres user out in the middle of a test.
        self.dir = Path(tempfile.mkdtemp(prefix="kahuna-pg-"))
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        self._as_postgres: list[str] = []
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            self._as_postgres = ["runuser", "-u", "postgres", "--"]
            shutil.chown(self.dir, "postgres", "postgres")
        data = self.dir / "data"
        self._run([_pg_bin("initdb"), "-D", str(data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"])

    def _run(self, command: list[str]) -> None:
        out = subprocess.run([*self._as_postgres, *command], capture_output=True, text=True, check=False)
        assert out.returncode == 0, out.stdout + out.stderr

    def start(self) -> PrivatePostgres:
        options = f"-p {self.port} -k {self.dir} -c listen_addresses=127.0.0.1 -c fsync=off"
        log = str(self.dir / "server.log")
        self._run([_pg_bin("pg_ctl"), "-D", str(self.dir / "data"), "-o", options, "-l", log, "-w", "start"])
        return self

    def stop(self) -> None:
        """``pg_ctl stop -m fast``: connections are cut, the cluster shuts down cleanly."""
        self._run([_pg_bin("pg_ctl"), "-D", str(self.dir / "data"), "-m", "fast", "-w", "stop"])

    def running(self) -> bool:
        return (self.dir / "data" / "postmaster.pid").exists()

    def destroy(self) -> None:
        """Stop the cluster if it runs and remove its directory."""
        if self.running():
            self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def _wait_for(check: object, what: str, timeout: float = 20) -> None:
    assert callable(check)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"{what} did not come up")
