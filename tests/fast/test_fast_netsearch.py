"""The compiled network search equals the Python one: the observation bit for bit, the network's
numbers exactly, and the same root visits for the same view, network, settings and seed."""

from __future__ import annotations

import json
import pickle
import random

import numpy as np
import pytest
from core_differential import VARIANTS, running_states

from kahuna.ai.agents.features import OBS_SIZE, encode_view
from kahuna.ai.agents.heuristic import Weights
from kahuna.ai.agents.ismcts import tree_actions
from kahuna.ai.agents.net import LAYERS, Network, load_network, shipped
from kahuna.ai.agents.netsearch import NetSearchConfig, compiled, compiled_search, python_search
from kahuna.fast import core_module
from kahuna.fast.layout import fields_of
from kahuna.rules import GameState, Phase, Variant, view_of

pytestmark = pytest.mark.needs_core


def test_observation_equals_the_referee_views_bit_for_bit() -> None:
    states = running_states(160, 21)
    assert {s.variant for s in states} == {Variant.from_names(list(v)) for v in VARIANTS}
    assert any(s.round == 3 for s in states) and any(s.phase is Phase.FINAL for s in states)
    core = core_module()
    out = np.zeros(OBS_SIZE, np.float32)
    for state in states:
        compiled_state = core.State(fields_of(state))
        for seat in (0, 1):
            core.observe(compiled_state, seat, out)
            assert out.tobytes() == encode_view(view_of(state, seat)).tobytes()


@pytest.mark.parametrize("hidden", [1, 13, 24, 40])
def test_forward_pass_equals_python_exactly(hidden: int) -> None:
    net = Network.random(hidden, hidden)
    compiled_net = net.compiled()
    # The portable layers, whether or not this processor has the AVX2 ones.
    portable = core_module().Net(*(getattr(net, k) for k in LAYERS), wide=False)
    assert compiled_net.hidden == portable.hidden == hidden and not portable.avx2
    for state in running_states(30, hidden):
        obs = encode_view(view_of(state, state.to_move))
        actions = [a.index for a in tree_actions(state)]
        last, value = net.hidden(obs)
        expected = (value, net.logits(last, actions))
        assert compiled_net.evaluate(obs, actions) == portable.evaluate(obs, actions) == expected
        assert value == pytest.approx(net.evaluate(obs)[1], abs=1e-5)


def test_the_shipped_network_evaluates_alike() -> None:
    if not shipped("net").is_file():
        pytest.skip("no network shipped")
    net = load_network("net")
    for state in running_states(10, 5):
        obs = encode_view(view_of(state, state.to_move))
        last, value = net.hidden(obs)
        assert net.compiled().evaluate(obs, [240, 0], 3) == (value, net.logits(last, [240, 0]))


def test_root_visits_equal_python() -> None:
    net = Network.random(7, 19)
    configs = [
        NetSearchConfig(iterations=80),
        NetSearchConfig(iterations=60, c_puct=0.4),
        NetSearchConfig(iterations=50, mix=0.5, playout_turns=1),
        NetSearchConfig(iterations=40, mix=1.0, playout_turns=3, heuristic=Weights(stone=1.5, scale=2.0)),
        NetSearchConfig(iterations=1),
        NetSearchConfig(iterations=2, mix=0.25),
        NetSearchConfig(iterations=90, stop=True),
        NetSearchConfig(iterations=70, c_puct=0.4, mix=0.5, stop=True),
        NetSearchConfig(iterations=100, share=0.5),
        NetSearchConfig(iterations=60, c_puct=0.5, share=0.3, stop=True),
    ]
    for i, state in enumerate(running_states(36, 9)):
        view = view_of(state, state.to_move)
        config = configs[i % len(configs)]
        assert compiled_search(view, net, config, 500 + i) == python_search(view, net, config, 500 + i), config


def test_the_compiled_stop_plays_the_full_searchs_move() -> None:
    # Many positions at a larger budget than Python could afford: the same move, fewer iterations.
    net = Network.random(11, 24)
    full_total = stopped_total = 0
    for i, state in enumerate(running_states(150, 13)):
        view = view_of(state, state.to_move)
        full = compiled_search(view, net, NetSearchConfig(iterations=400), i)
        stopped = compiled_search(view, net, NetSearchConfig(iterations=400, stop=True), i)
        assert max(stopped, key=lambda a: (stopped[a], -a)) == max(full, key=lambda a: (full[a], -a))
        full_total += sum(full.values())
        stopped_total += sum(stopped.values())
    assert stopped_total < full_total


def test_final_turn_views_equal_python() -> None:
    net = Network.random(8, 10)
    found = 0
    for seed in range(400):
        rng = random.Random(seed)
        state = GameState.new(rng)
        while not state.is_over and state.phase is not Phase.FINAL:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if state.phase is Phase.FINAL:
            view = view_of(state, state.to_move)
            config = NetSearchConfig(iterations=60, mix=0.5)
            assert compiled_search(view, net, config, seed) == python_search(view, net, config, seed)
            found += 1
            if found == 4:
                return
    pytest.fail("no game reached the final turns")


def test_selection_and_refusals(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAHUNA_CORE", "python")
    assert not compiled(NetSearchConfig())
    monkeypatch.setenv("KAHUNA_CORE", "fast")
    assert compiled(NetSearchConfig()) and not compiled(NetSearchConfig(mix=1.5))
    net = Network.random(1, 8)
    arrays = [getattr(net, k).copy() for k in LAYERS]
    core = core_module()
    with pytest.raises(ValueError, match="wp"):
        core.Net(*arrays[:4], np.ascontiguousarray(arrays[4][:, :-1]), *arrays[5:])
    with pytest.raises(ValueError, match="w1"):
        core.Net(arrays[0].astype(np.float64), *arrays[1:])
    arrays[2][0, 0] = np.nan
    with pytest.raises(ValueError, match="finite"):
        core.Net(*arrays)
    view = view_of(running_states(1, 2)[0], running_states(1, 2)[0].to_move)
    for bad in (NetSearchConfig(mix=2.0), NetSearchConfig(share=1.5)):
        assert not compiled(bad)
        with pytest.raises(ValueError, match="settings"):
            compiled_search(view, net, bad, 1)


def test_a_network_with_its_compiled_copy_still_pickles() -> None:
    net = Network.random(2, 8)
    net.compiled()
    again = pickle.loads(pickle.dumps(net))
    obs = encode_view(view_of(running_states(1, 3)[0], 0))
    assert again.compiled().evaluate(obs, [240]) == net.compiled().evaluate(obs, [240])


def test_bench_engine_measures_the_network_search(capsys: pytest.CaptureFixture[str]) -> None:
    from kahuna.cli import main

    if not shipped("net").is_file():
        pytest.skip("no network shipped")
    assert main(["bench", "engine", "--games", "2", "--core", "both", "--net", "3", "--json"]) == 0
    figures = json.loads(capsys.readouterr().out.splitlines()[-1])["cores"]
    assert figures["fast"]["net_iterations"] == figures["python"]["net_iterations"] == 24
    assert figures["fast"]["net_evaluation_cpu_us"] > 0 and "net_evaluation_cpu_us" not in figures["python"]
