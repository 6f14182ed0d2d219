"""Player views hide what they must, and determinization samples uniformly what they hide."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from positions import random_game

from kahuna.rules import GameState, PlayerView, Termination, Variant, determinize, public_json, view_json, view_of
from kahuna.rules.board import LETTERS, NUM_ISLANDS
from kahuna.rules.views import hidden_slots


def _without_history(view: PlayerView) -> dict[str, object]:
    data = view.to_json()
    del data["history"]
    return data


def _swap_hidden(state: GameState, viewer: int) -> GameState | None:
    """A twin of ``state`` differing only in cards ``viewer`` cannot see (or None if none differ)."""
    other = 1 - viewer
    twin = state.copy()
    hand = twin.hands[other]
    unknown = [c for c in range(NUM_ISLANDS) if hand[c] > twin.known[other][c]]
    for c in unknown:
        for i, d in enumerate(twin.deck):
            if d != c:
                hand[c] -= 1
                hand[d] += 1
                twin.deck[i] = c
                return twin
    if len(set(twin.deck)) > 1:
        twin.deck.reverse()
        return twin if twin.deck != state.deck else None
    return None


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), steps=st.integers(0, 160))
def test_views_do_not_depend_on_hidden_cards(seed: int, steps: int) -> None:
    state = random_game(seed, steps)
    for viewer in (0, 1):
        twin = _swap_hidden(state, viewer)
        if twin is None:
            continue
        assert twin.to_json() != state.to_json()
        assert view_of(twin, viewer).to_json() == view_of(state, viewer).to_json()
        assert view_of(twin, None).to_json() == view_of(state, None).to_json()


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**9), steps=st.integers(0, 160), sample_seed=st.integers(0, 10**6))
def test_determinization_is_consistent_with_the_view(seed: int, steps: int, sample_seed: int) -> None:
    state = random_game(seed, steps)
    for viewer in (0, 1, None):
        view = view_of(state, viewer)
        sample = determinize(view, random.Random(sample_seed))
        assert sample.invariant_violation() is None
        assert _without_history(view_of(sample, viewer)) == _without_history(view)
        for seat in (0, 1):
            assert all(sample.hands[seat][c] >= view.known[seat][c] for c in range(NUM_ISLANDS))
        if viewer is not None and not state.is_over and state.to_move == viewer:
            assert sample.legal_actions() == state.legal_actions()


def test_view_json_round_trip_and_redacted_history() -> None:
    state = random_game(11, 90)
    for viewer in (0, 1, None):
        view = view_of(state, viewer)
        data = json.loads(json.dumps(view.to_json()))
        assert PlayerView.from_json(data) == view
    tokens0 = view_of(state, 0).history
    tokens1 = view_of(state, 1).history
    for (actor, action), t0, t1 in zip(state.history, tokens0, tokens1, strict=True):
        if action.token.startswith("-"):
            assert (t0 == action.token) == (actor == 0)
            assert (t1 == action.token) == (actor == 1)
            assert "-?" in (t0, t1)
        else:
            assert t0 == t1 == action.token
    spectator = view_of(state, None).to_json()
    assert spectator["hand"] is None and spectator["own_face_down"] is None


def test_view_json_from_the_state_is_the_view_to_json() -> None:
    """``view_json`` (built straight from the state, the server's hot path) is
    ``view_of(...).to_json()`` key for key and in the same order, with or without ``history`` or a
    shared ``public_json``, built from the previous step's or not, at every step of random games of
    every variant, ended on the board or off it."""
    for seed in range(24):
        rng = random.Random(seed)
        state = GameState.new(rng, Variant(no_build_at_enemy_stone=seed % 2 == 1, replace_on_remove=seed % 4 >= 2))
        earlier: dict[object, tuple[GameState, dict[str, Any]]] = {}
        while True:
            for viewer in (0, 1, None):
                whole = view_of(state, viewer).to_json()
                fast = view_json(state, viewer)
                assert fast == whole and list(fast) == list(whole)
                del whole["history"]
                short = view_json(state, viewer, history=False)
                assert short == whole and list(short) == list(whole)
                shared = view_json(state, viewer, history=False, public=public_json(state))
                assert shared == whole and list(shared) == list(whole)
                if viewer in earlier:
                    public = public_json(state, earlier["public"])
                    assert public == public_json(state) and list(public) == list(public_json(state))
                    follow = view_json(state, viewer, history=False, public=public, previous=earlier[viewer])
                    assert follow == whole and list(follow) == list(whole)
                    other = view_json(state, viewer, history=False, previous=earlier[1 if viewer == 0 else 0])
                    assert other == whole  # another viewer's view before: nothing taken over from it
                earlier[viewer] = (state, shared)
            earlier["public"] = (state, public_json(state))
            if state.is_over:
                break
            state = state.copy()  # as the server does: a state viewed is never changed again
            if seed % 3 == 0 and rng.random() < 0.01:
                state.terminate(Termination("resign", state.to_move))
            else:
                state.apply(rng.choice(state.legal_actions()))


def test_view_json_never_holds_hidden_cards() -> None:
    state = random_game(5, 30)
    opponent_hand = state.to_json()["hands"][1]
    view = view_of(state, 0).to_json()
    assert "deck" not in view and "hands" not in view
    assert view["hand_sizes"][1] == len(opponent_hand)
    assert view["known"][1] in opponent_hand or view["known"][1] == ""


def test_determinization_is_uniform() -> None:
    """Every unseen card copy is equally likely in every hidden slot (checked on the opponent's
    hand and on the top of the deck, within five standard deviations)."""
    state = GameState.new(random.Random(2024), Variant())
    state.apply("pass")  # seat 0 declines: seat 1 to move; view of seat 1 hides seat 0's 3 cards
    view = view_of(state, 1)
    hand_slots, down_slots, deck_size = hidden_slots(view)
    assert hand_slots == [3, 0] and down_slots == [0, 0] and deck_size == 15
    unseen = view.unseen()
    pool_size = sum(unseen)
    assert pool_size == 18
    rng = random.Random(99)
    n = 6000
    in_hand = Counter[int]()
    on_top = Counter[int]()
    for _ in range(n):
        sample = determinize(view, rng)
        for c in range(NUM_ISLANDS):
            in_hand[c] += sample.hands[0][c]
        on_top[sample.deck[-1]] += 1
    for c in range(NUM_ISLANDS):
        expected_hand = n * 3 * unseen[c] / pool_size
        expected_top = n * unseen[c] / pool_size
        if unseen[c]:
            assert abs(in_hand[c] - expected_hand) < 5 * expected_hand**0.5 + 1, LETTERS[c]
            assert abs(on_top[c] - expected_top) < 5 * expected_top**0.5 + 1, LETTERS[c]
        else:
            assert in_hand[c] == 0 and on_top[c] == 0


def test_determinization_respects_known_cards() -> None:
    state = GameState.new(random.Random(8))
    card = next(c for c in range(NUM_ISLANDS) if state.display[c])
    state.apply(f"d{LETTERS[card]}")  # seat 0 takes it face up
    view = view_of(state, 1)
    assert view.known[0][card] == 1
    rng = random.Random(1)
    for _ in range(200):
        assert determinize(view, rng).hands[0][card] >= 1
