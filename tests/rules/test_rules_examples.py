"""The worked examples: the engine must print exactly the reference traces; `kahuna replay` exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kahuna.rules import GameRecord, GameState
from kahuna.rules.actions import tokens

EXAMPLES = Path(__file__).parent / "examples"
NAMES = sorted(p.name.removesuffix(".record.json") for p in EXAMPLES.glob("*.record.json"))


def _trace(record: GameRecord) -> list[dict[str, object]]:
    lines: list[dict[str, object]] = []

    def before(step: int, state: GameState) -> None:
        lines.append({"step": step, "legal": tokens(state.legal_actions()), "state": state.to_json()})

    final = record.replay(before)
    lines.append({"final": final.to_json()})
    return lines


@pytest.mark.parametrize("name", NAMES)
def test_trace_matches_reference(name: str) -> None:
    record = GameRecord.loads((EXAMPLES / f"{name}.record.json").read_text())
    expected = [json.loads(line) for line in (EXAMPLES / f"{name}.trace.jsonl").read_text().splitlines()]
    assert _trace(record) == expected


def test_examples_cover_every_ending() -> None:
    reasons = set()
    for name in NAMES:
        state = GameRecord.loads((EXAMPLES / f"{name}.record.json").read_text()).replay()
        assert state.outcome is not None
        reasons.add(state.outcome.reason)
    assert reasons >= {"points", "final-scoring", "bridges", "no-bridges"}


def _kahuna(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kahuna", *args], input=stdin, capture_output=True, text=True, timeout=60
    )


def test_cli_trace_output_is_the_reference() -> None:
    name = "standard-no-bridges"
    done = _kahuna("replay", str(EXAMPLES / f"{name}.record.json"), "--trace")
    assert done.returncode == 0, done.stderr
    got = [json.loads(line) for line in done.stdout.splitlines()]
    expected = [json.loads(line) for line in (EXAMPLES / f"{name}.trace.jsonl").read_text().splitlines()]
    assert got == expected


def test_cli_final_state_from_stdin() -> None:
    text = (EXAMPLES / "standard-points.record.json").read_text()
    done = _kahuna("replay", "-", stdin=text)
    assert done.returncode == 0
    expected = json.loads((EXAMPLES / "standard-points.trace.jsonl").read_text().splitlines()[-1])["final"]
    assert json.loads(done.stdout) == expected


def test_cli_replays_a_termination(tmp_path: Path) -> None:
    record = json.loads((EXAMPLES / "standard-points.record.json").read_text())
    record["actions"] = record["actions"][:40]
    record["termination"] = {"reason": "resign", "seat": 1}
    path = tmp_path / "resigned.json"
    path.write_text(json.dumps(record))
    done = _kahuna("replay", str(path))
    assert done.returncode == 0, done.stderr
    final = json.loads(done.stdout)
    assert final["result"] == {"winner": 0, "reason": "resign"} and final["phase"] == "over"
    assert final["to_move"] is None


def test_cli_illegal_action_exit_1(tmp_path: Path) -> None:
    record = json.loads((EXAMPLES / "standard-points.record.json").read_text())
    record["actions"] = [*record["actions"][:5], "pass", "pass"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    done = _kahuna("replay", str(path), "--trace")
    assert done.returncode == 1
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert "step 6" in done.stderr and "'pass'" in done.stderr and "declined" in done.stderr
    assert len(done.stdout.splitlines()) == 7  # the trace lines before the bad step, nothing more


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.update(deal=r["deal"][:-1] + "A"), "exactly twice"),
        (lambda r: r.update(format="kahuna-record/2"), "format"),
        (lambda r: r.update(reshuffles=[]), "reshuffle order is needed"),
        (lambda r: r.update(reshuffles=["ABC", "DEF"]), "not an ordering"),
        (lambda r: r.update(variant={"no_such_rule": True}), "unknown variant"),
        (lambda r: r.update(actions="E>J"), "list of tokens"),
        (lambda r: r.update(termination={"reason": "surrender", "seat": 0}), "unknown termination reason"),
        (lambda r: r.update(termination={"reason": "resign", "seat": 2}), "seat must be 0 or 1"),
        (lambda r: r.update(termination={"reason": "timeout", "seat": 1}), "already ended the game"),
    ],
)
def test_cli_malformed_record_exit_2(tmp_path: Path, mutate: object, message: str) -> None:
    record = json.loads((EXAMPLES / "standard-points.record.json").read_text())
    mutate(record)  # type: ignore[operator]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    done = _kahuna("replay", str(path))
    assert done.returncode == 2, done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert done.stdout == ""


def test_cli_not_json_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    path.write_text("{not json")
    assert _kahuna("replay", str(path)).returncode == 2
    missing = _kahuna("replay", str(tmp_path / "nope.json"))
    assert missing.returncode == 2 and "cannot read" in missing.stderr


def test_unknown_token_is_an_illegal_action(tmp_path: Path) -> None:
    record = json.loads((EXAMPLES / "standard-points.record.json").read_text())
    record["actions"] = ["Q>Z"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(record))
    done = _kahuna("replay", str(path))
    assert done.returncode == 1 and "step 0" in done.stderr and "Q>Z" in done.stderr
