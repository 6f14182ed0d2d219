"""The compiled rules equal the referee: differential games in every variant, the worked examples,
the golden counts, record replays, refusals and the random generator."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from core_differential import VARIANTS, Tally, play_both, running_states
from hypothesis import given, settings
from hypothesis import strategies as st

from kahuna.ai.agents.heuristic import CardBelief, win_probability
from kahuna.fast import core_module
from kahuna.fast.layout import LAYOUT, fields_of
from kahuna.fast.state import FastState
from kahuna.rules import (
    ALL_ACTIONS,
    GameRecord,
    GameState,
    IllegalActionError,
    RecordError,
    ReplayError,
    Termination,
    Variant,
)
from kahuna.rules.actions import tokens

pytestmark = pytest.mark.needs_core

EXAMPLES = Path(__file__).parent.parent / "rules" / "examples"
NAMES = sorted(p.name.removesuffix(".record.json") for p in EXAMPLES.glob("*.record.json"))
GOLDEN = Path(__file__).parent.parent / "rules" / "golden_counts.json"

DIFFERENTIAL_GAMES = 5_000
"""Per variant: every run of ``make test-all`` plays 20,000 random games through both cores; the long
run is ``python tools/core_differential.py --games 100000`` (docs/engine.md). With 25,000 per
variant these four tests took 82–90 s each of the suite's 34 minutes on the 2-core CI machine; they
are marked long (``make test`` leaves them out: the worked examples, golden counts and replays below
check the same core in seconds) and slow (``make check`` leaves them out)."""


def test_layout_is_the_c_layout() -> None:
    assert tuple(core_module().fields_layout()) == LAYOUT


def test_random_generator_is_cpythons() -> None:
    for seed in (0, 1, 7, 2**32 - 1, 2**32, 2**64 - 1, 1_000_003 * 12345):
        randoms, belows, shuffled = core_module().mt_check(seed, 200, 37)
        rng = random.Random(seed)
        assert randoms == [rng.random() for _ in range(200)]
        assert belows == [rng.randrange(37) for _ in range(200)]
        cards = [c for c in range(12) for _ in range(2)]
        rng.shuffle(cards)
        assert shuffled == cards


def _same_heuristic(ref: GameState, fast: FastState) -> None:
    """The search heuristic (exact beliefs) is equal bit for bit."""
    beliefs = (CardBelief.exact(ref.hands[0]), CardBelief.exact(ref.hands[1]))
    assert win_probability(ref, 0, beliefs) == fast.heuristic()


@pytest.mark.long
@pytest.mark.slow
@pytest.mark.parametrize("names", VARIANTS, ids=lambda v: "+".join(v) or "standard")
def test_differential_random_games(names: tuple[str, ...]) -> None:
    tally = Tally()
    variant = Variant.from_names(list(names))
    for game in range(DIFFERENTIAL_GAMES):
        play_both(1000 * len(names) + game, variant, tally, _same_heuristic if game % 20 == 0 else None)
    assert tally.games == DIFFERENTIAL_GAMES and tally.actions > 100 * DIFFERENTIAL_GAMES


def test_same_seed_same_game_with_the_rng_reshuffles() -> None:
    """GameState.new and FastState.new with equal seeds draw the same deal and reshuffles."""
    for seed in range(60):
        ref, fast = GameState.new(random.Random(seed)), FastState.new(random.Random(seed))
        choices = random.Random(-seed)
        while not ref.is_over:
            legal = ref.legal_actions()
            assert fast.legal_actions() == legal
            action = legal[choices.randrange(len(legal))]
            ref.apply(action)
            fast.apply(action)
        assert fast.to_json() == ref.to_json() and fast.reshuffles == ref.reshuffles
        assert fast.phase is ref.phase and fast.round == ref.round
        assert fast.outcome == ref.outcome


@pytest.mark.parametrize("name", NAMES)
def test_worked_examples_trace(name: str) -> None:
    record = GameRecord.loads((EXAMPLES / f"{name}.record.json").read_text())
    expected = [json.loads(line) for line in (EXAMPLES / f"{name}.trace.jsonl").read_text().splitlines()]
    lines: list[dict[str, object]] = []

    def before(step: int, state: FastState) -> None:
        lines.append({"step": step, "legal": tokens(state.legal_actions()), "state": state.to_json()})

    final = record.replay_with(FastState.start_of, before)
    lines.append({"final": final.to_json()})
    assert lines == expected


def test_golden_legal_action_counts() -> None:
    golden = json.loads(GOLDEN.read_text())
    for seed, expected in golden.items():
        state = FastState.new(random.Random(int(seed)), Variant.from_names(expected["variant"]))
        counts: list[int] = []
        i = 0
        while not state.is_over:
            legal = state.legal_actions()
            counts.append(len(legal))
            state.apply(legal[(7 * i) % len(legal)])
            i += 1
        assert counts == expected["counts"]
        assert state.outcome is not None and state.outcome.to_json() == expected["result"]


def test_replay_of_recorded_games_and_errors() -> None:
    """Both cores replay a record to the same state, and refuse a malformed token, an illegal
    action and a reshuffle that is not the discard pile with the same error."""
    for seed in range(20):
        rng = random.Random(seed)
        state = GameState.new(rng, Variant.from_names(list(VARIANTS[seed % 4])))
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        record = GameRecord.of(state)
        assert record.replay_with(FastState.start_of).to_json() == state.to_json()
        at_five = GameRecord(record.deal, record.actions[:5], record.reshuffles, record.variant).replay()
        illegal = next(a.token for a in ALL_ACTIONS if a not in at_five.legal_actions())
        for token in ("?!", illegal):
            bad = GameRecord.of(state)
            bad.actions[5] = token
            with pytest.raises(ReplayError) as ref_exc:
                bad.replay()
            with pytest.raises(ReplayError) as fast_exc:
                bad.replay_with(FastState.start_of)
            assert str(fast_exc.value) == str(ref_exc.value)
        if record.reshuffles:
            broken = GameRecord.of(state)
            broken.reshuffles[0] = broken.reshuffles[0][::-1] + "A"
            with pytest.raises(RecordError) as ref_exc2:
                broken.replay()
            with pytest.raises(RecordError) as fast_exc2:
                broken.replay_with(FastState.start_of)
            assert str(fast_exc2.value) == str(ref_exc2.value)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), steps=st.integers(0, 150))
def test_refusals_leave_the_state_unchanged_and_say_why(seed: int, steps: int) -> None:
    rng = random.Random(seed)
    ref = GameState.new(rng)
    for _ in range(steps):
        legal = ref.legal_actions()
        if not legal:
            break
        ref.apply(legal[rng.randrange(len(legal))])
    fast = FastState.from_state(ref)
    before = fast.fields()
    allowed = set(ref.legal_actions())
    for action in ALL_ACTIONS:
        if action in allowed:
            continue
        with pytest.raises(IllegalActionError) as exc:
            fast.apply(action)
        assert str(exc.value) == str(ref.why_illegal(action))
        assert fast.fields() == before
    assert fields_of(ref) == before


def test_copy_is_independent() -> None:
    state = FastState.new(random.Random(3))
    twin = state.copy()
    twin.apply(twin.legal_actions()[-1])
    assert twin.fields() != state.fields()


def test_playout_is_the_python_loop_in_c() -> None:
    """``playout`` plays the game a loop of uniformly random choices plays, reshuffles included,
    leaves the generator where that loop leaves it, and leaves the position unchanged."""
    for seed, start in enumerate(running_states(30, 17)):
        state = FastState.from_state(start)
        before = state.fields()
        ours = random.Random(seed)
        winner = state.playout(ours)
        loop, theirs = state.copy(), random.Random(seed)
        loop.rng = theirs
        while not loop.is_over:
            actions = loop.legal_actions()
            loop.apply(actions[theirs.randrange(len(actions))])
        outcome = loop.outcome
        assert outcome is not None and winner == outcome.winner
        assert ours.getstate() == theirs.getstate()
        assert state.fields() == before


def test_playout_refuses_a_queued_reshuffle() -> None:
    state = FastState.new(random.Random(5))
    state.reshuffle_queue = ["A"]
    with pytest.raises(ValueError, match="reshuffle queue"):
        state.playout(random.Random(0))


@pytest.mark.parametrize(
    ("reason", "seat"), [("resign", 0), ("timeout", 1), ("aborted", 0), ("left", 1), ("left-draw", 0)]
)
def test_termination_ends_the_game_alike(reason: str, seat: int) -> None:
    """Ending a game off the board gives the referee's state, result and refusals on the compiled
    core, and a terminated referee state crosses over with its termination."""
    rng = random.Random(len(reason))
    state = GameState.new(rng)
    for _ in range(40):
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    fast = FastState.from_state(state)
    termination = Termination(reason, seat)
    state.terminate(termination)
    fast.terminate(termination)
    assert fast.to_json() == state.to_json() and fast.fields() == fields_of(state)
    assert fast.outcome == state.outcome and fast.termination == state.termination == termination
    assert fast.legal_actions() == [] and fast.is_over
    with pytest.raises(IllegalActionError) as ref_exc:
        state.terminate(termination)
    with pytest.raises(IllegalActionError) as fast_exc:
        fast.terminate(termination)
    assert fast_exc.value.reason == ref_exc.value.reason
    crossed = FastState.from_state(state)
    assert crossed.outcome == state.outcome and crossed.copy().termination == termination
