"""Test harness for the workers and the reference deployment: private Redis and PostgreSQL servers.

The failure tests restart Redis and stop PostgreSQL, which the machine's shared services must
never suffer (other engineers' tests use them): each test module starts its own ``redis-server``
and its own PostgreSQL cluster (``initdb`` in a temporary directory, owned by the ``postgres``
user when the tests run as root, since ``initdb`` refuses root) on free loopback ports, and
removes them afterwards.
"""

from __future__ import annotations

import contextlib
import glob
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import loopback
import pytest
from server_harness import ROOT, free_port
from sqlalchemy import create_engine, select

from kahuna.server.db import schema, store

NGINX = "/usr/sbin/nginx"


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


@dataclass
class Deployment:
    """A ``deploy/run.sh`` running (``run_deployment``): its URLs, run directory and services."""

    url: str
    ws_url: str
    run_dir: Path
    db: str
    redis: PrivateRedis
    postgres: PrivatePostgres
    script: subprocess.Popen[bytes]
    instance_ports: list[int]

    def pid(self, name: str) -> int:
        return int((self.run_dir / f"{name}.pid").read_text())

    def log(self, name: str) -> str:
        return (self.run_dir / f"{name}.log").read_text(errors="replace")

    def instance_of(self, game_id: str) -> str:
        """The instance whose log shows WebSockets of ``game_id`` (nginx routes them by game)."""
        names = [name for name in ("instance1", "instance2") if f'"ws_open","game_id":"{game_id}"' in self.log(name)]
        assert len(names) == 1, names
        return names[0]

    def create(self, **body: Any) -> dict[str, Any]:
        response = loopback.post(f"{self.url}/api/games", json=body, timeout=10)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created

    def stored_actions(self, game_id: str) -> list[str]:
        engine = create_engine(store.database_url(self.db))
        try:
            with engine.connect() as conn:
                query = select(schema.actions.c.token).where(schema.actions.c.game_id == game_id)
                return list(conn.execute(query.order_by(schema.actions.c.seq)).scalars())
        finally:
            engine.dispose()


@contextlib.contextmanager
def run_deployment(tmp: Path) -> Iterator[Deployment]:
    """``deploy/run.sh`` on a private PostgreSQL cluster and Redis server (files in ``tmp``), until
    the block ends; then stopped as by Ctrl-C, and checked to have left nothing running."""
    if not os.path.exists(NGINX):
        _skip_or_fail("nginx is not installed")
    postgres = PrivatePostgres().start()
    redis = PrivateRedis(tmp).start()
    run_dir = tmp / "run"
    port = free_port()
    out_path = tmp / "run.out"
    command = ["bash", str(ROOT / "deploy" / "run.sh"), "--port", str(port), "--db", postgres.url]
    command += ["--broker", redis.url, "--run-dir", str(run_dir), "--claim-after", "3"]
    with open(out_path, "wb") as out:
        # SIGINT back to its default: the script is stopped with it below, and a suite started in
        # the background by a shell without job control would hand it down ignored.
        script = subprocess.Popen(
            command,
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
            env={**os.environ, "KAHUNA_DATA": str(tmp / "data")},  # the VAPID key every process shares
        )
    try:
        deadline = time.monotonic() + 90
        while "Kahuna deployment: open" not in out_path.read_text():
            assert script.poll() is None and time.monotonic() < deadline, out_path.read_text()
            time.sleep(0.1)
        ports = re.search(r"instances on ports (\d+) (\d+)", out_path.read_text())
        assert ports is not None
        url = f"http://127.0.0.1:{port}"
        yield Deployment(
            url,
            f"ws://127.0.0.1:{port}",
            run_dir,
            postgres.url,
            redis,
            postgres,
            script,
            [int(p) for p in ports.groups()],
        )
    finally:
        script.send_signal(signal.SIGINT)  # as Ctrl-C: the script stops everything it started
        try:
            script.wait(30)
        except subprocess.TimeoutExpired:  # the script is stuck: leave nothing running (the test fails below)
            script.kill()
            script.wait()
            for pid_file in run_dir.glob("*.pid"):
                with contextlib.suppress(ProcessLookupError, ValueError):
                    os.kill(int(pid_file.read_text()), signal.SIGKILL)
        redis.stop()
        postgres.destroy()
    assert "deploy/run.sh: stopped" in out_path.read_text()
    for name in ("instance1", "instance2", "worker1", "worker2", "nginx"):  # nothing left behind
        pid = int((run_dir / f"{name}.pid").read_text())
        assert not alive(pid), f"{name} still runs"


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat", encoding="ascii") as fh:
        return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
