"""The strength curve: Elo against thinking (iterations or seconds), each point with its interval.

Go and chess engines publish strength against visits as a chain of matches between neighbours on
the curve: each point plays the next one ``games`` games (arena deals, seats swapped), the Elo
differences add up from the first point (at 0), and so do their variances (the matches are
independent), so a point's interval widens along the chain. Neighbours are close in strength,
which keeps each score away from 0 % and 100 %, where an Elo difference has no finite estimate.

A point's x is what its spec spends: the median time per turn measured in its matches (always),
and its iterations or seconds per decision as given by the caller. :func:`table` and :func:`svg`
turn the points into the Markdown table and the plot of ``docs/ai.md`` (``tools/strength_curve.py``
is the command).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from kahuna.ai.eval.arena import PairingTally, run_tasks, schedule
from kahuna.ai.eval.stats import Z95, elo_difference, percentile, score_rate


@dataclass(frozen=True)
class Step:
    """One match between neighbours: the stronger-budget point's score against the one before."""

    games: int
    wins: int
    losses: int
    draws: int
    low: float
    high: float
    """The 95 % interval of the score rate (deals as units, ``PairingTally.interval``)."""

    @property
    def elo(self) -> float:
        return elo_difference(score_rate(self.wins, self.losses, self.draws))

    @property
    def elo_se(self) -> float:
        """The standard error of the Elo difference, read off the interval's ends."""
        return (elo_difference(self.high) - elo_difference(self.low)) / (2 * Z95)


@dataclass(frozen=True)
class Point:
    """A point of the curve: its spec, what it spends, and its Elo over the first point."""

    spec: str
    x: float
    """Iterations or seconds per decision, as the caller names them."""
    turn_seconds: float
    """Median seconds per turn in its matches (a turn is about two decisions)."""
    elo: float
    low: float
    high: float
    step: Step | None
    """The match against the point before (``None`` for the first)."""


def chain(
    specs: list[str], xs: list[float], games: int, seed: int, jobs: int, steps: list[Step] | None = None
) -> list[Point]:
    """Play each spec against the next, ``games`` games each on the arena's deals from ``seed``
    (every match the same deals), and place the points. ``steps`` (one per match) skips the games:
    known results, for tests and for re-drawing a curve."""
    if len(specs) < 2 or len(xs) != len(specs):
        raise ValueError("a curve needs at least two specs and one x per spec")
    turn_times: list[list[float]] = [[] for _ in specs]
    if steps is None:
        steps = [_match(specs, k, games, seed, jobs, turn_times) for k in range(len(specs) - 1)]
    points = [Point(specs[0], xs[0], percentile(turn_times[0], 0.5), 0.0, 0.0, 0.0, None)]
    elo, variance = 0.0, 0.0
    for k, step in enumerate(steps, start=1):
        elo += step.elo
        variance += step.elo_se**2
        half = Z95 * math.sqrt(variance)
        points.append(Point(specs[k], xs[k], percentile(turn_times[k], 0.5), elo, elo - half, elo + half, step))
    return points


def _match(specs: list[str], k: int, games: int, seed: int, jobs: int, turn_times: list[list[float]]) -> Step:
    """Point ``k + 1`` (first in the pairing) against point ``k``."""
    tally = PairingTally((specs[k + 1], specs[k]))
    for outcome in run_tasks(schedule([specs[k + 1], specs[k]], games, seed, False), jobs):
        tally.add(outcome)
        first = outcome.first_seat
        turn_times[k + 1].extend(outcome.result.turn_seconds[first])
        turn_times[k].extend(outcome.result.turn_seconds[1 - first])
    low, high = tally.interval()
    return Step(tally.games, tally.wins, tally.losses, tally.draws, low, high)


