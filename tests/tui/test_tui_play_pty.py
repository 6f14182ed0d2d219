"""``kahuna play`` through a real pseudo-terminal: a whole game, hot-seat, bad input, save and resume."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pexpect
import pytest
from tui_pty_driver import PROMPT, choose, friendly, legal_tokens, spawn

from kahuna.rules import GameRecord, view_of
from kahuna.tui.screen import card_names

CLEAR = "\x1b[2J"


def flat(text: str) -> str:
    """Screen text with line wrapping undone."""
    return re.sub(r"\s+", " ", text)


@pytest.mark.slow
def test_whole_game_against_random_by_typed_commands(tmp_path: Path) -> None:
    save = tmp_path / "game.json"
    child = spawn(
        ["play", "--vs", "random", "--seed", "11", "--seat", "second", "--save", str(save), "--ai-delay", "0"], tmp_path
    )
    rng = random.Random(11)
    plays = 0
    typed = 0
    while True:
        which = child.expect([PROMPT, "Watch it again with: kahuna show"])
        if which == 1:
            break
        assert child.match.group(1) == "White"
        tokens = legal_tokens(child)
        token = choose(tokens, plays, rng)
        plays = 0 if token.startswith("d") or token in ("pass", "end") else plays + 1
        child.sendline(friendly(token, rng))
        typed += 1
        assert typed < 400, "the game does not end"
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    state = GameRecord.loads(save.read_text()).replay()
    assert state.is_over
    assert typed > 20


def test_hot_seat_hides_the_hand_between_turns(tmp_path: Path) -> None:
    save = tmp_path / "hot.json"
    child = spawn(["play", "--vs", "human", "--seed", "4", "--save", str(save)], tmp_path)
    child.expect("Pass the keyboard to Black")
    child.sendline("")
    child.expect(PROMPT)
    assert child.match.group(1) == "Black"
    assert "Your hand (Black)" in child.before
    child.sendline("draw")
    child.expect("Pass the keyboard to White")
    after_clear = child.before.rsplit(CLEAR, 1)[-1]
    assert "Your hand" not in after_clear and "Black>" not in after_clear
    assert CLEAR in child.before
    child.expect("press Enter")
    child.sendline("")
    child.expect(PROMPT)
    assert child.match.group(1) == "White"
    assert "Your hand (White)" in child.before
    assert "Last turn (Black): Black draws from the deck." in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)
    record = GameRecord.loads(save.read_text())
    assert record.actions == ["d?"]
    assert record.meta["tui"]["opponent"] == "human"


def test_bad_input_gets_one_line_and_the_game_goes_on(tmp_path: Path) -> None:
    save = tmp_path / "bad.json"
    child = spawn(
        ["play", "--vs", "random", "--seed", "5", "--seat", "first", "--save", str(save), "--ai-delay", "0"], tmp_path
    )
    child.expect(PROMPT)
    child.sendline("fly to the moon")
    child.expect(PROMPT)
    assert "'fly to the moon' is not understood: try E J (build)" in flat(child.before)
    child.sendline("A L")
    child.expect(PROMPT)
    assert "there is no line between ALOA and LALE" in flat(child.before)
    child.sendline("end")
    child.expect(PROMPT)
    assert "'end' is only for the two last turns after round 3. Possible ways to end the turn: d?" in flat(child.before)
    record = GameRecord.loads(save.read_text())
    state = record.replay()
    held = [c for c in range(12) if state.hands[0][c]]
    missing = next(c for c in range(12) if not state.hands[0][c] and c not in (0, 11))
    child.sendline(f"discard {'ABCDEFGHIJKL'[missing]}")
    child.expect(PROMPT)
    assert f"you hold no {'ABCDEFGHIJKL'[missing]} card. Possible discards: " in flat(child.before)
    child.sendline(f"-{'ABCDEFGHIJKL'[held[0]]}")
    child.expect(PROMPT)
    assert "This turn (Black): Black discards" in child.before
    child.sendline("draw")
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(pexpect.EOF)
    assert len(GameRecord.loads(save.read_text()).actions) >= 3


def test_save_on_quit_and_resume_give_the_identical_position(tmp_path: Path) -> None:
    save = tmp_path / "resume.json"
    child = spawn(
        ["play", "--vs", "random", "--seed", "8", "--seat", "first", "--save", str(save), "--ai-delay", "0"], tmp_path
    )
    rng = random.Random(8)
    for _ in range(12):
        child.expect(PROMPT)
        child.sendline(choose(legal_tokens(child), 0, rng))
    child.expect(PROMPT)
    child.sendline("quit")
    child.expect(r"Continue with: kahuna play --resume (\S+)")
    assert child.match.group(1) == str(save)
    child.expect(pexpect.EOF)
    saved = GameRecord.loads(save.read_text())
    before = saved.replay()

    child = spawn(["play", "--resume", str(save), "--ai-delay", "0"], tmp_path)
    child.expect(PROMPT)
    assert child.match.group(1) == "Black"
    hand = card_names(view_of(before, 0).hand or ())
    assert hand in child.before
    assert "Last turn (White)" in child.before
    child.sendline("quit")
    child.expect(pexpect.EOF)
    resumed = GameRecord.loads(save.read_text())
    assert resumed.actions == saved.actions
    assert resumed.replay().to_json() == before.to_json()
    assert resumed.meta["tui"] == saved.meta["tui"]


def test_ctrl_c_saves_the_game(tmp_path: Path) -> None:
    save = tmp_path / "intr.json"
    child = spawn(
        ["play", "--vs", "random", "--seed", "9", "--seat", "first", "--save", str(save), "--ai-delay", "0"], tmp_path
    )
    child.expect(PROMPT)
    child.sendline("draw")
    child.expect(PROMPT)
    child.sendintr()
    child.expect("Interrupted; game saved to")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert GameRecord.loads(save.read_text()).actions[0] == "d?"
