"""A player's fair-play figures over its last screened games (docs/fair-play.md), read from the
stored figures of each game: for the automatic report (``verdict``) and for the moderators' view of
a player (``moderation/history.py``).

The figures add up the player's last :attr:`Thresholds.window` screened games: the real choices,
how many of them the player made as the AI's first choice, the loss of win chance against the AI's
best, and the time per decision. How sure they are is the interval of the match rate (Wilson's,
at :attr:`Thresholds.z` standard errors): four games give a wide one, forty a narrow one.
"""

from __future__ import annotations

import json
import math
import statistics
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from kahuna.server.db.schema import fair_play_figures


@dataclass(frozen=True)
class Thresholds:
    """When a player's figures make a report (``kahuna serve --limit fair_play_*``)."""

    window: int = 40
    """The player's last screened games the figures add up."""
    match: float = 0.38
    """The lower end of the match rate's interval at which a report is filed."""
    z: float = 3.0
    """Standard errors of that interval."""
    min_games: int = 3
    """Screened games before a player may be reported at all: the interval counts decisions as if
    each were independent, which the first game or two stretch most (docs/fair-play.md)."""


def wilson(k: int, n: int, z: float) -> tuple[float, float]:
    """Wilson's interval of a rate of ``k`` in ``n`` at ``z`` standard errors (``(0, 1)`` for none)."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    scale = 1 + z * z / n
    return max(0.0, (centre - spread) / scale), min(1.0, (centre + spread) / scale)


def suspicion(found: dict[str, Any], z: float) -> float:
    """How suspicious one game is on its own: the lower end of its match rate's interval."""
    return round(wilson(int(found["matched"]), int(found["choices"]), z)[0], 4)


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def player_figures(conn: Connection, account_id: int, thresholds: Thresholds, since: float = 0.0) -> dict[str, Any]:
    """The player's figures over its last screened games (those screened after ``since``)."""
    rows = conn.execute(
        select(fair_play_figures.c.game_id, fair_play_figures.c.at, fair_play_figures.c.figures)
        .where(fair_play_figures.c.account_id == account_id, fair_play_figures.c.at > since)
        .order_by(fair_play_figures.c.at.desc(), fair_play_figures.c.game_id)
        .limit(thresholds.window)
    ).all()
    games = []
    for row in rows:
        found = json.loads(row.figures)
        games.append({"game_id": row.game_id, "at": row.at, **found, "suspicion": suspicion(found, thresholds.z)})
    choices = sum(g["choices"] for g in games)
    matched = sum(g["matched"] for g in games)
    loss = sum(g["loss"] for g in games)
    low, high = wilson(matched, choices, thresholds.z)
    games.sort(key=lambda g: (-g["suspicion"], g["game_id"]))
    return {
        "games": len(games),
        "choices": choices,
        "matched": matched,
        "match_rate": round(matched / choices, 4) if choices else None,
        "interval": [round(low, 4), round(high, 4)],
        "mean_loss": round(loss / choices, 4) if choices else None,
        "seconds_median": _median([g["seconds_median"] for g in games if g.get("seconds_median") is not None]),
        "hard_easy_seconds": _median([g["hard_easy_seconds"] for g in games if g.get("hard_easy_seconds") is not None]),
        "by_game": games,
    }
