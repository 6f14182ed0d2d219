"""Keeping the puzzles the AI levels tell apart (``kahuna puzzles sift FILE``).

A puzzle's starting rating says how the levels fare on it (:mod:`kahuna.ai.puzzles.rate`), and it
is a difficulty only when they fare on it as a ladder: the weaker levels fail it, the stronger solve
it, and none is at a coin's toss. Below ``master`` the levels are not one ladder on every puzzle:
``easy`` is a greedy player with other weights and random moves, ``medium`` a greedy player without
noise (it solves a puzzle nearly always or never), ``hard`` and ``expert`` searches that sample. On
a puzzle where ``easy`` finds the turn that ``medium`` never finds, or where ``hard`` misses what
``medium`` sees, "which levels solve it" names no difficulty, and a table of the levels by rating
band shows it as a weaker level above a stronger one.

:func:`ladder` keeps a puzzle when each level either solves it (at least :data:`SURE` of its
rating tries) or fails it (at most ``1 - SURE``), and every level stronger than one that solves it
solves it too. The weakest level that solves such a puzzle is its difficulty; a person's answers
then move its rating (the server's Glicko-2). :data:`SURE` and :data:`MIN_TRIES` were chosen on the
rating seed's own tries, never on the tries of ``kahuna puzzles levels`` (docs/puzzles.md).

:func:`sift` rewrites a set file with only those puzzles; the game lines stay, so the generator's
figures (games, candidates, proofs) still describe how the set was made, and a generator run on the
file goes on after its last game.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

from kahuna.ai.puzzles.puzzle import Puzzle
from kahuna.ai.puzzles.rate import RATING_LEVELS

SURE = Fraction(4, 5)
"""A level solves a puzzle when it solves at least this share of its tries, fails it at most
``1 - SURE``; between, the puzzle is dropped."""
MIN_TRIES = 20
"""Fewer tries cannot tell a level at 80 % from one at a coin's toss (a standard error of 0.16 at 10)."""


class SiftError(ValueError):
    """The set cannot be sifted as it is (its puzzles were rated with too few tries)."""


@dataclass(frozen=True)
class Sifted:
    kept: int
    dropped: int


def solvers(solves: dict[str, int], tries: int) -> tuple[bool, ...] | None:
    """For each level of :data:`RATING_LEVELS`, whether it solves the puzzle; ``None`` when a level
    is neither sure to solve nor sure to fail it."""
    found: list[bool] = []
    for name in RATING_LEVELS:
        share = Fraction(solves.get(name, 0), tries)
        if share >= SURE:
            found.append(True)
        elif share <= 1 - SURE:
            found.append(False)
        else:
            return None
    return tuple(found)


def ladder(puzzle: Puzzle) -> bool:
    """Whether the levels fare on ``puzzle`` as a ladder (see the module docstring)."""
    found = solvers(puzzle.solves, puzzle.tries)
    if found is None:
        return False
    first = found.index(True) if True in found else len(found)
    return all(found[first:])


def sift(path: Path) -> Sifted:
    """Rewrite ``path`` keeping its game lines and the puzzles :func:`ladder` accepts.

    Refused (:class:`SiftError`, the file untouched) when a puzzle was rated with fewer than
    :data:`MIN_TRIES` tries: ``kahuna puzzles rate FILE --tries 20`` first."""
    lines = path.read_text(encoding="utf-8").splitlines()
    kept: list[str] = []
    puzzles = dropped = 0
    for line in lines:
        entry = json.loads(line) if line.strip() else {}
        if entry.get("type") != "puzzle":
            kept.append(line)
            continue
        puzzle = Puzzle.from_json(entry)
        if puzzle.tries < MIN_TRIES:
            raise SiftError(
                f"puzzle {puzzle.puzzle_id} was rated with {puzzle.tries} tries a level; sifting needs "
                f"{MIN_TRIES} (kahuna puzzles rate FILE --tries {MIN_TRIES})"
            )
        if ladder(puzzle):
            kept.append(line)
            puzzles += 1
        else:
            dropped += 1
    fresh = path.with_name(path.name + ".tmp")
    fresh.write_text("".join(line + "\n" for line in kept), encoding="utf-8")
    os.replace(fresh, path)
    return Sifted(kept=puzzles, dropped=dropped)
