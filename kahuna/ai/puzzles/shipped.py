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
from typing import Any

from kahuna.ai.puzzles.puzzle import Puzzle

SHIPPED = "puzzles.jsonl"
BAND = 300
"""Width of a rating band in :func:`stats` (bands start at multiples of it)."""


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


def level_table(puzzles: list[Puzzle], solved: dict[str, dict[str, bool]], levels: tuple[str, ...]) -> str:
    """A Markdown table: per rating band, the share of its puzzles each level solved.

    ``solved[puzzle_id][level]``: whether that level solved it (a separate, differently seeded run
    from the one that set the starting ratings)."""
    bands = sorted({band(p.rating) for p in puzzles}, key=lambda b: int(b.split("-")[0]))
    lines = ["| rating band | puzzles | " + " | ".join(levels) + " |", "|---|---:|" + "---:|" * len(levels)]
    for name in bands:
        mine = [p for p in puzzles if band(p.rating) == name]
        cells = [f"{100 * sum(solved[p.puzzle_id][lv] for p in mine) / len(mine):.0f} %" for lv in levels]
        lines.append(f"| {name} | {len(mine)} | " + " | ".join(cells) + " |")
    cells = [f"{100 * sum(solved[p.puzzle_id][lv] for p in puzzles) / max(1, len(puzzles)):.0f} %" for lv in levels]
    lines.append(f"| all | {len(puzzles)} | " + " | ".join(cells) + " |")
    return "\n".join(lines)
