"""Arena statistics: score rate with a 95 % interval over deals, Elo differences, an Elo ladder, percentiles.

A draw counts as half a win throughout, as in chess ratings.
"""

from __future__ import annotations

import math

Z95 = 1.959964
ELO_CAP = 800.0
"""Elo differences are reported within ±this: a clean sweep has no finite estimate."""


def score_rate(wins: int, losses: int, draws: int) -> float:
    games = wins + losses + draws
    return (wins + 0.5 * draws) / games if games else 0.5


def paired_interval(pair_scores: list[float], games: int) -> tuple[float, float]:
    """95 % interval of the score rate when games come in seat-swapped pairs of one deal.

    ``pair_scores`` holds one score in [0, 1] per deal (the mean of its games; a deal played once
    counts with its one game), ``games`` the number of games behind them. The two games of a deal
    are not independent (a deal that suits one agent's play helps it in both seats), so the
    spread is measured between deals: the Wilson interval with the effective number of games
    ``n_eff = rate(1 - rate) / var``, ``var`` the sample variance of the deal scores over their
    count. ``n_eff`` is kept between the number of deals (the most variance scores in [0, 1] can
    have) and the number of games (no more precision than independent games, even when the seat
    swap cancels luck and the deals vary less), so the interval is never narrower than the
    per-game Wilson interval; with no spread at all it equals it.
    """
    pairs = len(pair_scores)
    if pairs == 0 or games <= 0:
        return 0.0, 1.0
    rate = sum(pair_scores) / pairs
    spread = sum((x - rate) ** 2 for x in pair_scores) / (pairs - 1) if pairs > 1 else 0.0
    n_eff = float(games) if spread == 0 else max(float(pairs), min(float(games), rate * (1 - rate) * pairs / spread))
    return _wilson(rate, n_eff)


def _wilson(rate: float, n: float) -> tuple[float, float]:
    """Wilson score interval for ``n`` (possibly effective, fractional) trials; sound at 0 % and 100 %."""
    z2 = Z95 * Z95
    centre = (rate + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 * math.sqrt(rate * (1 - rate) / n + z2 / (4 * n * n)) / (1 + z2 / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_difference(rate: float) -> float:
    """The Elo difference that predicts ``rate``, capped at ±:data:`ELO_CAP`."""
    if rate <= 0.0:
        return -ELO_CAP
    if rate >= 1.0:
        return ELO_CAP
    return max(-ELO_CAP, min(ELO_CAP, 400.0 * math.log10(rate / (1.0 - rate))))


def elo_ladder(n: int, results: dict[tuple[int, int], tuple[int, int, int]], iterations: int = 2000) -> list[float]:
    """Elo ratings of ``n`` agents from pairwise ``(wins, losses, draws)`` of ``i`` against ``j``.

    A Bradley-Terry fit (minorization-maximization) with one virtual draw per played pairing, so
    that a clean sweep still gives a finite rating; agent 0 is pinned at 0.
    """
    score = [[0.0] * n for _ in range(n)]
    games = [[0.0] * n for _ in range(n)]
    for (i, j), (w, lost, d) in results.items():
        played = w + lost + d
        if not played:
            continue
        score[i][j] += w + 0.5 * d + 0.5
        score[j][i] += lost + 0.5 * d + 0.5
        games[i][j] += played + 1
        games[j][i] += played + 1
    strength = [1.0] * n
    for _ in range(iterations):
        for i in range(n):
            total = sum(score[i])
            denominator = sum(games[i][j] / (strength[i] + strength[j]) for j in range(n) if games[i][j])
            if total > 0 and denominator > 0:
                strength[i] = total / denominator
    return [400.0 * math.log10(s / strength[0]) for s in strength]


def percentile(values: list[float], fraction: float) -> float:
    """The ``fraction`` quantile (nearest rank) of ``values``; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(0, min(len(ordered) - 1, math.ceil(fraction * len(ordered)) - 1))
    return ordered[rank]
