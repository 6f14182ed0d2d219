"""The puzzle set shipped with the package, and the figures of a set (``kahuna puzzles stats``).

The set is the generator's own output file (:mod:`kahuna.ai.puzzles.generate`): its puzzle lines
and, between them, one line per game played, so the file itself says how many candidates were cut,
how many were proved and how long it took. ``docs/puzzles.md`` gives the command that made it.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from kahuna.ai.puzzles.puzzle import Puzzle

SHIPPED = "puzzles.jsonl"
BAND = 300
"""Width of a rating band in :func:`stats` and :func:`level_table` (bands start at multiples of it)."""
MIN_BAND = 40
""":func:`level_table`'s top band holds at least this many puzzles (sparser top bands are joined):
a share of fewer puzzles is mostly which puzzles happened to land there."""


def shipped_path() -> Path:
    """Where the shipped set lies inside the package."""
    return Path(str(resources.files("kahuna.ai.puzzles") / "data" / SHIPPED))


def read_set(path: Path | None = None) -> tuple[list[Puzzle], list[dict[str, Any]]]:
    """The puzzles of a set file and its game lines (the shipped set by default)."""
    puzzles: list[Puzzle] = []
    games: list[dict[str, Any]] = []
    text = (path or shipped_path()).read_text(encoding="utf-8")
    for line in text.splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry.get("type") == "puzzle":
            puzzles.append(Puzzle.from_json(entry))
        elif entry.get("type") == "game":
            games.append(entry)
    return puzzles, games


def daily_index(day: str, count: int) -> int:
    """Which of ``count`` puzzles (ordered by id) is the puzzle of ``day`` (``YYYY-MM-DD``): a
    function of the date alone, so every server instance and the terminal agree."""
    return int(hashlib.sha256(f"kahuna-daily-puzzle:{day}".encode()).hexdigest(), 16) % count


def band(rating: int) -> str:
    """The rating band of ``rating``, e.g. ``1000-1299``."""
    low = rating // BAND * BAND
    return f"{low}-{low + BAND - 1}"


def stats(puzzles: list[Puzzle], games: list[dict[str, Any]]) -> dict[str, Any]:
    """``{"count", "by_theme", "by_rating", "games", "candidates", "proved", "seconds"}``."""
    themes: Counter[str] = Counter(t for p in puzzles for t in p.themes)
    ratings: Counter[str] = Counter(band(p.rating) for p in puzzles)
    return {
        "count": len(puzzles),
        "by_theme": dict(sorted(themes.items(), key=lambda kv: (-kv[1], kv[0]))),
        "by_rating": dict(sorted(ratings.items(), key=lambda kv: int(kv[0].split("-")[0]))),
        "games": len(games),
        "candidates": sum(int(g["candidates"]) for g in games),
        "proved": sum(int(g["proved"]) for g in games),
        "seconds": round(sum(float(g["seconds"]) for g in games), 1),
    }


def level_bands(ratings: list[int]) -> list[int]:
    """The lower ends of :func:`level_table`'s bands: :data:`BAND` wide from the lowest rating's,
    the top ones joined until the top band holds :data:`MIN_BAND` puzzles (it is open above)."""
    if not ratings:
        return []
    lows = list(range(min(ratings) // BAND * BAND, max(ratings) + 1, BAND))
    while len(lows) > 1 and sum(r >= lows[-1] for r in ratings) < MIN_BAND:
        lows.pop()
    return lows


def level_table(
    puzzles: list[Puzzle],
    solved: dict[str, dict[str, int]],
    levels: tuple[str, ...],
    tries: int,
    by: Literal["puzzles", "tries"] = "puzzles",
) -> str:
    """A Markdown table: per rating band (:func:`level_bands`), the share each level solved.

    ``by="puzzles"``: the share of the band's puzzles each level solves, a level solving a puzzle
    when it finds an accepted turn in more than half of its tries (as a person solves a puzzle or
    not: one lucky try in ten is not solving it). ``by="tries"``: the share of all its tries.

    ``solved[puzzle_id][level]``: how many of ``tries`` that level solved (tries of another salt
    than the run that set the starting ratings, :func:`kahuna.ai.puzzles.rate.check_salt`)."""
    lows = level_bands([p.rating for p in puzzles])
    lines = ["| rating band | puzzles | " + " | ".join(levels) + " |", "|---|---:|" + "---:|" * len(levels)]

    def share(level: str, mine: list[Puzzle]) -> float:
        counts = [solved[p.puzzle_id][level] for p in mine]
        if by == "tries":
            return sum(counts) / (tries * max(1, len(mine)))
        return sum(2 * c > tries for c in counts) / max(1, len(mine))

    def row(name: str, mine: list[Puzzle]) -> str:
        cells = [f"{100 * share(lv, mine):.1f} %" for lv in levels]
        return f"| {name} | {len(mine)} | " + " | ".join(cells) + " |"

    for i, low in enumerate(lows):
        top = i + 1 == len(lows)
        mine = [p for p in puzzles if p.rating >= low and (top or p.rating < lows[i + 1])]
        lines.append(row(f"{low}+" if top else f"{low}-{low + BAND - 1}", mine))
    lines.append(row("all", puzzles))
    return "\n".join(lines)