def table(points: list[Point], x_name: str) -> str:
    """The Markdown table of the curve."""
    lines = [
        f"| {x_name} | median s/turn | match vs previous (W–L–D) | Elo vs first | 95 % interval |",
        "|---:|---:|:---|---:|:---|",
    ]
    for point in points:
        step = point.step
        match = "—" if step is None else f"{step.wins}–{step.losses}–{step.draws} ({step.elo:+.0f})"
        interval = "—" if step is None else f"{point.low:+.0f} … {point.high:+.0f}"
        lines.append(f"| {point.x:g} | {point.turn_seconds:.3f} | {match} | {point.elo:+.0f} | {interval} |")
    return "\n".join(lines)


def svg(points: list[Point], x_name: str, title: str, width: int = 640, height: int = 400) -> str:
    """The curve as an SVG plot: Elo against ``x`` on a logarithmic axis, with interval bars."""
    left, right, top, bottom = 70, 20, 40, 50
    xs = [math.log10(p.x) for p in points]
    lows, highs = [p.low for p in points], [p.high for p in points]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(lows), max(highs)
    pad_x, pad_y = 0.05 * ((x1 - x0) or 1), 0.05 * ((y1 - y0) or 100)
    x0, x1, y0, y1 = x0 - pad_x, x1 + pad_x, y0 - pad_y, y1 + pad_y

    def sx(value: float) -> float:
        return left + (value - x0) / (x1 - x0) * (width - left - right)

    def sy(value: float) -> float:
        return height - bottom - (value - y0) / (y1 - y0) * (height - top - bottom)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="white"/>',
        f'<text x="{width / 2:.0f}" y="22" text-anchor="middle" font-size="14">{_escape(title)}</text>',
        f'<line x1="{left}" y1="{height - bottom}" x2="{width - right}" y2="{height - bottom}" stroke="black"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}" stroke="black"/>',
        f'<text x="{(left + width - right) / 2:.0f}" y="{height - 12}" text-anchor="middle">'
        f"{_escape(x_name)} (log scale)</text>",
        f'<text x="16" y="{(top + height - bottom) / 2:.0f}" text-anchor="middle" '
        f'transform="rotate(-90 16 {(top + height - bottom) / 2:.0f})">Elo over the first point</text>',
    ]
    for decade in range(math.floor(x0), math.ceil(x1) + 1):
        for mantissa in (1, 2, 5):
            value = math.log10(mantissa) + decade
            if x0 <= value <= x1:
                x, base = sx(value), height - bottom
                parts.append(f'<line x1="{x:.1f}" y1="{base}" x2="{x:.1f}" y2="{base + 5}" stroke="black"/>')
                label = f"{mantissa * 10.0**decade:g}"
                parts.append(f'<text x="{x:.1f}" y="{base + 18}" text-anchor="middle">{label}</text>')
    step = _nice_step((y1 - y0) / 6)
    tick = math.ceil(y0 / step) * step
    while tick <= y1:
        y = sy(tick)
        parts.append(f'<line x1="{left - 5}" y1="{y:.1f}" x2="{width - right}" y2="{y:.1f}" stroke="#ddd"/>')
        parts.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{tick:+.0f}</text>')
        tick += step
    path = " ".join(
        f"{'M' if i == 0 else 'L'}{sx(x):.1f},{sy(p.elo):.1f}" for i, (x, p) in enumerate(zip(xs, points, strict=True))
    )
    parts.append(f'<path d="{path}" fill="none" stroke="#1f5fa8" stroke-width="2"/>')
    for x, point in zip(xs, points, strict=True):
        cx = sx(x)
        parts.append(
            f'<line x1="{cx:.1f}" y1="{sy(point.low):.1f}" x2="{cx:.1f}" y2="{sy(point.high):.1f}" stroke="#1f5fa8"/>'
        )
        parts.append(f'<circle cx="{cx:.1f}" cy="{sy(point.elo):.1f}" r="4" fill="#1f5fa8"/>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _nice_step(raw: float) -> float:
    magnitude = 10.0 ** math.floor(math.log10(raw)) if raw > 0 else 1.0
    for factor in (1, 2, 5, 10):
        if factor * magnitude >= raw:
            return factor * magnitude
    return 10 * magnitude


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
