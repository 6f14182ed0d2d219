"""Rating a set file again (``kahuna puzzles rate FILE``): every puzzle's starting rating from a new
rating run of :mod:`kahuna.ai.puzzles.rate`, everything else in the file kept as it is.

Only a puzzle line's ``rating``, ``solves`` and ``tries`` change; the positions, the accepted turns,
the themes, the proofs and the game lines stay byte for byte. With the generator's seed, a puzzle
gets the rating the generator of this release gives it (the same salt, :func:`rate.rating_salt`).

Resumable: each puzzle's tries go to a side file (``FILE.rating``, one JSON line per puzzle with
its salt and tries) as they finish, and a run given the same file, seed and tries again reuses
them. The set file is written once every puzzle is rated (a temporary file renamed over it), and
the side file removed.
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Callable, Generator
from pathlib import Path

from kahuna.ai.base import Agent
from kahuna.ai.puzzles.puzzle import Puzzle
from kahuna.ai.puzzles.rate import rating_salt, solves_of_all, starting_rating


def side_path(path: Path) -> Path:
    """Where a rating run of ``path`` keeps the tries it has made."""
    return path.with_name(path.name + ".rating")


def _made(side: Path, salt: str, tries: int) -> dict[str, dict[str, int]]:
    """The tries of the side file that belong to this run (its salt and tries)."""
    found: dict[str, dict[str, int]] = {}
    if not side.exists():
        return found
    for line in side.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry["salt"] == salt and entry["tries"] == tries:
            found[str(entry["puzzle_id"])] = {str(k): int(v) for k, v in entry["solves"].items()}
    return found


def rerate(
    path: Path, seed: int, tries: int, agents: Callable[[str], Agent], jobs: int = 1
) -> Generator[str, None, None]:
    """Rate every puzzle of ``path`` again with ``tries`` per level, salted from ``seed``; yields
    each puzzle's id as it is rated (or found in the side file), and rewrites ``path`` after the last.
    ``jobs`` > 1 rates in that many processes (:func:`rate.solves_of_all`: the same counts)."""
    salt = rating_salt(seed)
    lines = path.read_text(encoding="utf-8").splitlines()
    side = side_path(path)
    made = _made(side, salt, tries)
    entries = [json.loads(line) for line in lines if line.strip()]
    puzzles = [Puzzle.from_json(e) for e in entries if e.get("type") == "puzzle"]
    for puzzle in puzzles:
        if puzzle.puzzle_id in made:
            yield puzzle.puzzle_id
    with side.open("a", encoding="utf-8") as out:
        todo = [p for p in puzzles if p.puzzle_id not in made]
        for puzzle_id, solved in solves_of_all(todo, salt, tries, agents, jobs):
            made[puzzle_id] = solved
            out.write(json.dumps({"puzzle_id": puzzle_id, "salt": salt, "tries": tries, "solves": solved}))
            out.write("\n")
            out.flush()
            yield puzzle_id
    text = "".join(_rated(line, made, tries) + "\n" for line in lines)
    fresh = path.with_name(path.name + ".tmp")
    fresh.write_text(text, encoding="utf-8")
    os.replace(fresh, path)
    side.unlink()


def _rated(line: str, made: dict[str, dict[str, int]], tries: int) -> str:
    """The line with its puzzle's new rating (any other line as it is)."""
    entry = json.loads(line) if line.strip() else {}
    if entry.get("type") != "puzzle":
        return line
    puzzle = Puzzle.from_json(entry)
    solved = made[puzzle.puzzle_id]
    rated = dataclasses.replace(puzzle, solves=solved, tries=tries, rating=starting_rating(solved, tries))
    return json.dumps(rated.to_json(), separators=(",", ":"))
