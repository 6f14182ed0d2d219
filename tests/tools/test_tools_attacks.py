"""The contributors' attack tools run against a real server: the soak (honest games with attackers
beside them) and the probes (docs/server.md gives the long runs)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).parent.parent.parent
TOOLS = ROOT / "tools"


def _tool(name: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(TOOLS / name), *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


@pytest.mark.long  # the soak (the server's defences have their own tests in tests/server)
def test_the_soak_reports_latency_memory_and_what_the_attackers_met() -> None:
    result = _tool("server_attacks.py", "--games", "4", "--seconds", "6", "--think", "20", "--attackers", "5", "--json")
    assert result.returncode == 0, result.stderr
    figures = json.loads(result.stdout.strip().splitlines()[-1])
    assert figures["errors"] == 0 and figures["actions"] > 0
    attacks = figures["attacks"]
    assert attacks["hello_frames"] > 0 and attacks["hostile_frames"] > 0 and attacks.get("ws_malformed", 0) > 0
    assert attacks.get("http_429", 0) > 0  # the floods met the rate limits
    assert len(figures["rss_mib"]) >= 3 and max(figures["rss_mib"]) < 1024


@pytest.mark.long  # 67 s; what these probes try, tests/server's hardening tests check in make test
def test_the_probes_report_what_the_attacks_achieved() -> None:
    result = _tool("server_probes.py", "--only", "5,8,9")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("5. ") and "error 'malformed'" in lines[0] and "['error', 'pong']" in lines[0]
    assert lines[1] == "8. names with U+202E: 422, U+200B: 422, U+2028: 422"
    assert lines[2].endswith("the connection is seat 0")


def test_the_benches_offer_no_attack() -> None:
    """The user-facing ``kahuna bench`` has no probes command and no attackers option."""
    probes = subprocess.run([sys.executable, "-m", "kahuna", "bench", "probes"], capture_output=True, text=True)
    assert probes.returncode == 2 and "invalid choice: 'probes'" in probes.stderr
    soak = subprocess.run(
        [sys.executable, "-m", "kahuna", "bench", "server", "--attackers", "1"], capture_output=True, text=True
    )
    assert soak.returncode == 2 and "--attackers" in soak.stderr
