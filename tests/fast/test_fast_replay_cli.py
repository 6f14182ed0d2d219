"""`kahuna replay --core fast` prints what the referee prints: traces, finals, errors, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
