"""Arena scoring and pairing as pure functions (lichess's rules as the model)."""

from __future__ import annotations

from kahuna.server.community import arena
from kahuna.server.community.arena import ArenaGame


def test_a_streak_doubles_until_a_game_is_not_won_and_berserk_adds_a_point() -> None:
    a, b = 1, 2
    no, yes = (False, False), (True, False)
    games = [
        ArenaGame((a, b), no, "0"),  # a wins: 2
        ArenaGame((b, a), no, "1"),  # a wins: 2, now on fire
        ArenaGame((a, b), yes, "0"),  # a wins on fire, berserked: 4 + 1
        ArenaGame((b, a), no, "draw"),  # a draws on fire: 2, the streak ends
        ArenaGame((a, b), no, "0"),  # a wins: 2
        ArenaGame((a, b), yes, "1"),  # a berserked and lost: 0
        ArenaGame((a, b), no, None),  # running: not counted
    ]
    table = {s.player: s for s in arena.standings([a, b], games)}
    assert table[a].sheet == (2, 2, 5, 2, 2, 0) and table[a].score == 13 and table[a].games == 6
    assert table[b].sheet == (0, 0, 0, 1, 0, 2) and table[b].score == 3
    assert not table[a].fire


def test_pairing_keeps_close_places_and_never_the_last_opponent() -> None:
    games = [ArenaGame((1, 2), (False, False), "0"), ArenaGame((3, 4), (False, False), "0")]
    order = [1, 3, 2, 4]
    pairs = arena.pair_waiting([1, 2, 3, 4], games, order)
    assert {frozenset(p) for p in pairs} == {frozenset((1, 3)), frozenset((2, 4))}
    assert arena.pair_waiting([1, 2], games, order) == []  # they just played each other
