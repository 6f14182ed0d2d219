"""The rule property tests (tests/rules/test_rules_properties.py) on the compiled core: hypothesis
drives the deal, the variant and every choice, and each property is checked on a ``FastState``.

The compiled core keeps no history, so the properties of views and records are checked by
replaying records through it; the others on the position it holds, read back as a referee state.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kahuna.fast.layout import fields_of
from kahuna.fast.state import FastState
from kahuna.rules import ALL_ACTIONS, GameRecord, GameState, IllegalActionError, Variant

pytestmark = pytest.mark.needs_core

variants = st.builds(Variant, st.booleans(), st.booleans())


@pytest.mark.slow  # seconds: whole games, each position checked against all 243 actions
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), variant=variants)
def test_invariants_hold_and_legal_means_applicable_on_the_compiled_core(seed: int, variant: Variant) -> None:
    """As the referee's property: every position is possible, a running game always has a legal
    action, the list is sorted and unique, and legal_actions and the refusals agree on every action."""
    rng = random.Random(seed)
    fast = FastState.new(random.Random(seed ^ 0x5EED), variant)
    while not fast.is_over:
        position = fast.referee_state()
        assert position.invariant_violation() is None
        legal = fast.legal_actions()
        assert legal, "a running game always has a legal action"
        assert [a.token for a in legal] == sorted({a.token for a in legal})
        assert legal == position.legal_actions()
        legal_set = set(legal)
        for action in ALL_ACTIONS:
            assert (position.why_illegal(action) is None) == (action in legal_set), action
        fast.apply(legal[rng.randrange(len(legal))])
    assert fast.referee_state().invariant_violation() is None
    assert fast.outcome is not None and fast.to_json()["to_move"] is None


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), variant=variants, steps=st.integers(0, 200))
def test_a_record_replays_to_the_same_position_on_the_compiled_core(seed: int, variant: Variant, steps: int) -> None:
    """A record written by the referee, read back as JSON, replays on the compiled core to the
    referee's position (every field, the result included)."""
    rng = random.Random(seed)
    state = GameState.new(random.Random(seed ^ 0xC0DE), variant)
    for _ in range(steps):
        if state.is_over:
            break
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    record = GameRecord.loads(GameRecord.of(state).dumps())
    fast = record.replay_with(FastState.start_of)
    assert fast.fields() == fields_of(state)
    assert fast.to_json() == state.to_json()


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10**9), steps=st.integers(0, 150), variant=variants)
def test_failed_actions_leave_the_compiled_state_unchanged_in_every_variant(
    seed: int, steps: int, variant: Variant
) -> None:
    rng = random.Random(seed)
    fast = FastState.new(random.Random(seed), variant)
    for _ in range(steps):
        if fast.is_over:
            break
        legal = fast.legal_actions()
        fast.apply(legal[rng.randrange(len(legal))])
    before = fast.fields()
    legal_set = set(fast.legal_actions())
    for action in ALL_ACTIONS:
        if action not in legal_set:
            with pytest.raises(IllegalActionError):
                fast.apply(action)
            assert fast.fields() == before
