"""``kahuna show`` stepping through a record, the one-line errors of both commands, and where
``kahuna play`` saves its games."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
from tui_pty_driver import spawn

EXAMPLE = Path(__file__).parent.parent / "rules" / "examples" / "standard-bridges.record.json"


def kahuna(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "XDG_DATA_HOME": str(home)}
    return subprocess.run([sys.executable, "-m", "kahuna", *args], capture_output=True, text=True, env=env, timeout=30)


def test_show_steps_forward_back_and_jumps(tmp_path: Path) -> None:
    record = tmp_path / "game.json"
    shutil.copy(EXAMPLE, record)
    child = spawn(["show", str(record)], tmp_path)
    child.expect("show> ")
    assert "Start of the game (143 actions). Black moves first." in child.before
    child.sendline("")
    child.expect("show> ")
    assert "Action 1/143: pass — Black declines to draw." in child.before
    child.sendline("n")
    child.expect("show> ")
    assert "Action 2/143: K>C — White builds KAHU–COCO." in child.before
    child.sendline("p")
    child.expect("show> ")
    assert "Action 1/143" in child.before
    child.sendline("22")
    child.expect("show> ")
    assert "Action 22/143: L>K — Black builds LALE–KAHU and claims LALE; White's bridge LALE–IFFI returns." in (
        " ".join(child.before.split())
    )
    assert "●LALE" in child.before
    child.sendline("e")
    child.expect("show> ")
    assert "game over: White wins" in child.before
    child.sendline("what")
    child.expect("show> ")
    assert "Enter/n next" in child.before
    child.sendline("q")
    child.expect(pexpect.EOF)


def test_show_at_prints_one_position_without_colour(tmp_path: Path) -> None:
    result = kahuna("show", str(EXAMPLE), "--at", "60", "--seat", "black", home=tmp_path)
    assert result.returncode == 0
    assert "\x1b[" not in result.stdout
    assert "Action 60/143: D>H — Black builds DUDA–HUNA." in result.stdout
    assert "Your hand (Black):" in result.stdout and "White holds 2 cards" in result.stdout


def test_errors_are_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "kahuna-record/1", "deal": "AB"}')
    cases = [
        (("play", "--vs", "nobody"), "kahuna play: --vs: unknown agent 'nobody'"),
        (("play", "--variant", "no_such_rule", "--vs", "random"), "kahuna play: --variant: unknown variant"),
        (("play", "--resume", str(tmp_path / "missing.json")), "kahuna play: cannot read"),
        (("play", "--resume", str(bad)), "kahuna play: cannot resume"),
        (("show", str(bad)), "kahuna show: "),
        (("show", str(EXAMPLE), "--at", "999"), "kahuna show: --at must be between 0 and 143"),
    ]
    for args, start in cases:
        result = kahuna(*args, home=tmp_path)
        assert result.returncode == 2, args
        assert result.stderr.startswith(start), (args, result.stderr)
        assert len(result.stderr.strip().splitlines()) == 1 and not result.stdout


def test_games_are_saved_under_kahuna_data_like_the_servers(tmp_path: Path) -> None:
    """``KAHUNA_DATA`` moves the saved games as it moves the server's database; without it they go
    under ``$XDG_DATA_HOME/kahuna``."""
    data, xdg = tmp_path / "data", tmp_path / "xdg"
    for kahuna_data, where in ((str(data), data), (None, xdg / "kahuna")):
        env = {"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "XDG_DATA_HOME": str(xdg)}
        if kahuna_data is not None:
            env["KAHUNA_DATA"] = kahuna_data
        command = [sys.executable, "-m", "kahuna", "play", "--vs", "random"]
        result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=30, input="")
        assert result.returncode == 0, result.stderr
        (saved,) = where.glob("game-*.kahuna.json")
        assert f"game saved to {saved}" in result.stdout
        saved.unlink()
