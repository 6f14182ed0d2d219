"""``kahuna play --clock``: the clocks on screen, resigning, and losing on time, in a real pty."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pexpect
from tui_pty_driver import PROMPT, spawn

from kahuna.rules import GameRecord


def test_a_timed_game_shows_both_clocks_and_ends_by_resignation(tmp_path: Path) -> None:
    save = tmp_path / "timed.json"
    child = spawn(["play", "--vs", "medium", "--seat", "first", "--seed", "3", "--clock", "5+3",
                   "--save", str(save), "--ai-delay", "0"], tmp_path)  # fmt: skip
    child.expect(PROMPT)
    assert "Clock 5+3 · Black 5:00 (running) · White 5:00" in child.before
    child.sendline("draw")  # Black's turn ends: 3 seconds are added, White's clock runs, the AI moves
    child.expect(PROMPT)
    assert "(running)" in child.before.split("Clock 5+3")[-1].split("White")[0]  # Black's clock runs again
    child.sendline("resign")
    child.expect("Type yes to resign")
    child.sendline("no")
    child.expect(PROMPT)
    assert "You play on." in child.before
    child.sendline("resign")
    child.expect("Type yes to resign")
    child.sendline("yes")
    child.expect("Watch it again with: kahuna show")
    child.expect(pexpect.EOF)
    record = GameRecord.loads(save.read_text())
    assert record.to_json()["termination"] == {"reason": "resign", "seat": 0}
    final = record.replay()
    assert final.outcome is not None and (final.outcome.winner, final.outcome.reason) == (1, "resign")
    stored = json.loads(save.read_text())["meta"]["tui"]["clock"]
    assert stored["running"] is None and stored["remaining"][1] > 290  # the AI thinks fast at "medium"


def test_a_player_who_does_not_move_loses_on_time_even_while_typing_nothing(tmp_path: Path) -> None:
    """A saved game whose clock has 1.5 s left for Black: resumed, Black types nothing and loses on
    time, not before those 1.5 s have passed, with no time left on the saved clock."""
    save = tmp_path / "late.json"
    child = spawn(["play", "--vs", "medium", "--seat", "first", "--seed", "5", "--clock", "1+0",
                   "--save", str(save), "--ai-delay", "0"], tmp_path)  # fmt: skip
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    data = json.loads(save.read_text())
    data["meta"]["tui"]["clock"]["remaining"] = [1.5, 60.0]
    save.write_text(json.dumps(data))
    started = time.monotonic()
    child = spawn(["play", "--resume", str(save), "--ai-delay", "0"], tmp_path)
    child.expect(PROMPT)
    child.expect("Watch it again with: kahuna show", timeout=10)
    took = time.monotonic() - started
    child.expect(pexpect.EOF)
    assert took >= 1.5, took
    assert json.loads(save.read_text())["meta"]["tui"]["clock"]["remaining"][0] == 0
    record = GameRecord.loads(save.read_text())
    assert record.to_json()["termination"] == {"reason": "timeout", "seat": 0}
    final = record.replay()
    assert final.outcome is not None and (final.outcome.winner, final.outcome.reason) == (1, "timeout")


def test_bad_clocks_are_refused_with_one_line(tmp_path: Path) -> None:
    for spec, words in (("5", "is not a clock"), ("0+3", "initial time must be"), ("5+999", "increment must be"),
                        ("10000d", "correspondence days must be")):  # fmt: skip
        child = spawn(["play", "--clock", spec, "--save", str(tmp_path / "x.json")], tmp_path)
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 2
        assert words in child.before and "Traceback" not in child.before
