"""Properties over random games (hypothesis drives the deal and every choice)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from positions import random_game

from kahuna.rules import ALL_ACTIONS, GameRecord, GameState, Variant, parse, view_of
from kahuna.rules.board import BRIDGES_PER_PLAYER, CONTROL, LINES, NUM_CARDS, STONES_PER_PLAYER

variants = st.builds(Variant, st.booleans(), st.booleans())


def _check_invariants(state: GameState) -> None:
    assert state.card_total() == NUM_CARDS
    assert state.invariant_violation() is None
    for seat in (0, 1):
        assert state.bridges.count(seat) + state.supply_bridges[seat] == BRIDGES_PER_PLAYER
        assert state.stones.count(seat) + state.supply_stones[seat] == STONES_PER_PLAYER
        for island, owner in enumerate(state.stones):
            if owner == seat:
                assert state.counts[seat][island] >= CONTROL[island]  # strict majority
        recount = [0] * 12
        for line, owner in enumerate(state.bridges):
            if owner == seat:
                for island in LINES[line]:
                    recount[island] += 1
        assert recount == state.counts[seat]
        assert sum(state.known[seat]) <= state.hand_size[seat]
        assert all(state.known[seat][c] <= state.hands[seat][c] for c in range(12))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), variant=variants)
def test_invariants_hold_and_legal_means_applicable(seed: int, variant: Variant) -> None:
    rng = random.Random(seed)
    state = GameState.new(random.Random(seed ^ 0x5EED), variant)
    while not state.is_over:
        _check_invariants(state)
        legal = state.legal_actions()
        assert legal, "a running game always has a legal action"
        assert [a.token for a in legal] == sorted({a.token for a in legal})
        legal_set = set(legal)
        for action in ALL_ACTIONS:  # legal_actions and why_illegal agree on every action
            assert (state.why_illegal(action) is None) == (action in legal_set), action
        state.apply(legal[rng.randrange(len(legal))])
    _check_invariants(state)
    assert state.outcome is not None and state.to_json()["to_move"] is None


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10**9), variant=variants, steps=st.integers(0, 200))
def test_record_round_trip_rebuilds_identical_state(seed: int, variant: Variant, steps: int) -> None:
    state = random_game(seed, steps, variant)
    record = GameRecord.of(state, players=["a", "b"], meta={"seed": seed})
    text = record.dumps()
    again = GameRecord.loads(text)
    assert again == record
    assert json.loads(again.dumps()) == json.loads(text)
    rebuilt = again.replay()
    assert rebuilt.to_json() == state.to_json()
    for seat in (0, 1, None):
        assert view_of(rebuilt, seat) == view_of(state, seat)
    assert GameState.from_json(state.to_json(), variant).to_json() == state.to_json()


def test_notation_round_trip_for_every_action() -> None:
    assert len({a.token for a in ALL_ACTIONS}) == len(ALL_ACTIONS) == 243
    for index, action in enumerate(ALL_ACTIONS):
        assert action.index == index
        assert parse(action.token) is action
        assert str(action) == action.token


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**9), steps=st.integers(0, 150))
def test_failed_actions_leave_the_state_unchanged(seed: int, steps: int) -> None:
    state = random_game(seed, steps)
    before = state.to_json()
    history = list(state.history)
    legal = set(state.legal_actions())
    for action in ALL_ACTIONS:
        if action not in legal:
            try:
                state.apply(action)
            except ValueError:
                pass
            else:  # pragma: no cover - would be a bug
                raise AssertionError(f"{action} applied although not legal")
            assert state.to_json() == before
            assert state.history == history


def test_copy_is_independent() -> None:
    state = random_game(3, 40)
    twin = state.copy()
    legal = twin.legal_actions()
    twin.apply(legal[-1])
    assert state.to_json() != twin.to_json() or legal[-1].ends_turn
    assert GameRecord.of(state).replay().to_json() == state.to_json()


def test_golden_legal_action_counts() -> None:
    """Legal-action counts along seeded games (choice i = legal[(7 * i) % len(legal)]), recorded
    once the engine matched every reference trace: any change in the rules shows up here."""
    golden = json.loads((Path(__file__).parent / "golden_counts.json").read_text())
    for seed, expected in golden.items():
        state = GameState.new(random.Random(int(seed)), Variant.from_names(expected["variant"]))
        counts: list[int] = []
        i = 0
        while not state.is_over:
            legal = state.legal_actions()
            counts.append(len(legal))
            state.apply(legal[(7 * i) % len(legal)])
            i += 1
        assert counts == expected["counts"]
        assert state.outcome is not None and state.outcome.to_json() == expected["result"]
