"""Puzzles: a tiny seeded generation in-process, the referee's check of attempts, the set's figures."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kahuna.ai.puzzles.generate import generate
from kahuna.ai.puzzles.prove import ProofConfig
from kahuna.ai.puzzles.puzzle import Puzzle, check
from kahuna.ai.puzzles.rate import BASE, RATING_LEVELS, STEP, starting_rating
from kahuna.ai.puzzles.shipped import read_set, shipped_path, stats
from kahuna.ai.puzzles.themes import THEMES
from kahuna.rules import ALL_ACTIONS, Kind, legal_actions_of
from kahuna.server.puzzles.command import add_parser

SMALL = ProofConfig(worlds=4, iterations=400)


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("puzzles") / "set.jsonl"
    logs = list(generate(seed=11, games=2, path=path, config=SMALL))
    print("games", len(logs), "candidates", sum(g.candidates for g in logs), "proved", sum(g.proved for g in logs))
    return path


def test_generation_is_resumable_and_deterministic(made: Path, tmp_path: Path) -> None:
    before = made.read_text()
    assert list(generate(seed=11, games=2, path=made, config=SMALL)) == []  # every game already there
    assert made.read_text() == before
    again = tmp_path / "again.jsonl"
    list(generate(seed=11, games=1, path=again, config=SMALL))  # the same seed plays the same first game
    assert _timeless(again.read_text()) == _timeless(before)[: len(_timeless(again.read_text()))]
    puzzles, games = read_set(made)
    found = stats(puzzles, games)
    print(found)
    assert found["games"] == 2 and found["count"] == len(puzzles) >= 1
    assert found["proved"] >= found["count"] and found["candidates"] >= found["proved"]
    assert sum(found["by_rating"].values()) == len(puzzles)


def _timeless(text: str) -> list[dict[str, object]]:
    """The lines of a set without the figures that depend on the machine's speed."""
    return [{k: v for k, v in json.loads(line).items() if k not in ("seconds", "proof")} for line in text.splitlines()]


def test_each_puzzle_checks_with_the_referee(made: Path) -> None:
    puzzles, _ = read_set(made)
    for puzzle in puzzles:
        assert set(puzzle.themes) <= set(THEMES)
        assert puzzle.rating == starting_rating(puzzle.solved_by)
        view = puzzle.view()
        assert view.seat == puzzle.seat == view.to_move
        assert view.hand == tuple(puzzle.game_state().hands[puzzle.seat])
        assert "hands" not in view.to_json() and "deck" not in view.to_json()  # the seat's view only
        for turn in puzzle.solutions:
            assert check(puzzle, list(turn)).status == "correct"
            assert check(puzzle, list(turn[:-1])).status == "open"
        first = puzzle.solutions[0]
        wrong = [a for a in legal_actions_of(view) if all(s[0] != a.token for s in puzzle.solutions)]
        assert wrong, "a puzzle leaves something to get wrong"
        assert check(puzzle, [wrong[0].token]).status == "wrong"
        assert check(puzzle, [*first, "pass"]).status == "refused"
        verdict = check(puzzle, ["zz"])
        assert verdict.status == "refused" and verdict.reason == {"code": "malformed", "token": "zz"}
        hand = view.hand or ()
        missing = next(c for c in range(12) if hand[c] == 0)
        refused = check(puzzle, [_builds_with(missing)[0]])
        assert refused.status == "refused" and refused.reason == {"code": "no_card", "card": "ABCDEFGHIJKL"[missing]}
        assert Puzzle.from_json(puzzle.to_json()) == puzzle
    print("puzzles checked", len(puzzles))


def _builds_with(card: int) -> list[str]:
    return [a.token for a in ALL_ACTIONS if a.kind is Kind.BUILD and a.card == card]


def test_starting_rating_rises_with_the_levels_that_fail() -> None:
    assert starting_rating(RATING_LEVELS) == BASE
    assert starting_rating(("master",)) == BASE + 4 * STEP
    assert starting_rating(()) == BASE + 5 * STEP


def test_shipped_set_has_the_figures_of_its_games() -> None:
    puzzles, games = read_set(shipped_path())
    found = stats(puzzles, games)
    print("shipped", found["count"], "puzzles from", found["games"], "games")
    assert found["count"] == len({p.puzzle_id for p in puzzles}) >= 1


def test_cli_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    out = tmp_path / "none.jsonl"
    args = parser.parse_args(["puzzles", "generate", str(out), "--games", "0"])
    assert args.func(args) == 2 and not out.exists()
    args = parser.parse_args(["puzzles", "stats", str(tmp_path / "missing.jsonl"), "--json"])
    assert args.func(args) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.long
def test_every_shipped_puzzle_checks_with_the_referee() -> None:
    """Every accepted turn of the shipped set is right, and each puzzle leaves a legal wrong answer."""
    puzzles, _ = read_set(shipped_path())
    for puzzle in puzzles:
        for turn in puzzle.solutions:
            assert check(puzzle, list(turn)).status == "correct", (puzzle.puzzle_id, turn)
        firsts = {turn[0] for turn in puzzle.solutions}
        assert any(a.token not in firsts for a in legal_actions_of(puzzle.view())), puzzle.puzzle_id
    print("shipped puzzles checked", len(puzzles))
