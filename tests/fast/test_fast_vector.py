"""The vectorised environment: the compiled batch equals the referee's, step for step, in every
variant (observations equal ``encode_view`` of the mover's own view, so they hold no hidden card;
masks equal the legal actions); rewards add up; illegal input moves nothing."""

from __future__ import annotations

import pytest

# The rl extra (numpy): skipped without it, required in CI (tests/envs/conftest.py).
pytest.importorskip("numpy")

import numpy as np
from core_differential import VARIANTS

from kahuna.envs.observation import OBS_SIZE
from kahuna.envs.vector import VectorKahuna
from kahuna.rules import Variant

pytestmark = [pytest.mark.needs_core, pytest.mark.rl]


@pytest.mark.parametrize(
    "names",
    # The standard game in make check; the variants (about a second each) in make test.
    [pytest.param(v, marks=[pytest.mark.slow] if v else []) for v in VARIANTS],
    ids=lambda v: "+".join(v) or "standard",
)
def test_fast_batch_equals_python_batch(names: tuple[str, ...]) -> None:
    variant = Variant.from_names(list(names))
    fast = VectorKahuna(16, seed=11, variant=variant, core="fast")
    slow = VectorKahuna(16, seed=11, variant=variant, core="python")
    rng = np.random.default_rng(3)
    ended = 0
    for step in range(450):
        a, b = fast._out, slow._out
        assert np.array_equal(a.obs, b.obs) and np.array_equal(a.mask, b.mask), step
        assert np.array_equal(a.to_move, b.to_move)
        actions = fast.random_actions(rng)
        fast.step(actions)
        slow.step(actions)
        assert np.array_equal(a.rewards, b.rewards) and np.array_equal(a.dones, b.dones), step
        ended += int(a.dones.sum())
        assert np.all(a.rewards.sum(axis=1) == 0)
        assert a.obs.shape == (16, OBS_SIZE) and np.all((a.obs >= 0) & (a.obs <= 1))
    assert ended >= 16


def test_illegal_actions_move_nothing() -> None:
    env = VectorKahuna(4, seed=2, core="fast")
    before = env._out.obs.copy()
    actions = env.random_actions(np.random.default_rng(0))
    actions[2] = int(np.flatnonzero(env._out.mask[2] == 0)[0])
    with pytest.raises(ValueError, match="game 2"):
        env.step(actions)
    assert np.array_equal(env._out.obs, before)
    with pytest.raises(ValueError):
        env.step(np.zeros(3, dtype=np.int16))
    with pytest.raises(ValueError):
        env.step(np.full(4, 243))
    with pytest.raises(ValueError):
        VectorKahuna(0)
