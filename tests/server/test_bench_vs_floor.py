"""``kahuna bench server --vs-floor``: the server and the floor in turn, and the ratios between them."""

from __future__ import annotations

import json
import subprocess
import sys

from server_harness import ROOT

from kahuna.bench.vs_floor import FLOOR, SERVER, Round, Run, order, summary


def _run(cpu: float | None, p99: float, steady: float) -> Run:
    loop = None if cpu is None else cpu * 0.5  # the event loop's thread: half the process here
    return Run(cpu_ms=cpu, loop_cpu_ms=loop, p99_ms=p99, steady_p99_ms=steady, actions_per_s=100.0, errors=0)


def test_the_side_that_goes_first_alternates_from_round_to_round() -> None:
    assert [order(i) for i in range(3)] == [(FLOOR, SERVER), (SERVER, FLOOR), (FLOOR, SERVER)]


def test_the_summary_gives_each_rounds_ratios_and_their_median_and_range_per_game_count() -> None:
    rounds = [
        Round(200, 0, server=_run(0.9, 30.0, 20.0), floor=_run(0.6, 10.0, 10.0)),
        Round(200, 1, server=_run(0.7, 12.0, 12.0), floor=_run(0.5, 24.0, 8.0)),
        Round(200, 2, server=_run(None, 20.0, 9.0), floor=_run(0.5, 10.0, 9.0)),  # no CPU figure on this platform
        Round(500, 0, server=_run(0.5, 40.0, 30.0), floor=_run(0.4, 20.0, 15.0)),
    ]
    shown = summary(rounds)
    assert list(shown) == ["200", "500"]
    two = shown["200"]
    assert [(r["round"], r["first"], r["cpu"], r["p99"]) for r in two["rounds"]] == [
        (1, FLOOR, 1.5, 3.0),
        (2, SERVER, 1.4, 0.5),
        (3, FLOOR, None, 2.0),
    ]
    assert two["cpu"] == {"median": 1.45, "min": 1.4, "max": 1.5}  # the round without CPU is left out
    assert [r["loop_cpu"] for r in two["rounds"]] == [1.5, 1.4, None]
    assert two["loop_cpu"] == two["cpu"]
    assert two["p99"] == {"median": 2.0, "min": 0.5, "max": 3.0}
    assert two["steady_p99"] == {"median": 1.5, "min": 1.0, "max": 2.0}
    assert two["rounds"][0][SERVER]["cpu_ms"] == 0.9 and two["rounds"][0][FLOOR]["p99_ms"] == 10.0
    assert shown["500"]["cpu"] == {"median": 1.25, "min": 1.25, "max": 1.25}


def test_bench_server_vs_floor_plays_both_in_turn_and_ends_with_the_ratios() -> None:
    args = ["bench", "server", "--games", "2", "--seconds", "2", "--warm-up", "1", "--think", "10", "--vs-floor", "1"]
    result = subprocess.run(
        [sys.executable, "-m", "kahuna", *args, "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "2 games, round 1: the floor" in result.stdout and "2 games, round 1: the server" in result.stdout
    assert result.stdout.index("round 1: the floor") < result.stdout.index("round 1: the server")
    shown = json.loads(result.stdout.strip().splitlines()[-1])["vs_floor"]["2"]
    (only,) = shown["rounds"]
    assert only[SERVER]["errors"] == only[FLOOR]["errors"] == 0
    assert only[SERVER]["cpu_ms"] > 0 and only[FLOOR]["cpu_ms"] > 0  # both processes' CPU, read on Linux
    assert only["cpu"] == round(only[SERVER]["cpu_ms"] / only[FLOOR]["cpu_ms"], 3) == shown["cpu"]["median"]
    for side in (SERVER, FLOOR):  # the event loop's thread is a part of the process
        assert 0 < only[side]["loop_cpu_ms"] <= only[side]["cpu_ms"]
    assert only["loop_cpu"] == round(only[SERVER]["loop_cpu_ms"] / only[FLOOR]["loop_cpu_ms"], 3)
    assert "median (least-greatest): CPU per action" in result.stdout
    assert "of the event loop's thread" in result.stdout


def test_bench_server_vs_floor_refuses_what_it_cannot_compare() -> None:
    for extra in (["--url", "http://127.0.0.1:9"], ["--floor"], ["--ai", "random"], ["--probe", "/api/online"]):
        result = subprocess.run(
            [sys.executable, "-m", "kahuna", "bench", "server", "--vs-floor", "2", *extra],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.returncode != 0 and "--vs-floor" in result.stderr, extra
    zero = subprocess.run(
        [sys.executable, "-m", "kahuna", "bench", "server", "--vs-floor", "0"], cwd=ROOT, capture_output=True, text=True
    )
    assert zero.returncode != 0 and "at least 1" in zero.stderr
