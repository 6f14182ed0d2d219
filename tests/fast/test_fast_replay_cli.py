"""`kahuna replay --core fast` prints what the referee prints: traces, finals, errors, exit codes,
also for games ended off the board."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from kahuna.cli import main
from kahuna.rules import GameRecord, GameState, Termination

pytestmark = pytest.mark.needs_core

EXAMPLES = Path(__file__).parent.parent / "rules" / "examples"


def _kahuna(*args: str, core: str | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.pop("KAHUNA_CORE", None)
    if core is not None:
        env["KAHUNA_CORE"] = core
    return subprocess.run(
        [sys.executable, "-m", "kahuna", "replay", *args], capture_output=True, text=True, timeout=60, env=env
    )


@pytest.mark.parametrize("name", ["standard-no-bridges", "variant-replace-points"])
def test_trace_is_the_reference(name: str) -> None:
    done = _kahuna(str(EXAMPLES / f"{name}.record.json"), "--trace", "--core", "fast")
    assert done.returncode == 0, done.stderr
    expected = (EXAMPLES / f"{name}.trace.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in done.stdout.splitlines()] == [json.loads(line) for line in expected]


def test_every_example_final_state_by_environment() -> None:
    for record in sorted(EXAMPLES.glob("*.record.json")):
        fast = _kahuna(str(record), core="fast")
        python = _kahuna(str(record), core="python")
        assert fast.returncode == python.returncode == 0, fast.stderr
        assert fast.stdout == python.stdout


def test_errors_match(tmp_path: Path) -> None:
    record = json.loads((EXAMPLES / "standard-no-bridges.record.json").read_text())
    record["actions"][3] = "xAB:AA"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    fast, python = _kahuna(str(bad), "--core", "fast"), _kahuna(str(bad), "--core", "python")
    assert fast.returncode == python.returncode == 1
    assert fast.stderr == python.stderr and "illegal action at step 3" in fast.stderr
    record["reshuffles"] = ["A"]
    record["actions"] = record["actions"][:3]
    bad.write_text(json.dumps(record))
    assert _kahuna(str(bad), "--core", "fast").returncode == _kahuna(str(bad), "--core", "python").returncode


def _ended_record(tmp_path: Path, reason: str, seat: int, steps: int) -> Path:
    """A record of ``steps`` random actions of a seeded game, then ended off the board."""
    rng = random.Random(steps)
    state = GameState.new(rng)
    for _ in range(steps):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    state.terminate(Termination(reason, seat))
    path = tmp_path / f"{reason}.record.json"
    path.write_text(GameRecord.of(state).dumps())
    return path


@pytest.mark.parametrize(("reason", "seat", "steps"), [("resign", 0, 6), ("timeout", 1, 57), ("aborted", 1, 1)])
def test_records_ended_off_the_board_replay_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], reason: str, seat: int, steps: int
) -> None:
    """Resigned, timed-out and aborted records print the same bytes on both cores, traced or not,
    and end over with the record's result."""
    path = str(_ended_record(tmp_path, reason, seat, steps))
    for trace in ([], ["--trace"]):
        printed = []
        for core in ("python", "fast"):
            assert main(["replay", path, *trace, "--core", core]) == 0
            printed.append(capsys.readouterr().out)
        assert printed[0] == printed[1]
        final = json.loads(printed[1].splitlines()[-1])
        final = final["final"] if trace else final
        assert final["phase"] == "over" and final["to_move"] is None
        assert final["result"] == {"winner": None if reason == "aborted" else 1 - seat, "reason": reason}
    assert len(printed[1].splitlines()) == steps + 1


def test_a_termination_after_the_end_is_refused_alike(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record = GameRecord.loads((EXAMPLES / "standard-no-bridges.record.json").read_text())
    record.termination = Termination("resign", 0)
    path = tmp_path / "late.record.json"
    path.write_text(record.dumps())
    errors = []
    for core in ("python", "fast"):
        assert main(["replay", str(path), "--core", core]) == 2
        errors.append(capsys.readouterr().err)
    assert errors[0] == errors[1] and "already ended the game" in errors[0]
