"""The single-agent Gymnasium environment."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

# The rl extra: skipped without it, required in CI (tests/envs/conftest.py).
pytest.importorskip("numpy")
pytest.importorskip("gymnasium")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env

from kahuna.envs.gymnasium import ENV_ID, KahunaEnv

pytestmark = pytest.mark.rl


def test_passes_the_gymnasium_env_checker() -> None:
    check_env(gymnasium.make(ENV_ID, opponent="random").unwrapped)


def test_registered_with_gymnasium() -> None:
    made = gymnasium.make(ENV_ID, opponent="random", seat=1)
    observation, info = made.reset(seed=2)
    assert observation.shape == made.observation_space.shape
    assert info["seat"] == 1
    made.close()


def test_masked_random_play_reaches_a_result_reproducibly() -> None:
    def episode() -> tuple[list[int], float]:
        env = KahunaEnv(opponent="greedy", seat=0)
        rng = np.random.default_rng(1)
        _, info = env.reset(seed=7)
        taken, reward, done = [], 0.0, False
        while not done:
            assert np.array_equal(info["action_mask"], env.action_masks())
            action = int(rng.choice(np.flatnonzero(info["action_mask"])))
            taken.append(action)
            _, reward, done, truncated, info = env.step(action)
            assert not truncated
        assert env.state.is_over and reward in (-1.0, 0.0, 1.0)
        return taken, reward

    assert episode() == episode()


def test_an_illegal_action_ends_the_episode_with_a_loss() -> None:
    env = KahunaEnv()
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated) == (-1.0, True)
    assert "illegal_action" in info


def test_bad_options_are_refused() -> None:
    with pytest.raises(ValueError, match="seat"):
        KahunaEnv(seat=2)
    with pytest.raises(ValueError, match="unknown agent"):
        KahunaEnv(opponent="nobody")


def test_an_external_bot_as_the_opponent_is_restarted_for_each_game() -> None:
    bot = Path(__file__).resolve().parents[2] / "examples" / "bot.py"
    env = KahunaEnv(opponent=f"cmd:{shlex.quote(sys.executable)} {shlex.quote(str(bot))}", seat=1)
    for seed in (1, 2):
        _, info = env.reset(seed=seed)
        assert info["action_mask"].sum() > 0  # the bot, as Black, has played its first turn
    env.close()
