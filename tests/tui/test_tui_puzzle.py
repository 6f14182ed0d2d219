"""``kahuna puzzle`` in-process: a puzzle of the shipped set solved by typed notation (right so far,
then right), one missed, an illegal action answered with the referee's reason and counted as
nothing, and the puzzle of the day the same as the server's."""

from __future__ import annotations

import argparse
import io

import pytest

from kahuna.ai.puzzles.puzzle import Puzzle
from kahuna.ai.puzzles.shipped import read_set
from kahuna.rules import ALL_ACTIONS, Kind, legal_actions_of
from kahuna.tui.puzzle import choose, solve
from kahuna.tui.terminal import Terminal

PUZZLES = read_set()[0]


def typed(monkeypatch: pytest.MonkeyPatch, puzzle: Puzzle, lines: list[str]) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO("".join(f"{line}\n" for line in lines)))
    out = io.StringIO()
    code = solve(puzzle, Terminal(no_color=True, out=out))
    return code, out.getvalue()


def test_solved_missed_and_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    puzzle = max(PUZZLES, key=lambda p: (len(p.solutions[0]), p.puzzle_id))  # the longest turn
    turn = list(puzzle.solutions[0])
    hand = puzzle.view().hand or ()
    missing = next(c for c in range(12) if hand[c] == 0)
    illegal = next(a.token for a in ALL_ACTIONS if a.kind is Kind.BUILD and a.card == missing)
    code, screen = typed(monkeypatch, puzzle, [illegal, *turn])
    print("solved", puzzle.puzzle_id, turn)
    assert code == 0 and "Right!" in screen and f"Solution: {' '.join(turn)}" in screen
    assert "you hold no" in screen  # the referee's reason; the attempt went on
    if len(turn) > 1:
        assert "Right so far (1): go on." in screen
    wrong = next(a.token for a in legal_actions_of(puzzle.view()) if all(a.token != t[0] for t in puzzle.solutions))
    code, screen = typed(monkeypatch, puzzle, [wrong])
    assert code == 1 and "Wrong: that is not the best turn." in screen


def test_choosing_a_puzzle() -> None:
    ids = sorted(p.puzzle_id for p in PUZZLES)
    args = argparse.Namespace(id=ids[0], daily=False, seed=None)
    assert (chosen := choose(PUZZLES, args)) is not None and chosen.puzzle_id == ids[0]
    seeded = argparse.Namespace(id=None, daily=False, seed=5)
    assert choose(PUZZLES, seeded) == choose(PUZZLES, seeded)
    assert choose(PUZZLES, argparse.Namespace(id="nope", daily=False, seed=None)) is None
