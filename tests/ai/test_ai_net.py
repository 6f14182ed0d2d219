"""The network at play time (numpy only): weights files, the forward pass, the net agent, tuning."""

from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest
from test_ai_agents import positions

from kahuna.ai.agents import features
from kahuna.ai.agents.heuristic import DEFAULT_WEIGHTS, Weights, load_weights
from kahuna.ai.agents.net import LAYERS, Network, load_network, shipped
from kahuna.ai.agents.netsearch import NetSearchConfig, search
from kahuna.ai.registry import make_agent
from kahuna.ai.spec import SpecError
from kahuna.ai.training.tuning import SpsaConfig, spsa
from kahuna.rules import legal_actions_of, view_of


def random_network(seed: int, hidden: int = 16) -> Network:
    return Network.random(seed, hidden, {"test": seed})


def test_the_research_adapters_use_the_same_encoding() -> None:
    pytest.importorskip("gymnasium")
    from kahuna.envs import observation

    assert observation.encode_view is features.encode_view and observation.LAYOUT is features.LAYOUT


def test_weights_survive_a_file_and_single_and_batch_passes_agree(tmp_path: Path) -> None:
    net = random_network(1)
    net.save(tmp_path / "w.npz")
    again = Network.load(tmp_path / "w.npz")
    assert again.meta == {"test": 1}
    obs = np.stack([features.encode_view(view_of(s, s.to_move)) for s in positions(2, 5)])
    logits, values = again.evaluate_batch(obs)
    for row in range(len(obs)):
        one_logits, one_value = net.evaluate(obs[row])
        assert np.allclose(one_logits, logits[row], atol=1e-5)
        assert one_value == pytest.approx(float(values[row]), abs=1e-6)
        assert 0.0 < one_value < 1.0


def test_weights_that_do_not_fit_the_observation_are_refused() -> None:
    arrays = {k: getattr(random_network(1), k) for k in LAYERS}
    arrays["w1"] = arrays["w1"][:-1]
    with pytest.raises(ValueError, match="do not fit"):
        Network(arrays)
    del arrays["bv"]
    with pytest.raises(ValueError, match="lack bv"):
        Network(arrays)


def test_search_is_fixed_by_its_seed_and_visits_only_legal_actions() -> None:
    net = random_network(3)
    config = NetSearchConfig(iterations=60)
    for state in positions(4, 4):
        view = view_of(state, state.to_move)
        legal = {a.index for a in legal_actions_of(view)}
        visits = search(view, net, config, random.Random(7))
        assert visits == search(view, net, config, random.Random(7))
        assert set(visits) <= legal
        # The root is judged on the first iteration; each later one adds one root visit.
        assert sum(visits.values()) == config.iterations - 1
        # One iteration plays the policy alone: its most likely legal action.
        (only,) = search(view, net, NetSearchConfig(iterations=1), random.Random(7))
        logits, _ = net.evaluate(features.encode_view(view))
        assert only in legal and logits[only] == max(logits[i] for i in legal)


def test_the_net_spec_loads_weights_by_path_and_refuses_bad_options(tmp_path: Path) -> None:
    random_network(5).save(tmp_path / "w.npz")
    agent = make_agent(f"net:iterations=20,weights={tmp_path / 'w.npz'}")
    state = positions(6, 1)[0]
    view = view_of(state, state.to_move)
    assert agent.choose(view, random.Random(1)) in legal_actions_of(view)
    for spec in ("net:iterations=0", f"net:weights={tmp_path / 'missing.npz'}", "net:depth=3"):
        with pytest.raises(SpecError):
            make_agent(spec)


def test_shipped_weights_load() -> None:
    if not shipped("net").is_file():
        pytest.skip("no network shipped")
    net = load_network("net")
    assert net.w1.shape[0] == features.OBS_SIZE
    assert shipped("net").stat().st_size < 4_000_000


def test_heuristic_weights_files_and_spsa(tmp_path: Path) -> None:
    assert load_weights("") is DEFAULT_WEIGHTS
    assert Weights.from_json(DEFAULT_WEIGHTS.to_json()) == DEFAULT_WEIGHTS
    with pytest.raises(ValueError, match="unknown heuristic weights: speed"):
        Weights.from_json({"speed": 1.0})
    config = SpsaConfig(steps=1, deals=1, seed=3)
    tuned = spsa(config)
    assert tuned == spsa(config)
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"weights": tuned.to_json()}), encoding="utf-8")
    assert load_weights(str(path)) == tuned
    agent = make_agent(f"greedy:weights={path}")
    assert getattr(agent, "weights", None) == tuned


def test_value_calibration_counts_every_searched_position() -> None:
    from kahuna.ai.training.calibrate import value_calibration

    config = NetSearchConfig(iterations=6, c_puct=1.5)
    table = value_calibration(random_network(8), games=1, seed=2, config=config, explore=2, progress=False)
    assert table["positions"] > 20
    assert sum(row["n"] for row in table["bins"]) == table["positions"]
    assert 0.0 <= table["brier"] <= 1.0


def test_medium_plays_with_the_shipped_tuned_weights() -> None:
    tuned = load_weights("greedy-tuned")
    assert tuned != DEFAULT_WEIGHTS
    assert getattr(make_agent("medium"), "weights", None) == tuned
