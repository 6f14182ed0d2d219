"""Protocol 3's patch computed from the two states (``view_patch.from_states``) is the patch of
the two views (``patch(expected(view before, events), view after)``) wherever it answers, for both
seats and a spectator over whole random games of every variant, and it answers for most actions
(else the server would build the views anyway and gain nothing)."""

from __future__ import annotations

import random

import pytest

from kahuna.rules import GameState, Variant, view_json, view_patch

VARIANTS = [
    Variant(no_build_at_enemy_stone=enemy, replace_on_remove=replace)
    for enemy in (False, True)
    for replace in (False, True)
]


@pytest.mark.parametrize(
    "variant", VARIANTS, ids=lambda v: f"enemy={v.no_build_at_enemy_stone},replace={v.replace_on_remove}"
)
def test_the_patch_from_the_states_is_the_views_patch(variant: Variant) -> None:
    answered = asked = 0
    for seed in range(30):
        rng = random.Random(seed)
        state = GameState.new(rng, variant)
        while not state.is_over:
            after = state.copy()
            action = rng.choice(after.legal_actions())
            events = after.apply(action)
            for seat in (0, 1, None):
                seen = [event.seen_by(seat).to_json() for event in events]
                views = view_patch.patch(
                    view_patch.expected(view_json(state, seat, history=False), seen),
                    view_json(after, seat, history=False),
                )
                quick = view_patch.from_states(state, after, seat, seen)
                asked += 1
                if quick is not None:
                    answered += 1
                    assert quick == views, (seed, seat, action.token)
            state = after
    assert answered >= 0.9 * asked, (answered, asked)


def test_a_new_round_is_left_to_the_views() -> None:
    """An action that ends a round deals again: the states alone do not tell that patch."""
    rng = random.Random(5)
    state = GameState.new(rng, Variant())
    while not state.is_over:
        after = state.copy()
        events = after.apply(rng.choice(after.legal_actions()))
        if after.round != state.round:
            seen = [event.to_json() for event in events]
            assert view_patch.from_states(state, after, None, seen) is None
            return
        state = after
    pytest.fail("no game of seed 5 reached a second round")
