"""Instances started at the same moment on one PostgreSQL database: every one of them serves.

Four ``kahuna serve --broker`` processes are started together on a new database, then four more on
the same database once it holds games (hot-seat games, one of them timed, a game against the AI, an
invitation), as a container orchestrator or ``deploy/run.sh`` starts them.
Each must answer, each AI level's bot account must exist exactly once, and no instance may log
anything at error level (nor leave a traceback or leaked semaphores on its standard error) from
its start to its stop. ``KAHUNA_STARTUP_ROUNDS`` sets how many times (each on a new database);
CI runs the default, docs/server.md gives the figures of a longer run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Any

import httpx
import loopback
import pytest
from scale_harness import create_database, drop_database, redis_url, require_service
from sqlalchemy import create_engine, func, select

from kahuna.ai.levels import LEVELS
from kahuna.server.db import schema, store
from kahuna.server.fairplay.verdict import REPORTER
from kahuna.server.games.ai_pool import available

__all__ = ["redis_url"]

pytestmark = [pytest.mark.pg, pytest.mark.redis, pytest.mark.long]  # a race between instances (docs/testing.md)

INSTANCES = 4
ROUNDS = int(os.environ.get("KAHUNA_STARTUP_ROUNDS", "1"))
ROOT = Path(__file__).resolve().parents[2]
LIMITS = ("games_burst=100000", "joins_burst=100000", "reads_burst=100000")
"""The per-address budgets live in the shared Redis, where other test runs draw from them too."""


class Instance:
    """One ``kahuna serve`` process; its standard error is kept in a file."""

    def __init__(self, tmp: Path, name: str, db_url: str, broker_url: str) -> None:
        self.log_path = tmp / f"{name}.log"
        limits = [arg for limit in LIMITS for arg in ("--limit", limit)]
        command = [sys.executable, "-m", "kahuna", "serve", "--port", "0", "--db", db_url, "--broker", broker_url]
        env = {**os.environ, "KAHUNA_DATA": str(tmp / name)}
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [*command, *limits], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=log, text=True
            )
        self.url = ""

    def serving(self) -> str:
        """Wait for the URL the instance prints, then for its first answer (it serves)."""
        stdout: IO[str] | None = self.process.stdout
        assert stdout is not None
        line = stdout.readline()  # printed once the app is built, before uvicorn serves
        assert line.startswith("Kahuna server: open "), f"no URL ({line!r}): {self.log()}"
        self.url = line.split()[3].rstrip("/")
        deadline = time.monotonic() + 120
        while True:  # the socket listens once the instance has started: until then, refused
            assert self.process.poll() is None, f"the instance exited: {self.log()}"
            try:
                answer = loopback.get(f"{self.url}/api/levels", timeout=30)
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, f"not serving after 120 s: {self.log()}"
                time.sleep(0.05)
        assert answer.status_code == 200, self.log()
        return self.url

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("an instance did not stop within 60 s: " + self.log()) from None
        if self.process.stdout is not None:
            self.process.stdout.close()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")


def _start_together(tmp: Path, db_url: str, broker_url: str) -> list[Instance]:
    tmp.mkdir()
    instances = [Instance(tmp, f"i{n}", db_url, broker_url) for n in range(INSTANCES)]
    try:
        for instance in instances:
            instance.serving()
    except BaseException:
        _stop_all(instances)
        raise
    return instances


def _stop_all(instances: list[Instance]) -> list[str]:
    """Stop every instance, also when one of them does not stop (a failed test leaves no process
    behind); what went wrong, one line per instance that did not stop."""
    errors = []
    for instance in instances:
        try:
            instance.stop()
        except AssertionError as error:
            errors.append(str(error))
    return errors


def _stop_and_check_logs(instances: list[Instance]) -> None:
    """Stop every instance, then: one JSON object per line, none at error level, no traceback."""
    errors = _stop_all(instances)
    assert not errors, "\n".join(errors)
    for instance in instances:
        text = instance.log()
        assert "leaked semaphore" not in text and "Traceback" not in text, text
        for line in text.splitlines():
            entry: dict[str, Any] = json.loads(line)
            assert entry["level"] not in ("error", "critical"), line
            assert entry.get("event") not in ("db_error", "bot_account_taken"), line


def _bot_accounts(db_url: str) -> list[str]:
    engine = create_engine(store.database_url(db_url))
    with engine.connect() as conn:
        names = list(conn.execute(select(schema.accounts.c.username).where(schema.accounts.c.is_bot)).scalars())
    engine.dispose()
    return sorted(names)


def _games(db_url: str) -> int:
    engine = create_engine(store.database_url(db_url))
    with engine.connect() as conn:
        count = int(conn.execute(select(func.count()).select_from(schema.games)).scalar() or 0)
    engine.dispose()
    return count


def _make_games(url: str) -> list[str]:
    """Games of the kinds an instance resumes or watches: a clock, an AI seat, an invitation."""
    made = []
    for body in (
        {"opponent": "hotseat", "seat": "first"},
        {"opponent": "hotseat", "seat": "first", "clock": {"initial": 600, "increment": 5}},
        {"opponent": "ai", "level": "easy", "seat": "first"},
        {"opponent": "human", "seat": "first"},
    ):
        answer = loopback.post(f"{url}/api/games", json=body, timeout=30)
        assert answer.status_code == 201, answer.text
        made.append(answer.json()["game_id"])
    return made


def test_instances_started_together_on_one_database_all_serve(tmp_path: Path, redis_url: str) -> None:
    require_service("PostgreSQL", "127.0.0.1", 5432)
    # the AI levels' bots and the server's own account (fair play's reporter), each made once
    expected = sorted([*(f"ai-{level}" for level in LEVELS if available(level)), REPORTER])
    for round_ in range(ROUNDS):
        db_url = create_database()
        try:
            new = _start_together(tmp_path / f"r{round_}-new", db_url, redis_url)
            try:
                game_ids = _make_games(new[0].url)
            finally:
                _stop_and_check_logs(new)
            assert _bot_accounts(db_url) == expected
            held = _start_together(tmp_path / f"r{round_}-old", db_url, redis_url)
            try:
                for instance, game_id in zip(held, game_ids, strict=True):  # each serves a stored game
                    summary = loopback.get(f"{instance.url}/api/games/{game_id}", timeout=30)
                    assert summary.status_code == 200 and summary.json()["game_id"] == game_id
            finally:
                _stop_and_check_logs(held)
            assert _bot_accounts(db_url) == expected
            assert _games(db_url) == len(game_ids)
        finally:
            drop_database(db_url)
