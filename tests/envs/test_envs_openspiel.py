"""The OpenSpiel game ``python_kahuna`` and the ``openspiel-ismcts`` agent."""

from __future__ import annotations

import json
import random

import pytest

# The rl extra: skipped without it, required in CI (tests/envs/conftest.py).
pytest.importorskip("numpy")
pytest.importorskip("pyspiel")

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from kahuna.ai.eval.arena import GameTask, play_task
from kahuna.envs.openspiel import GAME_NAME, KahunaState, log_from_view
from kahuna.envs.openspiel_agent import OpenSpielIsmctsAgent
from kahuna.fast import available
from kahuna.rules import GameState, view_of

pytestmark = pytest.mark.rl


def deal(state: KahunaState, rng: np.random.RandomState) -> None:
    """Resolve chance nodes at random until a player is to move."""
    while state.is_chance_node():
        outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
        assert abs(sum(probabilities) - 1.0) < 1e-9
        state.apply_action(int(rng.choice(outcomes, p=probabilities)))


def to_round_two(seed: int) -> KahunaState:
    """A game played at random until just after the first reshuffle."""
    game = pyspiel.load_game(GAME_NAME)
    state: KahunaState = game.new_initial_state()
    rng = np.random.RandomState(seed)
    deal(state, rng)
    while state.game_state is not None and state.game_state.round == 1:
        state.apply_action(int(rng.choice(state.legal_actions())))
        deal(state, rng)
    return state


@pytest.mark.parametrize("params", ["", "(replace_on_remove=true,no_build_at_enemy_stone=true)"])
def test_passes_the_pyspiel_random_simulation_test(params: str) -> None:
    pyspiel.random_sim_test(pyspiel.load_game(GAME_NAME + params), num_sims=3, serialize=True, verbose=False)


def test_chance_deals_24_cards_then_reshuffles_card_by_card() -> None:
    game = pyspiel.load_game(GAME_NAME)
    state = game.new_initial_state()
    deal(state, np.random.RandomState(0))
    assert len(state.history()) == 24
    state = to_round_two(seed=1)
    engine = state.game_state
    assert engine is not None and engine.round == 2
    chance = [step for step in state.full_history() if step.player == pyspiel.PlayerId.CHANCE]
    assert len(chance) == 24 + len(engine.reshuffles[0])


def test_resampling_keeps_the_information_state() -> None:
    state = to_round_two(seed=2)
    player = state.current_player()
    key = state.information_state_string(player)
    for seed in range(5):
        sample = state.resample(player, random.Random(seed))
        assert sample.information_state_string(player) == key
        assert sample.legal_actions() == state.legal_actions()
        assert np.array_equal(sample.observation_tensor(player), state.observation_tensor(player))
    sample = state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert sample.information_state_string(player) == key


def test_kept_information_states_are_those_of_a_fresh_state() -> None:
    """A state keeps its information state strings until its next action (the search asks for
    each several times): after every action, deal and reshuffle cards included, they equal those
    of a new state given the same actions, and a clone's are its own."""
    game = pyspiel.load_game(GAME_NAME)
    state: KahunaState = game.new_initial_state()
    rng = np.random.RandomState(6)
    while not state.is_terminal() and len(state.history()) < 140:
        kept = [state.information_state_string(p) for p in (0, 1)]
        fresh = game.new_initial_state()
        for action in state.history():
            fresh.apply_action(action)
        assert kept == [fresh.information_state_string(p) for p in (0, 1)]
        if state.is_chance_node():
            outcomes, probabilities = zip(*state.chance_outcomes(), strict=True)
            action = int(rng.choice(outcomes, p=probabilities))
        else:
            action = int(rng.choice(state.legal_actions()))
        clone = state.clone()
        state.apply_action(action)
        assert [clone.information_state_string(p) for p in (0, 1)] == kept


def test_information_state_shows_own_draws_and_hides_the_opponents_cards() -> None:
    state = to_round_two(seed=3)
    engine = state.game_state
    assert engine is not None
    own: list[tuple[str, str]] = []
    theirs: list[tuple[str, str]] = []
    for player in (0, 1):
        text = state.information_state_string(player)
        assert json.loads(text)["hand"] == list(engine.hands[player])
        history = json.loads(text)["history"]
        assert any("/" in entry for entry in history)  # the reshuffle's new display is on record
        for (seat, action), entry in zip(engine.history, history, strict=True):
            (own if seat == player else theirs).append((action.token, entry))
    assert any(entry.startswith("d?=") for token, entry in own if token == "d?")
    assert all(entry == "d?" for token, entry in theirs if token == "d?")
    assert all(entry == "-?" for token, entry in theirs if token.startswith("-"))
    assert all(entry == token for token, entry in own if token.startswith("-"))


def test_a_view_gives_the_history_its_seat_saw() -> None:
    engine = to_round_two(seed=4).game_state
    assert engine is not None
    for seat in (0, 1):
        view = view_of(engine, seat)
        log = log_from_view(view)
        assert [private or public for _, public, private in log] == list(view.history)
        assert [s for s, _, _ in log] == [s for s, _ in engine.history]


def test_openspiels_own_ismcts_bot_plays_it() -> None:
    """The stock bot and evaluator, resampling through ``resample_from_infostate``."""
    game = pyspiel.load_game(GAME_NAME)
    rng = np.random.RandomState(4)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rng), 2.0, 8, random_state=rng)
    state = game.new_initial_state()
    deal(state, rng)
    for _ in range(4):
        action = bot.step(state)
        assert action in state.legal_actions()
        state.apply_action(action)
        deal(state, rng)


def test_openspiel_ismcts_agent_is_reproducible_and_legal() -> None:
    state = GameState.new(random.Random(5))
    agent = OpenSpielIsmctsAgent(simulations=20)
    for _ in range(6):
        view = view_of(state, state.to_move)
        action = agent.choose(view, random.Random(1))
        assert agent.choose(view, random.Random(1)) is action
        state.apply(action)


def test_the_arena_plays_a_whole_game_with_openspiel_ismcts() -> None:
    specs = ("openspiel-ismcts:simulations=4", "random")
    outcome = play_task(GameTask(pairing=0, game=0, specs=specs, seed=0, deal=0, swapped=False, keep_record=False))
    assert outcome.result.forfeit is None and outcome.result.actions > 0


@pytest.mark.skipif(not available(), reason="the compiled core is not built")
def test_playouts_on_the_compiled_core_make_the_same_choices(monkeypatch: pytest.MonkeyPatch) -> None:
    """The leaf playouts run on the compiled twin when it is selected; the bot must not notice,
    through a whole game's worth of decisions and the reshuffles its playouts cross."""
    choices: dict[str, list[str]] = {}
    for core in ("python", "fast"):
        monkeypatch.setenv("KAHUNA_CORE", core)
        agent = OpenSpielIsmctsAgent(simulations=30)
        state = GameState.new(random.Random(8))
        made: list[str] = []
        for step in range(40):
            view = view_of(state, state.to_move)
            action = agent.choose(view, random.Random(step))
            made.append(action.token)
            state.apply(action)
        choices[core] = made
    assert choices["fast"] == choices["python"]
