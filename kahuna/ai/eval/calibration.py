"""Are the analysis's win estimates honest? A reliability diagram over finished games.

From every record in a directory (e.g. written by ``kahuna arena ... --records DIR``) we sample a
few searched decisions, estimate the mover's chance to win there exactly as ``kahuna analyse``
does (:func:`kahuna.ai.review.analysis.judge`, from the mover's own view), and compare with how the game
actually ended for that seat (a win 1, a draw ½, a loss 0). Estimates are put in ten bins of
width 0.1; a calibrated estimator wins about p of the positions it puts at p. We report, per
bin, the count, the mean estimate, the observed rate with a 95 % Wilson interval, and overall
the Brier score and the expected calibration error (the count-weighted mean gap between a bin's
estimate and its observed rate). Positions of one game are not independent, so the intervals
are narrower than they should be; docs/analysis.md says so.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kahuna.ai.eval.stats import _wilson as wilson  # the arena's Wilson score interval
from kahuna.ai.review.analysis import Budget, Decision, decisions, judge, seed_for
from kahuna.progress import Progress
from kahuna.rules import GameRecord, KahunaError, legal_actions_of

BINS = 10
MAX_RECORDS = 10_000


@dataclass(frozen=True)
class Sample:
    """One estimated position and how its game ended for the mover."""

    game: str
    step: int
    estimate: float
    """``win_before``: the mover's estimated chance, before choosing."""
    estimate_best: float
    """``win_best``: the estimate after the best action found."""
    outcome: float


def sample_decisions(record: GameRecord, count: int, rng: random.Random) -> list[Decision]:
    """Up to ``count`` decisions of ``record`` with more than one legal action, chosen at random."""
    searched = [d for d in decisions(record) if len(legal_actions_of(d.view)) > 1]
    return sorted(rng.sample(searched, min(count, len(searched))), key=lambda d: d.step)


def _estimate(args: tuple[str, Decision, float, Budget, int]) -> Sample:
    game, decision, outcome, budget, seed = args
    j = judge(decision.view, decision.played, budget, seed_for(seed, decision.step))
    return Sample(game, decision.step, j.win_before, j.win_best, outcome)


def tasks_of(
    directory: Path, budget: Budget, seed: int, positions: int
) -> tuple[list[tuple[str, Decision, float, Budget, int]], list[str]]:
    """The positions to estimate (with each game's result for the mover) and the skipped files."""
    tasks: list[tuple[str, Decision, float, Budget, int]] = []
    skipped: list[str] = []
    for path in sorted(directory.glob("*.json"))[:MAX_RECORDS]:
        try:
            record = GameRecord.loads(path.read_text(encoding="utf-8"))
            outcome = record.replay().outcome
        except (OSError, UnicodeDecodeError, KahunaError) as exc:
            skipped.append(f"{path.name}: {exc}")
            continue
        if outcome is None:
            skipped.append(f"{path.name}: the game is not finished")
            continue
        rng = random.Random(f"{seed}:{path.name}")
        for decision in sample_decisions(record, positions, rng):
            result = 0.5 if outcome.winner is None else float(outcome.winner == decision.seat)
            tasks.append((path.name, decision, result, budget, seed))
    return tasks, skipped


def _run(tasks: list[tuple[str, Decision, float, Budget, int]], jobs: int) -> Iterator[Sample]:
    if jobs <= 1:
        yield from map(_estimate, tasks)
        return
    with ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(_estimate, tasks, chunksize=4)


def reliability(samples: list[Sample], best: bool = False) -> dict[str, Any]:
    """Bins, Brier score and expected calibration error of the estimates (``best``: of win_best)."""
    bins: list[list[Sample]] = [[] for _ in range(BINS)]
    for s in samples:
        p = s.estimate_best if best else s.estimate
        bins[min(BINS - 1, int(p * BINS))].append(s)
    rows = []
    gap = 0.0
    for i, members in enumerate(bins):
        if not members:
            continue
        n = len(members)
        mean = sum(s.estimate_best if best else s.estimate for s in members) / n
        observed = sum(s.outcome for s in members) / n
        low, high = wilson(observed, n)
        rows.append(
            {
                "bin": [i / BINS, (i + 1) / BINS],
                "n": n,
                "estimate": round(mean, 4),
                "observed": round(observed, 4),
                "interval95": [round(low, 4), round(high, 4)],
            }
        )
        gap += n * abs(mean - observed)
    total = len(samples)
    brier = sum(((s.estimate_best if best else s.estimate) - s.outcome) ** 2 for s in samples) / max(1, total)
    return {"positions": total, "brier": round(brier, 4), "ece": round(gap / max(1, total), 4), "bins": rows}


