"""``kahuna serve`` defaults and errors, and ``kahuna bench server`` end to end (small)."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import loopback
import pytest
from server_harness import ROOT, Server, free_port

from kahuna.bench.server import collector_off, room_for


def _kahuna(*args: str, env: dict[str, str] | None = None, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kahuna", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout
    )


def test_serve_creates_the_default_database_and_prints_the_url(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "KAHUNA_DATA": str(tmp_path / "data")}
    command = [sys.executable, "-m", "kahuna", "serve", "--port", str(port)]
    server = subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert server.stdout is not None
        first_line = server.stdout.readline()
        assert f"http://127.0.0.1:{port}/" in first_line
        created = None
        deadline = time.monotonic() + 30
        while created is None and time.monotonic() < deadline:
            try:
                created = loopback.post(f"http://127.0.0.1:{port}/api/games", json={"opponent": "hotseat"}, timeout=2)
            except httpx.HTTPError:
                time.sleep(0.05)
        assert created is not None and created.status_code == 201
        assert (tmp_path / "data" / "kahuna.db").is_file()
    finally:
        server.terminate()
        server.wait(10)


def test_serve_explains_what_it_cannot_do(tmp_path: Path) -> None:
    bad_db = _kahuna("serve", "--port", str(free_port()), "--db", "nonsense://")
    assert bad_db.returncode == 1 and "cannot open the database" in bad_db.stderr
    assert "Traceback" not in bad_db.stderr
    workers = _kahuna("serve", "--ai-workers", "0")
    assert workers.returncode == 2 and "--ai-workers" in workers.stderr


def test_bench_server_starts_its_own_server_and_reports_figures() -> None:
    args = ("bench", "server", "--games", "3", "--seconds", "3", "--warm-up", "1", "--think", "10", "--json")
    result = _kahuna(*args, timeout=90)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["games"] == 3 and figures["errors"] == 0
    assert figures["actions"] > 0 and figures["p99_ms"] >= figures["p50_ms"] > 0
    steady = figures["steady"]  # the actions sent after the first second: fewer than all of them
    assert 0 < steady["actions"] < figures["actions"]
    assert steady["p99_ms"] >= steady["p50_ms"] > 0
    assert "after the warm-up: p50" in result.stdout
    refused = _kahuna("bench", "server", "--seconds", "3", "--warm-up", "3")
    assert refused.returncode != 0 and "--warm-up" in refused.stderr


def test_bench_server_ends_at_its_deadline_whatever_the_think_time() -> None:
    """A client thinking past the end of the round stops there: a ten-minute think time (a slow
    pace's round) once kept a 3 s round open until every client had finished thinking."""
    args = ("bench", "server", "--floor", "--games", "2", "--seconds", "3", "--warm-up", "1", "--think", "600000")
    result = _kahuna(*args, "--json", timeout=90)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["games"] == 2 and figures["errors"] == 0 and figures["actions"] == 0  # nobody moved in 3 s


def test_bench_server_probes_pages_while_the_games_are_played() -> None:
    """``--probe`` asks for each path in turn while the games run, and reports how many were
    answered and their latency; a path that is not found is counted as failed, and a path without
    its leading slash is refused."""
    args = ("bench", "server", "--ai", "random", "--games", "2", "--seconds", "3", "--think", "10", "--json")
    probes = ("--probe", "/api/games/live?limit=50", "--probe", "/api/online", "--probe", "/api/nothing-here")
    result = _kahuna(*args, *probes, timeout=90)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    live, online, missing = (
        figures["probes"][p] for p in ("/api/games/live?limit=50", "/api/online", "/api/nothing-here")
    )
    assert live["requests"] > 0 and live["failed"] == 0 and live["p99_ms"] >= live["p50_ms"] > 0
    assert online["requests"] > 0 and online["failed"] == 0
    assert missing["requests"] == 0 and missing["failed"] > 0
    assert "probe /api/games/live?limit=50:" in result.stdout
    refused = _kahuna("bench", "server", "--probe", "api/online")
    assert refused.returncode != 0 and "--probe" in refused.stderr


def test_bench_server_floor_plays_recorded_games_to_the_end_through_the_same_clients() -> None:
    # One table without think time for 12 s: a recorded game of some 130 actions takes 1.5-3 s on a
    # quiet machine; two tables for 4 s at 5 ms finished none at load 12 (protocol 2's clients).
    args = ("bench", "server", "--floor", "--games", "1", "--seconds", "12", "--think", "0", "--json")
    result = _kahuna(*args, timeout=90)
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["errors"] == 0 and figures["actions"] > 0
    assert figures["server_cpu_ms_per_action"] is not None
    played = int(result.stdout.split(" played to the end")[0].rsplit("(", 1)[1])
    assert played > 0  # a recorded game ran out and its clients asked the floor for the next
    # the clients spoke protocol 3 and followed whole games: what they got is counted per game
    assert figures["protocol"] == 3 and figures["bytes_per_game"] > 0 and figures["bytes_per_action"] > 0
    print(f"\n{figures['bytes_per_game']:,} bytes per game received by its two seats (floor, protocol 3)")


def test_bench_server_counts_refused_connections_and_goes_on(tmp_path: Path) -> None:
    """A server with room for fewer sockets than the round opens: the refused seats are counted
    as connection errors, the seats that got in play, and the round ends with its figures (issue
    54: the 1,000-game round stopped at the first socket past the server's cap instead)."""
    # three games: three game-making clients (one per address) and six seats, for seven places
    server = Server(tmp_path, args=("--limit", "max_connections=7")).start()
    try:
        args = ("bench", "server", "--url", server.url, "--games", "3", "--seconds", "3", "--warm-up", "1")
        result = _kahuna(*args, "--think", "10", "--json", timeout=90)
    finally:
        server.stop()
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    lost = figures["connection_errors"]
    print(f"3 games against max_connections=7: {figures['actions']} actions, connections lost {lost}")
    assert 0 < sum(lost.values()) <= 6 and "connections lost" in result.stdout
    assert figures["actions"] > 0
    # The bench's own server is started with room for two sockets a game and the game makers'.
    assert room_for(1000) == ["--limit", "max_connections=2500"] and room_for(10) == ["--limit", "max_connections=2000"]


def test_bench_server_floor_refuses_a_url() -> None:
    result = _kahuna("bench", "server", "--floor", "--url", "http://127.0.0.1:9")
    assert result.returncode != 0 and "--floor" in result.stderr


def test_worker_mail_options_are_checked() -> None:
    """``kahuna worker --smtp`` needs ``--mail-from``, a valid URL, and ``--mail-from`` needs ``--smtp``."""
    broker = ("worker", "--broker", "redis://127.0.0.1:1/0")
    no_from = _kahuna(*broker, "--smtp", "smtp://127.0.0.1:25")
    assert no_from.returncode == 2 and "--mail-from" in no_from.stderr
    bad = _kahuna(*broker, "--smtp", "http://x", "--mail-from", "k@kahuna.test")
    assert bad.returncode == 2 and "smtp://" in bad.stderr
    alone = _kahuna(*broker, "--mail-from", "k@kahuna.test")
    assert alone.returncode == 2 and "--smtp" in alone.stderr


def test_bench_clients_play_without_the_collector_and_get_it_back_even_after_an_error() -> None:
    """The clients' collections paused every client at once and counted as the server's latency."""
    assert gc.isenabled()
    with collector_off():
        assert not gc.isenabled()
    assert gc.isenabled()
    with pytest.raises(RuntimeError), collector_off():
        raise RuntimeError("a round that failed")
    assert gc.isenabled()
