"""The PettingZoo AEC environment."""

from __future__ import annotations

import json

import pytest

# The rl extra: skipped without it, required in CI (tests/envs/conftest.py).
pytest.importorskip("numpy")
pytest.importorskip("pettingzoo")

import numpy as np
from pettingzoo.test import api_test, seed_test

from kahuna.envs.pettingzoo import AGENTS, env, raw_env

pytestmark = pytest.mark.rl


def play_out(game: raw_env, seed: int) -> tuple[list[int], dict[str, float]]:
    """Play uniformly random legal actions to the end; the actions taken and the final rewards."""
    rng = np.random.default_rng(seed)
    taken = []
    final: dict[str, float] = {}
    for agent in game.agent_iter():
        observation, reward, terminated, truncated, _ = game.last()
        if terminated or truncated:
            final[agent] = float(reward)
            game.step(None)
            continue
        assert agent == game.agent_selection
        action = int(rng.choice(np.flatnonzero(observation["action_mask"])))
        taken.append(action)
        game.step(action)
    return taken, final


# A dict observation with an action mask is PettingZoo's own convention for board games; its API
# test still suggests a plain array.
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("variants", [(), ("no_build_at_enemy_stone", "replace_on_remove")])
def test_passes_the_pettingzoo_api_test(variants: tuple[str, ...]) -> None:
    api_test(env(variants=variants), num_cycles=500)


def test_passes_the_pettingzoo_seed_test() -> None:
    seed_test(env, num_cycles=300)


def test_a_whole_game_ends_with_opposite_rewards_and_the_same_seed_replays_it() -> None:
    game = env()
    game.reset(seed=11)
    first, rewards = play_out(game, seed=5)
    outcome = game.unwrapped.state.outcome
    assert outcome is not None and outcome.winner is not None
    assert rewards == {AGENTS[outcome.winner]: 1.0, AGENTS[1 - outcome.winner]: -1.0}
    game.reset(seed=11)
    assert play_out(game, seed=5) == (first, rewards)


def test_only_the_agent_to_move_gets_a_mask() -> None:
    game = env()
    game.reset(seed=3)
    mover = game.agent_selection
    other = AGENTS[1 - AGENTS.index(mover)]
    assert game.observe(mover)["action_mask"].sum() > 0
    assert game.observe(other)["action_mask"].sum() == 0


def test_an_illegal_action_loses_the_game() -> None:
    game = env()
    game.reset(seed=4)
    mover = game.agent_selection
    mask = game.observe(mover)["action_mask"]
    game.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(game.terminations.values())
    assert game.rewards[mover] == -1


def test_ansi_rendering_is_the_spectator_view() -> None:
    game = env(render_mode="ansi")
    game.reset(seed=6)
    shown = json.loads(game.render())
    assert shown["seat"] is None and shown["hand"] is None
    assert shown["hand_sizes"] == [3, 3]
