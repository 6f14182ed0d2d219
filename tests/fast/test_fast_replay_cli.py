"""`kahuna replay --core fast` prints what the referee prints: traces, finals, errors, exit codes,
also for games ended off the board."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import NamedTuple, Protocol

import pytest

from kahuna.cli import main
from kahuna.rules import GameRecord, GameState, Termination

pytestmark = pytest.mark.needs_core

EXAMPLES = Path(__file__).parent.parent / "rules" / "examples"


class Done(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


class Kahuna(Protocol):
    def __call__(self, *args: str, core: str | None = None) -> Done: ...


@pytest.fixture
def kahuna(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Kahuna:
    """``kahuna replay ARGS`` in this process, with ``KAHUNA_CORE`` set to ``core`` (or unset)."""

    def run(*args: str, core: str | None = None) -> Done:
        if core is None:
            monkeypatch.delenv("KAHUNA_CORE", raising=False)
        else:
            monkeypatch.setenv("KAHUNA_CORE", core)
        code = main(["replay", *args])
        out, err = capsys.readouterr()
        return Done(code, out, err)

    return run


@pytest.mark.parametrize("name", ["standard-no-bridges", "variant-replace-points"])
def test_trace_is_the_reference(kahuna: Kahuna, name: str) -> None:
    done = kahuna(str(EXAMPLES / f"{name}.record.json"), "--trace", "--core", "fast")
    assert done.returncode == 0, done.stderr
    expected = (EXAMPLES / f"{name}.trace.jsonl").read_text().splitlines()
    assert [json.loads(line) for line in done.stdout.splitlines()] == [json.loads(line) for line in expected]


def test_every_example_final_state_by_environment(kahuna: Kahuna) -> None:
    for record in sorted(EXAMPLES.glob("*.record.json")):
        fast = kahuna(str(record), core="fast")
        python = kahuna(str(record), core="python")
        assert fast.returncode == python.returncode == 0, fast.stderr
        assert fast.stdout == python.stdout


def test_errors_match(kahuna: Kahuna, tmp_path: Path) -> None:
    record = json.loads((EXAMPLES / "standard-no-bridges.record.json").read_text())
    record["actions"][3] = "xAB:AA"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(record))
    fast, python = kahuna(str(bad), "--core", "fast"), kahuna(str(bad), "--core", "python")
    assert fast.returncode == python.returncode == 1
    assert fast.stderr == python.stderr and "illegal action at step 3" in fast.stderr
    record["reshuffles"] = ["A"]
    record["actions"] = record["actions"][:3]
    bad.write_text(json.dumps(record))
    assert kahuna(str(bad), "--core", "fast").returncode == kahuna(str(bad), "--core", "python").returncode


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


@pytest.mark.parametrize(
    ("reason", "seat", "steps"),
    [("resign", 0, 6), ("timeout", 1, 57), ("aborted", 1, 1), ("left", 1, 20), ("left-draw", 0, 30)],
)
def test_records_ended_off_the_board_replay_alike(
    kahuna: Kahuna, tmp_path: Path, reason: str, seat: int, steps: int
) -> None:
    """Resigned, timed-out and aborted records print the same bytes on both cores, traced or not,
    and end over with the record's result."""
    path = str(_ended_record(tmp_path, reason, seat, steps))
    for trace in ([], ["--trace"]):
        python, fast = (kahuna(path, *trace, "--core", core) for core in ("python", "fast"))
        assert python.returncode == fast.returncode == 0
        assert python.stdout == fast.stdout
        final = json.loads(fast.stdout.splitlines()[-1])
        final = final["final"] if trace else final
        assert final["phase"] == "over" and final["to_move"] is None
        assert final["result"] == {"winner": None if reason in ("aborted", "left-draw") else 1 - seat, "reason": reason}
    assert len(fast.stdout.splitlines()) == steps + 1


def test_a_termination_after_the_end_is_refused_alike(kahuna: Kahuna, tmp_path: Path) -> None:
    record = GameRecord.loads((EXAMPLES / "standard-no-bridges.record.json").read_text())
    record.termination = Termination("resign", 0)
    path = tmp_path / "late.record.json"
    path.write_text(record.dumps())
    python, fast = (kahuna(str(path), "--core", core) for core in ("python", "fast"))
    assert python.returncode == fast.returncode == 2
    assert python.stderr == fast.stderr and "already ended the game" in fast.stderr
