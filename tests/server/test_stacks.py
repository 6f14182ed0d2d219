"""The server and the floor under the other serving stacks they were measured on (``--stack``,
``kahuna.server.stacks``; docs/scaling.md, *Another serving stack*): ``kahuna bench server``'s
games are played with no error, and the CPU is counted where the stack does the work (granian's
worker is a child of the process the bench started)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from server_harness import ROOT, Server

pytestmark = pytest.mark.long  # a bench server (two for granian) started per case


@pytest.mark.parametrize(
    ("stack", "floor"), [("granian", False), ("granian", True), ("uvicorn-legacy", False)], ids=str
)
def test_bench_server_plays_under_another_stack(stack: str, floor: bool) -> None:
    args = ["bench", "server", *(["--floor"] if floor else []), "--games", "2", "--seconds", "3", "--warm-up", "1"]
    env = {**os.environ, "KAHUNA_SERVER_STACK": stack}
    result = subprocess.run(
        [sys.executable, "-m", "kahuna", *args, "--think", "10", "--json"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["errors"] == 0 and figures["actions"] > 0
    assert figures["server_cpu_ms_per_action"] > 0


def test_the_stack_option_serves_the_app_under_granian(tmp_path: Path) -> None:
    server = Server(tmp_path, args=("--stack", "granian")).start()
    try:
        answer = server.get("/api/online")
        assert answer.status_code == 200 and answer.headers["server"] == "granian"
    finally:
        server.stop()