def svg_diagram(table: dict[str, Any], title: str) -> str:
    """The reliability diagram as a self-contained SVG: observed rate against estimate, per bin,
    with the 95 % intervals, the diagonal of perfect calibration and the counts."""
    size, pad = 360, 50
    plot = size - 2 * pad

    def x(p: float) -> float:
        return pad + p * plot

    def y(p: float) -> float:
        return size - pad - p * plot

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size + 20}" '
        f'viewBox="0 0 {size} {size + 20}" font-family="sans-serif" font-size="11">',
        f'<rect width="{size}" height="{size + 20}" fill="white"/>',
        f'<text x="{size / 2}" y="18" text-anchor="middle" font-size="13">{title}</text>',
        f'<rect x="{pad}" y="{pad}" width="{plot}" height="{plot}" fill="none" stroke="#888"/>',
        f'<line x1="{x(0)}" y1="{y(0)}" x2="{x(1)}" y2="{y(1)}" stroke="#aaa" stroke-dasharray="4 3"/>',
    ]
    for t in range(0, 11, 2):
        p = t / 10
        parts.append(f'<text x="{x(p)}" y="{size - pad + 15}" text-anchor="middle">{p:.1f}</text>')
        parts.append(f'<text x="{pad - 6}" y="{y(p) + 4}" text-anchor="end">{p:.1f}</text>')
    parts.append(f'<text x="{size / 2}" y="{size - 12}" text-anchor="middle">estimated chance to win</text>')
    parts.append(
        f'<text x="14" y="{size / 2}" text-anchor="middle" transform="rotate(-90 14 {size / 2})">'
        "observed win rate</text>"
    )
    points = []
    for row in table["bins"]:
        cx, cy = x(row["estimate"]), y(row["observed"])
        low, high = row["interval95"]
        parts.append(f'<line x1="{cx:.1f}" y1="{y(low):.1f}" x2="{cx:.1f}" y2="{y(high):.1f}" stroke="#36c"/>')
        parts.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="3.5" fill="#36c"/>')
        parts.append(f'<text x="{cx + 5:.1f}" y="{cy - 5:.1f}" fill="#555" font-size="9">{row["n"]}</text>')
        points.append(f"{cx:.1f},{cy:.1f}")
    parts.append(f'<polyline points="{" ".join(points)}" fill="none" stroke="#36c"/>')
    summary = f"{table['positions']} positions, Brier {table['brier']:.3f}, ECE {table['ece']:.3f}"
    parts.append(f'<text x="{size / 2}" y="{size + 10}" text-anchor="middle">{summary}</text>')
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def run_calibration(
    directory: str, budget: Budget, seed: int, jobs: int, positions: int, svg: str | None, as_json: bool
) -> int:
    """``kahuna analyse --calibrate DIR``: print the reliability table (and write the SVG)."""
    folder = Path(directory)
    if not folder.is_dir():
        print(f"kahuna analyse: {directory} is not a directory of records", file=sys.stderr)
        return 2
    if not 1 <= positions <= 1000:
        print("kahuna analyse: --positions must be between 1 and 1000", file=sys.stderr)
        return 2
    tasks, skipped = tasks_of(folder, budget, seed, positions)
    for line in skipped:
        print(f"skipped {line}", file=sys.stderr)
    if not tasks:
        print(f"kahuna analyse: no finished game in {directory}", file=sys.stderr)
        return 2
    samples: list[Sample] = []
    with Progress(len(tasks), "positions") as bar:
        for sample in _run(tasks, jobs):
            samples.append(sample)
            bar.advance()
    games = len({s.game for s in samples})
    table = reliability(samples)
    table_best = reliability(samples, best=True)
    print(f"{games} games, {len(samples)} positions, budget {budget.iterations} iterations, seed {seed}")
    print(f"{'estimate':>12} {'n':>5} {'mean':>6} {'observed':>9} {'95 % interval':>15}")
    for row in table["bins"]:
        low, high = row["interval95"]
        print(
            f"{row['bin'][0]:5.1f}–{row['bin'][1]:<5.1f} {row['n']:>5} {row['estimate']:6.3f} "
            f"{row['observed']:9.3f} {low:7.3f}–{high:.3f}"
        )
    print(f"win_before: Brier {table['brier']:.4f}, ECE {table['ece']:.4f}")
    print(f"win_best:   Brier {table_best['brier']:.4f}, ECE {table_best['ece']:.4f}")
    if svg:
        title = f"Reliability of win_before ({games} games)"
        Path(svg).write_text(svg_diagram(table, title), encoding="utf-8")
    if as_json:
        print(json.dumps({"games": games, "win_before": table, "win_best": table_best}))
    return 0
