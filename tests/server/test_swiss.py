"""Swiss pairing and standings as pure functions: many simulated events with seeded random results."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from kahuna.server.community import swiss
from kahuna.server.community.swiss import Played


def simulate(players: int, rounds: int, seed: int) -> list[Played]:
    rng = random.Random(seed)
    played: list[Played] = []
    active = list(range(1, players + 1))
    for number in range(1, rounds + 1):
        boards = swiss.pair_round(active, played)
        if boards is None:
            break
        for first, second in boards:
            if second is None:
                played.append(Played(number, (first, None), swiss.BYE))
            else:
                result = rng.choice([swiss.SEAT0, swiss.SEAT1, swiss.SEAT0, swiss.SEAT1, swiss.DRAWN])
                played.append(Played(number, (first, second), result))
    return played


@pytest.mark.parametrize("players,rounds", [(7, 6), (8, 7), (6, 5), (9, 5), (12, 6), (3, 2), (5, 4)])
def test_simulated_events_never_repeat_a_pair_and_spread_byes_and_colours(players: int, rounds: int) -> None:
    for seed in range(40):
        played = simulate(players, rounds, seed)
        rounds_played = max(b.round for b in played)
        pairs = [frozenset(b.seats) for b in played if b.seats[1] is not None]
        assert len(pairs) == len(set(pairs)), f"seed {seed}: a pair met twice"
        byes = Counter(b.seats[0] for b in played if b.seats[1] is None)
        assert all(count == 1 for count in byes.values()), f"seed {seed}: a second bye {byes}"
        assert len(byes) == (rounds_played if players % 2 else 0)
        for player in range(1, players + 1):
            balance, _ = swiss._colour_balance(player, played)
            assert abs(balance) <= 2, f"seed {seed}: player {player} off balance by {balance}"
        for number in range(1, rounds_played + 1):
            seated = [p for b in played if b.round == number for p in b.seats if p is not None]
            assert sorted(seated) == list(range(1, players + 1))  # everyone plays once a round


def test_fewer_rounds_than_players_are_all_paired() -> None:
    """Seven players, five rounds (the server test's event): 200 simulated events all reach round 5,
    every colour within one (an odd number of games each)."""
    for seed in range(200):
        played = simulate(7, 5, seed)
        assert max(b.round for b in played) == 5, f"seed {seed}"
        assert all(abs(swiss._colour_balance(p, played)[0]) <= 1 for p in range(1, 8))


def test_an_event_with_every_pair_played_has_no_next_round() -> None:
    """Four players after three rounds have met everyone: no fourth round (the event ends)."""
    played = simulate(4, 3, 1)
    assert max(b.round for b in played) == 3
    assert swiss.pair_round([1, 2, 3, 4], played) is None


def test_close_scores_meet() -> None:
    """Round 2 of eight players: the four winners of round 1 play each other."""
    played = [Played(1, (1, 2), swiss.SEAT0), Played(1, (3, 4), swiss.SEAT1),
              Played(1, (5, 6), swiss.SEAT0), Played(1, (7, 8), swiss.SEAT1)]  # fmt: skip
    winners = {1, 4, 5, 8}
    boards = swiss.pair_round(range(1, 9), played)
    assert boards is not None
    for board in boards:
        assert (board[0] in winners) == (board[1] in winners)


def test_standings_and_tie_breaks_by_hand() -> None:
    """Four players, two rounds: a wins both, b beats d then loses to a, c draws twice."""
    a, b, c, d = 1, 2, 3, 4
    played = [
        Played(1, (a, c), swiss.SEAT0), Played(1, (b, d), swiss.SEAT0),
        Played(2, (d, a), swiss.SEAT1), Played(2, (c, b), swiss.DRAWN),
    ]  # fmt: skip
    table = {s.player: s for s in swiss.standings([a, b, c, d], played)}
    assert [s.player for s in swiss.standings([a, b, c, d], played)] == [a, b, c, d]
    assert {p: table[p].score for p in table} == {a: 4, b: 3, c: 1, d: 0}
    # Buchholz (half-points): a met c (1) and d (0); b met d (0) and c (1); c met a and b; d met b and a
    assert {p: table[p].buchholz for p in table} == {a: 1, b: 1, c: 7, d: 7}
    # Sonneborn–Berger (quarter-points): a beat c (1 half-point) and d (0): 2·1 + 2·0; b beat d (0)
    # and drew c: 1·1; c drew b (3 half-points): 1·3; d nothing
    assert {p: table[p].sonneborn_berger for p in table} == {a: 2, b: 1, c: 3, d: 0}
    assert all(table[p].games == 2 for p in table)


def test_a_bye_counts_one_point_and_no_tie_break() -> None:
    played = [Played(1, (1, 2), swiss.SEAT0), Played(1, (3, None), swiss.BYE)]
    table = {s.player: s for s in swiss.standings([1, 2, 3], played)}
    assert table[3].score == 2 and table[3].buchholz == 0 and table[3].games == 1
