"""Foresight (issue 53): the consequences of each legal action and the islands one bridge would
change, computed from a seat's view alone, agree with the referee applied to the real game and
do not depend on a hidden card."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st
from positions import position, random_game
from test_rules_views import _swap_hidden

from kahuna.rules import Event, GameState, Variant, view_of
from kahuna.rules.board import LETTERS
from kahuna.rules.foresight import close_islands, consequences
from kahuna.rules.state import NOBODY

PUBLIC_FOLLOWERS = {"island_claimed", "bridge_returned", "stone_lost", "round_scored", "final_turns_began", "game_over"}


def _follows(event: dict[str, object]) -> bool:
    """An event beyond the action itself that the rules make public (the variant's replacing bridge too)."""
    return event["type"] in PUBLIC_FOLLOWERS or (event["type"] == "bridge_built" and event["card"] is None)


def _on_the_real_game(state: GameState) -> dict[str, list[dict[str, object]]]:
    """Each legal action applied to a copy of the whole game (its own RNG for a reshuffle), with
    the events beyond the action itself that the rules make public."""
    out: dict[str, list[dict[str, object]]] = {}
    for action in state.legal_actions():
        trial = state.copy()
        trial.rng = random.Random(1)
        events = [e.to_json() for e in trial.apply(action)]
        kept = [e for e in events if _follows(e)]
        if kept:
            out[action.token] = kept
    return out


def _as_json(found: dict[str, list[Event]]) -> dict[str, list[dict[str, object]]]:
    return {token: [e.to_json() for e in events] for token, events in found.items()}


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10**9), steps=st.integers(0, 200), replace=st.booleans(), no_enemy=st.booleans())
def test_consequences_are_the_referees_and_hide_nothing(seed: int, steps: int, replace: bool, no_enemy: bool) -> None:
    variant = Variant(no_build_at_enemy_stone=no_enemy, replace_on_remove=replace)
    state = random_game(seed, steps, variant)
    mover = state.to_move
    seen = _as_json(consequences(view_of(state, mover)))
    assert seen == _on_the_real_game(state)
    twin = _swap_hidden(state, mover)
    if twin is not None:  # the same for a game that differs only in cards the mover cannot see
        assert _as_json(consequences(view_of(twin, mover))) == seen
    assert consequences(view_of(state, 1 - mover)) == {}  # nothing for the seat not to move
    assert consequences(view_of(state, None)) == {}  # nor for a spectator
    closes = [c.to_json() for c in close_islands(view_of(state, None))]
    assert [c.to_json() for c in close_islands(view_of(state, mover))] == closes  # public: one answer for all
    if twin is not None:
        assert [c.to_json() for c in close_islands(view_of(twin, None))] == closes


def test_a_build_that_claims_and_sweeps_is_foreseen() -> None:
    # White holds BARI (AB BD BF) and GOLA (FG GJ GK); Black's F>J claims FAAA and costs White both.
    s = position(
        bridges={"AB": 1, "BD": 1, "BF": 1, "FG": 1, "GJ": 1, "GK": 1, "CF": 0, "EF": 0},
        stones={"B": 1, "G": 1},
        hands=("F", ""),
        display="ADE",
        deck="HI",
    )
    found = _as_json(consequences(view_of(s, 0)))
    assert found["F>J"] == [
        {"type": "island_claimed", "seat": 0, "island": "F"},
        {"type": "bridge_returned", "owner": 1, "line": "BF"},
        {"type": "stone_lost", "owner": 1, "island": "B"},
        {"type": "bridge_returned", "owner": 1, "line": "FG"},
        {"type": "stone_lost", "owner": 1, "island": "G"},
    ]
    assert "d?" not in found and "dA" not in found  # a draw causes nothing known beyond itself
    closes = {(LETTERS[c.island], c.seat, c.change) for c in close_islands(view_of(s, 0))}
    assert ("F", 0, "claim") in closes  # Black holds 2 of FAAA's 5 lines (3 control it)
    assert ("B", 1, "lose") in closes and ("G", 1, "lose") in closes  # each stone held by exactly 3 bridges
    assert s.stones[LETTERS.index("F")] == NOBODY  # the game itself is untouched


def test_the_draw_that_ends_a_round_foresees_its_scoring_not_the_new_display() -> None:
    s = position(stones={"A": 0}, bridges={"AB": 0, "AD": 0, "EJ": 1}, hands=("C", "E"), display="K", deck="")
    found = _as_json(consequences(view_of(s, 0)))
    assert found["dK"] == [{"type": "round_scored", "round": 1, "stones": [1, 0], "points": [1, 0], "final": False}]
