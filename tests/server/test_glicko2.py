"""Glicko-2 against the worked example of Glickman's paper, and the properties a rating must have."""

from __future__ import annotations

import pytest

from kahuna.server.community.glicko2 import MAX_DEVIATION, Rating, game, update


def test_the_papers_worked_example() -> None:
    player = Rating(1500, 200, 0.06)
    results = [(Rating(1400, 30), 1.0), (Rating(1550, 100), 0.0), (Rating(1700, 300), 0.0)]
    after = update(player, results, tau=0.5)
    assert after.rating == pytest.approx(1464.06, abs=0.01)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_a_period_without_games_only_widens_the_deviation() -> None:
    after = update(Rating(1600, 100, 0.06), [])
    assert after.rating == 1600
    assert after.volatility == 0.06
    assert 100 < after.deviation < 101
    assert update(Rating(1500, MAX_DEVIATION), []).deviation == MAX_DEVIATION


def test_one_game_between_new_players_is_symmetric() -> None:
    winner, loser = game(Rating(), Rating(), 1.0)
    assert winner.rating > 1500 > loser.rating
    assert winner.rating - 1500 == pytest.approx(1500 - loser.rating)
    assert winner.deviation == pytest.approx(loser.deviation)
    assert winner.deviation < MAX_DEVIATION


def test_a_draw_between_equals_moves_nobody_and_beating_a_stronger_player_gains_more() -> None:
    first, second = game(Rating(1500, 80), Rating(1500, 80), 0.5)
    assert first.rating == pytest.approx(1500) and second.rating == pytest.approx(1500)
    upset, _ = game(Rating(1500, 80), Rating(1800, 80), 1.0)
    expected, _ = game(Rating(1500, 80), Rating(1200, 80), 1.0)
    assert upset.rating - 1500 > expected.rating - 1500 > 0
