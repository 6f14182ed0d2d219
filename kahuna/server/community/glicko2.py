"""Glicko-2 ratings (Mark Glickman, "Example of the Glicko-2 system", 2013), as pure functions.

A rating period here is one game, as on lichess: each rated game updates both players at once
from their ratings before it. Kept small and free of I/O so that it can be checked against the
paper's worked example (``tests/server/test_glicko2.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALE = 173.7178
"""Glicko-2's factor between the Glicko scale (1500 ± 350) and its internal one."""
TAU = 0.5
"""The system constant: how much the volatility may change (Glickman suggests 0.3 to 1.2)."""
EPSILON = 0.000001
"""The convergence tolerance of the volatility's iteration (the paper's value)."""
MAX_DEVIATION = 350.0
"""A new player's deviation; a deviation never grows beyond it."""


@dataclass(frozen=True)
class Rating:
    """A player's rating, deviation (both on the Glicko scale) and volatility."""

    rating: float = 1500.0
    deviation: float = MAX_DEVIATION
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Rating, results: list[tuple[Rating, float]], tau: float = TAU) -> Rating:
    """``player``'s rating after one period against ``results`` (opponent, score 1, 0.5 or 0).

    With no games the deviation grows as time passes (step 6 of the paper) and nothing else changes.
    """
    mu = (player.rating - 1500) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:
        grown = math.sqrt(phi * phi + sigma * sigma) * SCALE
        return Rating(player.rating, min(grown, MAX_DEVIATION), sigma)
    v_inv = 0.0
    delta_sum = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - 1500) / SCALE
        phi_j = opponent.deviation / SCALE
        e = _expected(mu, mu_j, phi_j)
        g = _g(phi_j)
        v_inv += g * g * e * (1 - e)
        delta_sum += g * (score - e)
    v = 1 / v_inv
    delta = v * delta_sum
    new_sigma = _volatility(phi, sigma, v, delta, tau)
    phi_star = math.sqrt(phi * phi + new_sigma * new_sigma)
    new_phi = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    new_mu = mu + new_phi * new_phi * delta_sum
    return Rating(new_mu * SCALE + 1500, min(new_phi * SCALE, MAX_DEVIATION), new_sigma)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5 of the paper: the new volatility by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def game(first: Rating, second: Rating, score: float, tau: float = TAU) -> tuple[Rating, Rating]:
    """Both players after one game between them; ``score`` is ``first``'s (1 win, 0.5 draw, 0 loss)."""
    return update(first, [(second, score)], tau), update(second, [(first, 1 - score)], tau)
