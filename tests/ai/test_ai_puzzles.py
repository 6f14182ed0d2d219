"""Puzzles: a tiny seeded generation in-process, the referee's check of attempts, the set's figures."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from kahuna.ai.puzzles.generate import generate
from kahuna.ai.puzzles.prove import ProofConfig
from kahuna.ai.puzzles.puzzle import Puzzle, check
from kahuna.ai.puzzles.rate import (
    BASE,
    RATING_LEVELS,
    STEP,
    TRIES,
    AgentCache,
    rating_salt,
    solves,
    solves_of_all,
    starting_rating,
)
from kahuna.ai.puzzles.rerate import rerate, side_path
from kahuna.ai.puzzles.shipped import level_bands, level_table, read_set, shipped_path, stats
from kahuna.ai.puzzles.sift import ladder
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
        assert puzzle.tries == TRIES and puzzle.rating == starting_rating(puzzle.solves, puzzle.tries)
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


def test_starting_rating_rises_with_the_levels_failure_rates() -> None:
    assert starting_rating(dict.fromkeys(RATING_LEVELS, 10), 10) == BASE
    assert starting_rating({"master": 10}, 10) == BASE + 4 * STEP
    assert starting_rating({}, 10) == BASE + 5 * STEP
    assert starting_rating(dict.fromkeys(RATING_LEVELS, 5), 10) == BASE + 5 * STEP // 2
    assert starting_rating({"easy": 3, "medium": 10, "hard": 7, "expert": 9, "master": 10}, 10) == BASE + 330


def test_rating_again_changes_only_the_ratings_and_resumes(made: Path, tmp_path: Path) -> None:
    """``kahuna puzzles rate``: stopped after one puzzle, then run again to the end; the positions,
    solutions, themes, proofs and game lines stay as they were."""
    path = tmp_path / "set.jsonl"
    before = made.read_text()
    path.write_text(before)
    agents = AgentCache()
    run = rerate(path, 5, 2, agents)
    first = next(run)
    run.close()  # stopped: the set untouched, the one puzzle's tries kept aside
    assert path.read_text() == before and len(side_path(path).read_text().splitlines()) == 1
    kept_aside = json.loads(side_path(path).read_text())
    side_path(path).write_text(json.dumps({**kept_aside, "solves": {}}) + "\n")  # marked: the resumed run reuses it
    rated = list(rerate(path, 5, 2, agents))
    assert rated[0] == first and len(rated) == len(read_set(made)[0])
    assert not side_path(path).exists()
    old, new = before.splitlines(), path.read_text().splitlines()
    assert len(old) == len(new)
    for was, now in zip(old, new, strict=True):
        if '"type":"puzzle"' not in was:
            assert now == was
            continue
        puzzle = Puzzle.from_json(json.loads(now))
        made_now = {} if puzzle.puzzle_id == first else solves(puzzle, rating_salt(5), 2, agents)
        assert puzzle.tries == 2 and puzzle.solves == made_now
        assert puzzle.rating == starting_rating(puzzle.solves, 2)
        kept = ("rating", "solves", "tries")
        assert {k: v for k, v in json.loads(was).items() if k not in kept} == {
            k: v for k, v in json.loads(now).items() if k not in kept
        }


def test_level_table_joins_a_sparse_top_band(made: Path) -> None:
    assert level_bands([700] * 50 + [1000] * 45 + [1900] * 10) == [600, 900]
    assert level_bands([700] * 40 + [1000] * 40) == [600, 900]
    puzzles, _ = read_set(made)
    table = level_table(puzzles, {p.puzzle_id: dict.fromkeys(RATING_LEVELS, 1) for p in puzzles}, RATING_LEVELS, 2)
    print(table)
    assert table.splitlines()[2].startswith(f"| {level_bands([p.rating for p in puzzles])[0]}+ | {len(puzzles)} |")
    assert table.splitlines()[-1] == f"| all | {len(puzzles)} | " + " | ".join(["0.0 %"] * 5) + " |"  # 1 of 2: no
    tries = level_table(
        puzzles, {p.puzzle_id: dict.fromkeys(RATING_LEVELS, 1) for p in puzzles}, RATING_LEVELS, 2, "tries"
    )
    assert tries.splitlines()[-1] == f"| all | {len(puzzles)} | " + " | ".join(["50.0 %"] * 5) + " |"
    won = level_table(puzzles, {p.puzzle_id: dict.fromkeys(RATING_LEVELS, 2) for p in puzzles}, RATING_LEVELS, 3)
    assert won.splitlines()[-1] == f"| all | {len(puzzles)} | " + " | ".join(["100.0 %"] * 5) + " |"  # 2 of 3: yes


def test_tries_in_processes_count_as_in_one(made: Path) -> None:
    """``--jobs``: each try is seeded by its salt, number, puzzle and level alone."""
    puzzles, _ = read_set(made)
    one = list(solves_of_all(puzzles, rating_salt(3), 1, AgentCache()))
    assert list(solves_of_all(puzzles, rating_salt(3), 1, AgentCache(), jobs=2)) == one
    assert [p for p, _ in one] == [p.puzzle_id for p in puzzles]


def _rated(puzzle: Puzzle, solved: dict[str, int], tries: int = 20) -> Puzzle:
    return dataclasses.replace(puzzle, solves=solved, tries=tries, rating=starting_rating(solved, tries))


def test_a_ladder_is_sure_and_rises_with_the_levels(made: Path) -> None:
    puzzle = read_set(made)[0][0]
    levels = dict(zip(RATING_LEVELS, range(5), strict=True))  # easy 0 ... master 4
    assert ladder(_rated(puzzle, dict.fromkeys(RATING_LEVELS, 20)))  # every level solves it
    assert ladder(_rated(puzzle, {}))  # none does: proved, but beyond every level
    assert ladder(_rated(puzzle, {n: 20 if i >= 2 else 0 for n, i in levels.items()}))  # hard and up
    assert ladder(_rated(puzzle, {"easy": 4, "medium": 16, "hard": 20, "expert": 19, "master": 20}))  # 20 %, 80 %
    assert not ladder(_rated(puzzle, {"easy": 5, "medium": 20, "hard": 20, "expert": 20, "master": 20}))  # 25 %: unsure
    assert not ladder(
        _rated(puzzle, {"easy": 20, "medium": 0, "hard": 20, "expert": 20, "master": 20})
    )  # easy, not medium
    assert not ladder(_rated(puzzle, {"easy": 0, "medium": 20, "hard": 20, "expert": 0, "master": 20}))


def test_sift_keeps_the_game_lines_and_the_ladders(
    made: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import argparse

    puzzles, games = read_set(made)
    lines = [line for line in made.read_text().splitlines() if '"type":"puzzle"' not in line]
    sure = [_rated(p, {"master": 20} if i % 2 else {"easy": 10, "master": 20}) for i, p in enumerate(puzzles)]
    path = tmp_path / "set.jsonl"
    path.write_text(
        "".join(json.dumps(p.to_json(), separators=(",", ":")) + "\n" for p in sure) + "\n".join(lines) + "\n"
    )
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    few = tmp_path / "few.jsonl"
    ten = "".join(json.dumps(_rated(p, {"master": 10}, 10).to_json()) + "\n" for p in puzzles)
    few.write_text(ten)  # rated with fewer tries than sifting needs
    args = parser.parse_args(["puzzles", "sift", str(few)])
    assert args.func(args) == 2 and few.read_text() == ten
    assert "kahuna puzzles rate FILE --tries 20" in capsys.readouterr().err
    args = parser.parse_args(["puzzles", "sift", str(path)])
    assert args.func(args) == 0
    kept, kept_games = read_set(path)
    assert [p.puzzle_id for p in kept] == [p.puzzle_id for i, p in enumerate(puzzles) if i % 2]
    assert kept_games == games
    assert json.loads(capsys.readouterr().out) == {
        "kept": len(kept),
        "dropped": len(puzzles) - len(kept),
        "out": str(path),
    }


def test_shipped_set_has_the_figures_of_its_games() -> None:
    puzzles, games = read_set(shipped_path())
    found = stats(puzzles, games)
    print("shipped", found["count"], "puzzles from", found["games"], "games")
    assert found["count"] == len({p.puzzle_id for p in puzzles}) >= 1
    assert found["count"] >= 500  # the size
    for puzzle in puzzles:  # rated as the generator of this release rates (kahuna puzzles rate), then sifted
        assert puzzle.tries == TRIES and puzzle.rating == starting_rating(puzzle.solves, puzzle.tries)
        assert ladder(puzzle), puzzle.puzzle_id


def test_cli_refuses_bad_arguments(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    out = tmp_path / "none.jsonl"
    args = parser.parse_args(["puzzles", "generate", str(out), "--games", "0"])
    assert args.func(args) == 2 and not out.exists()
    args = parser.parse_args(["puzzles", "stats", str(tmp_path / "missing.jsonl"), "--json"])
    assert args.func(args) == 2
    out.write_text("")
    for action in ("rate", "levels"):
        for bad in (["--tries", "0"], ["--jobs", "0"], ["--jobs", "65"]):
            args = parser.parse_args(["puzzles", action, str(out), *bad])
            assert args.func(args) == 2 and out.read_text() == ""
    args = parser.parse_args(["puzzles", "rate", str(tmp_path / "missing.jsonl")])
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
