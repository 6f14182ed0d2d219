"""A fresh ``kahuna serve`` for the browser tests (SQLite in a folder of the test's): the session's
``server`` fixture (conftest.py), and a module's own where other tests' games would disturb it
(the Watch page lists every game being played)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import launcher
import pytest
from websockets.sync.client import connect

TEST_SEED = os.environ.get("KAHUNA_TEST_SEED", "46")
"""The server's draws (deals, first seats, AI seeds) come from this seed (``--test-seed``,
docs/testing.md), as tests/server/server_harness.py's do: a run is repeatable."""


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serving(data: Path, *extra: str) -> Iterator[str]:
    """A fresh ``kahuna serve`` with its database in ``data``: its base URL while the block runs (the
    session's ``server``; a module whose pages list every game, the Watch page's, or that needs
    other options, ``extra`` — a mail server, say —, starts its own)."""
    port = _free_port()
    log_path = data / "server.log"
    log_path.write_text("")
    proc = launcher.launch(
        [
            *("serve", "--port", str(port), "--db", f"sqlite:///{data / 'k.db'}"),
            *("--limit", "analysis_iterations=20"),  # post-game analyses in seconds (test_web_analysis.py)
            *("--limit", "clock_min_seconds=1"),  # games lost on time within seconds (test_web_life.py)
            *("--limit", "signups_burst=50"),  # every browser test that needs an account makes one
            *("--limit", "left_claim_seconds=3"),  # an opponent gone this long may be claimed (test_web_leaving.py)
            # every browser test creates its tournaments from 127.0.0.1, and which modules share a
            # worker's server depends on pytest -n's distribution: the default 6 not yet started ran out
            *("--limit", "upcoming_tournaments_per_address=200"),
            *("--test-seed", TEST_SEED),
            *extra,
        ],
        log_path,
        {**os.environ, "KAHUNA_DATA": str(data)},
    )
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120  # ends at the first answer; the bound is a loaded machine's
    while True:
        try:
            with urllib.request.urlopen(base + "/static/board.json", timeout=1):
                break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"kahuna serve did not start:\n{log_path.read_text()}")
            time.sleep(0.1)
    try:
        yield base
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def post_json(base: str, path: str, body: dict[str, Any]) -> dict[str, Any]:
    """The JSON answer of the server at ``base`` to ``POST path`` with ``body`` (a guest's request)."""
    request = urllib.request.Request(base + path, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        data: dict[str, Any] = json.loads(answer.read())
        return data


def create_game(base: str, **body: Any) -> dict[str, Any]:
    """The answer of the server at ``base`` to ``POST /api/games`` (a game a guest makes: ``game_id``,
    ``token`` or ``tokens``, the links), as in docs/protocol.md; conftest's ``create`` for the
    session's server."""
    return post_json(base, "/api/games", body)


def a_legal_build(base: str, game_id: str, token: str) -> str:
    """A build the seat may play now, as the server at ``base`` lists it (a test picks nothing by the
    rules)."""
    with connect(base.replace("http://", "ws://") + f"/ws/{game_id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        while (message := json.loads(ws.recv(timeout=10)))["type"] != "sync":
            pass
    build: str = next(legal for legal in message["legal"] if ">" in legal)
    return build
