"""``kahuna bench server --vs-floor N``: the game server and its floor in turn, and the ratios between them.

What an action costs the server is judged against what the same I/O costs without the game (the
floor, :mod:`kahuna.bench.floor`), and the floor's own figures move from round to round as the
machine does: on a quiet 2-core machine its p99 at 500 games went from 14 to 45 ms between rounds,
its CPU per action from 0.52 to 0.63 ms at 200 (docs/scaling.md). A ratio means something only
between runs taken close together, so each round here plays the server and the floor one after the
other, each a fresh process on a new database, the one that goes first alternating from round to
round; it reports each round's server ÷ floor for the CPU per action and the p99 (over the whole
round and after the warm-up; the CPU also of the event loop's thread alone, which bounds what one
process plays), and their medians and ranges per game count. Taken by hand until now,
that was several commands and a spreadsheet per figure.
"""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict, dataclass
from typing import Any

SERVER, FLOOR = "server", "floor"


@dataclass(frozen=True)
class Run:
    """One side's figures in one round: CPU per action (ms; ``None`` where the platform cannot
    tell) of the whole process and of its event loop's thread, p99 over the whole round and after
    the warm-up (ms), actions/s and errors."""

    cpu_ms: float | None
    loop_cpu_ms: float | None
    p99_ms: float
    steady_p99_ms: float
    actions_per_s: float
    errors: int


def order(round_index: int) -> tuple[str, str]:
    """Which side plays first in round ``round_index`` (from 0): the floor in even rounds, the
    server in odd ones, so that neither always meets the machine as the other left it."""
    return (FLOOR, SERVER) if round_index % 2 == 0 else (SERVER, FLOOR)


def _ratio(server: float | None, floor: float | None) -> float | None:
    if server is None or floor is None or floor <= 0:
        return None
    return round(server / floor, 3)


@dataclass(frozen=True)
class Round:
    games: int
    index: int
    server: Run
    floor: Run

    def ratios(self) -> dict[str, float | None]:
        """Server ÷ floor for each figure of the round."""
        return {
            "cpu": _ratio(self.server.cpu_ms, self.floor.cpu_ms),
            "loop_cpu": _ratio(self.server.loop_cpu_ms, self.floor.loop_cpu_ms),
            "p99": _ratio(self.server.p99_ms, self.floor.p99_ms),
            "steady_p99": _ratio(self.server.steady_p99_ms, self.floor.steady_p99_ms),
        }


def summary(rounds: list[Round]) -> dict[str, Any]:
    """Per game count: each round's ratios, and for each ratio its median, least and greatest over
    the rounds (those that have it)."""
    out: dict[str, Any] = {}
    for games in dict.fromkeys(r.games for r in rounds):
        mine = [r for r in rounds if r.games == games]
        each = [r.ratios() for r in mine]
        spread: dict[str, dict[str, float] | None] = {}
        for key in FIGURES:
            values = [v for v in (e[key] for e in each) if v is not None]
            spread[key] = (
                {"median": round(statistics.median(values), 3), "min": min(values), "max": max(values)}
                if values
                else None
            )
        out[str(games)] = {
            "rounds": [
                {"round": r.index + 1, "first": order(r.index)[0], **e}
                | {SERVER: asdict(r.server), FLOOR: asdict(r.floor)}
                for r, e in zip(mine, each, strict=True)
            ],
            **spread,
        }
    return out


FIGURES = {
    "cpu": "CPU per action",
    "loop_cpu": "of the event loop's thread",
    "p99": "p99",
    "steady_p99": "p99 after the warm-up",
}
"""The ratios of a round, and how the report names them."""


def _shown(ratio: float | None) -> str:
    return "n/a" if ratio is None else f"{ratio:.2f}"


def report(rounds: list[Round], as_json: bool) -> None:
    """Print the rounds' ratios and their spread; with ``as_json`` end with one JSON line of them."""
    shown = summary(rounds)
    print("server ÷ floor, the two played in turn in each round:")
    for games, figures in shown.items():
        for r in figures["rounds"]:
            each = ", ".join(f"{name} {_shown(r[key])}" for key, name in FIGURES.items())
            print(f"  {games} games, round {r['round']} ({r['first']} first): {each}")
        parts = [
            f"{name} {s['median']:.2f} ({s['min']:.2f}-{s['max']:.2f})"
            for key, name in FIGURES.items()
            if (s := figures[key]) is not None
        ]
        print(f"  {games} games, median (least-greatest): " + ("; ".join(parts) or "n/a"))
    if as_json:
        print(json.dumps({"vs_floor": shown}))
