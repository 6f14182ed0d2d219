"""Training (the ``train`` extra, PyTorch): the exported network equals the torch one, and a run
stopped and continued ends where an uninterrupted run ends. Skipped without PyTorch."""

from __future__ import annotations

import importlib.util
import json
import random
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from kahuna.ai.agents.features import encode_view  # noqa: E402
from kahuna.ai.agents.net import LAYERS, Network  # noqa: E402
from kahuna.ai.training.loop import Run, TrainConfig  # noqa: E402
from kahuna.ai.training.model import PolicyValueNet, train  # noqa: E402
from kahuna.ai.training.selfplay import Positions, play, teacher_search  # noqa: E402
from kahuna.rules import GameState, view_of  # noqa: E402

pytestmark = pytest.mark.train

TINY = TrainConfig(
    seed=4,
    generations=2,
    teacher_games=2,
    teacher_iterations=30,
    games=2,
    iterations=8,
    mix=0.5,
    playout=1,
    heuristic="ismcts-tuned",
    epochs=2,
    value_weight=0.5,
    batch=64,
    hidden=16,
    gate_games=2,
    gate=0.5,
    reference="random",
    reference_games=2,
)


def observations(seed: int, count: int) -> np.ndarray:
    rng = random.Random(seed)
    state = GameState.new(random.Random(seed))
    rows: list[np.ndarray] = []
    while not state.is_over and len(rows) < count:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        rows.append(encode_view(view_of(state, state.to_move)))
    return np.stack(rows)


def test_the_numpy_forward_pass_equals_the_torch_one_on_saved_weights(tmp_path: Path) -> None:
    torch.manual_seed(0)
    model = PolicyValueNet(hidden=32)
    model.export({"test": True}).save(tmp_path / "w.npz")
    net = Network.load(tmp_path / "w.npz")
    obs = observations(1, 30)
    with torch.no_grad():
        logits, value_logits = model(torch.from_numpy(obs))
    ours_logits, ours_values = net.evaluate_batch(obs)
    assert np.allclose(ours_logits, logits.numpy(), atol=1e-5)
    assert np.allclose(ours_values, torch.sigmoid(value_logits).numpy(), atol=1e-6)
    one_logits, one_value = net.evaluate(obs[0])
    assert np.allclose(one_logits, logits[0].numpy(), atol=1e-5)
    assert one_value == pytest.approx(float(torch.sigmoid(value_logits[0])), abs=1e-6)


def test_self_play_targets_and_training_lower_the_loss() -> None:
    positions, winner = play(teacher_search(40), "test-game", explore=4)
    assert len(positions) > 20
    assert np.allclose(positions.policy.sum(axis=1), 1.0)
    assert np.all(positions.policy[positions.mask == 0] == 0)  # visits only on legal actions
    assert set(np.unique(positions.value)) <= {0.0, 0.5, 1.0}
    if winner is not None:
        assert set(np.unique(positions.value)) == {0.0, 1.0}
    model = PolicyValueNet(hidden=32)
    history = train(model, Positions.concat([positions, positions]), epochs=8, batch=32, lr=3e-3, seed=1)
    assert history[-1]["policy_loss"] < history[0]["policy_loss"]
    # Early stopping: the model keeps the epoch that did best on other games' positions.
    other, _ = play(teacher_search(40), "another-game", explore=4)
    fresh = PolicyValueNet(hidden=32)
    history = train(fresh, positions, epochs=6, batch=32, lr=3e-2, seed=1, validation=other)
    best = min(h["val_policy_loss"] + h["val_value_loss"] for h in history)
    with torch.no_grad():
        logits, v = fresh(torch.from_numpy(other.obs))
        logits = logits.masked_fill(~torch.from_numpy(other.mask.astype(bool)), -1e9)
        p = -(torch.from_numpy(other.policy) * torch.log_softmax(logits, -1)).sum(-1).mean()
        b = torch.nn.functional.binary_cross_entropy_with_logits(v, torch.from_numpy(other.value))
    assert float(p + b) == pytest.approx(best, rel=1e-5)


def arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as data:
        return {k: data[k] for k in LAYERS}


def test_a_stopped_run_continues_to_the_same_network(tmp_path: Path) -> None:
    whole = Run(tmp_path / "whole", TINY)
    assert whole.run()
    for stop in (4, 9):  # after one of generation 0's reference games, and one of generation 1's gate games
        parts = tmp_path / f"parts{stop}"
        assert not Run(parts, TINY).run(units=stop)
        state = json.loads((parts / "state.json").read_text(encoding="utf-8"))
        assert state["generation"] < TINY.generations
        assert Run(parts, TINY).run()
        expected, got = arrays(whole.dir / "best.npz"), arrays(parts / "best.npz")
        assert all(np.array_equal(expected[k], got[k]) for k in LAYERS)
        assert Run(parts, TINY).log_entries() == whole.log_entries()
    log = whole.log_entries()
    assert [e["generation"] for e in log] == [0, 1]
    assert "gate_score" in log[1] and "reference" in log[0]
    if importlib.util.find_spec("matplotlib") is not None:
        assert (whole.dir / "elo.png").is_file()


def test_games_in_worker_processes_make_the_run_of_one_process(tmp_path: Path) -> None:
    one = Run(tmp_path / "one", TINY)
    assert one.run()
    two = tmp_path / "two"
    assert not Run(two, TINY, jobs=2).run(units=1)  # stopped inside generation 0's teacher games
    assert Run(two, TINY, jobs=2).run()
    names = sorted(p.name for p in (one.dir / "data").iterdir())
    assert names == sorted(p.name for p in (two / "data").iterdir())
    for name in names:
        ours, theirs = Positions.load(one.dir / "data" / name), Positions.load(two / "data" / name)
        assert all(np.array_equal(getattr(ours, k), getattr(theirs, k)) for k in ("obs", "mask", "policy", "value"))
    expected, got = arrays(one.dir / "best.npz"), arrays(two / "best.npz")
    assert all(np.array_equal(expected[k], got[k]) for k in LAYERS)
    assert Run(two, TINY).log_entries() == one.log_entries()
