"""The network search's reference arithmetic and its options (tests/fast proves the compiled twin equal)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest
from test_ai_agents import positions
from test_ai_net import random_network

from kahuna.ai.agents.features import encode_view
from kahuna.ai.agents.heuristic import load_weights
from kahuna.ai.agents.netsearch import NetAgent, NetSearchConfig, _leading, _Node, _settled, python_search, search
from kahuna.ai.registry import make_agent
from kahuna.ai.spec import SpecError
from kahuna.rules import NUM_ACTIONS, view_of


def test_the_exact_forward_pass_is_the_network() -> None:
    net = random_network(4, hidden=12)
    for state in positions(3, 6):
        obs = encode_view(view_of(state, state.to_move))
        logits, value = net.evaluate(obs)
        hidden, exact = net.hidden(obs)
        assert hidden.dtype == np.float64 and exact == pytest.approx(value, abs=1e-6)
        assert np.allclose(net.logits(hidden, list(range(NUM_ACTIONS))), logits, atol=1e-4)


def test_search_draws_its_seed_from_the_rng(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAHUNA_CORE", "python")
    net = random_network(5)
    view = view_of(positions(2, 1)[0], positions(2, 1)[0].to_move)
    config = NetSearchConfig(iterations=30, mix=0.5)
    seed = random.Random(8).getrandbits(64)
    assert search(view, net, config, random.Random(8)) == python_search(view, net, config, seed)


def test_mix_weighs_the_playout_in() -> None:
    net = random_network(6)
    changed = 0
    for i, state in enumerate(positions(7, 6)):
        view = view_of(state, state.to_move)
        alone = python_search(view, net, NetSearchConfig(iterations=40), i)
        # Without a mix the playout is never played, whatever its length.
        assert python_search(view, net, NetSearchConfig(iterations=40, playout_turns=5), i) == alone
        mixed = python_search(view, net, NetSearchConfig(iterations=40, mix=1.0), i)
        assert sum(mixed.values()) == sum(alone.values()) == 39
        changed += mixed != alone
    assert changed >= 3


def test_the_net_spec_takes_the_search_options(tmp_path: Path) -> None:
    random_network(2).save(tmp_path / "w.npz")
    agent = make_agent(f"net:iterations=7,c=0.9,mix=0.25,playout=3,heuristic=greedy-tuned,weights={tmp_path / 'w.npz'}")
    assert isinstance(agent, NetAgent)
    assert agent.config == NetSearchConfig(7, 0.9, 0.25, 3, load_weights("greedy-tuned"), stop=True)
    off = make_agent(f"net:stop=0,weights={tmp_path / 'w.npz'}")
    assert isinstance(off, NetAgent) and off.config == NetSearchConfig()
    shared = make_agent(f"net:share=0.6,weights={tmp_path / 'w.npz'}")
    assert isinstance(shared, NetAgent) and shared.config.share == 0.6
    for spec in ("net:mix=1.5", "net:share=1.1", "net:playout=-1", "net:heuristic=nothing-such"):
        with pytest.raises(SpecError):
            make_agent(spec)


def _root(visits: dict[int, int]) -> _Node:
    root = _Node(0.0)
    for index, n in visits.items():
        root.children[index] = _Node(0.1)
        root.children[index].visits = n
    return root


def test_the_leader_is_settled_only_when_no_action_can_pass_or_tie_it_from_below() -> None:
    # Action 5 leads by 4 with 4 iterations left: 9 can only tie it, and ties go to the lower 5.
    assert _settled(_root({9: 6, 5: 10, 7: 0}), 4)
    # The same counts with the runner-up below the leader's index: a tie would make 2 the move.
    assert not _settled(_root({2: 6, 5: 10}), 4)
    assert _settled(_root({2: 6, 5: 10}), 3)
    # Tied leaders: the lower index leads, and the other can still pass it.
    assert not _settled(_root({4: 8, 3: 8}), 1)
    # Alone in the tree, the leader still needs more visits than remain (other actions may appear).
    assert not _settled(_root({5: 4}), 4) and _settled(_root({5: 5}), 4)
    assert not _settled(_root({}), 0)


def test_the_stop_plays_the_full_searchs_move_in_fewer_iterations() -> None:
    net = random_network(9)
    saved = 0
    for i, state in enumerate(positions(12, 10)):
        view = view_of(state, state.to_move)
        full = python_search(view, net, NetSearchConfig(iterations=80), i)
        stopped = python_search(view, net, NetSearchConfig(iterations=80, stop=True), i)
        assert max(stopped, key=lambda a: (stopped[a], -a)) == max(full, key=lambda a: (full[a], -a))
        assert sum(stopped.values()) <= sum(full.values()) == 79
        saved += sum(full.values()) - sum(stopped.values())
    assert saved > 0


def test_a_share_ends_clear_decisions_from_a_quarter_of_the_budget() -> None:
    assert _leading(_root({1: 6, 2: 4}), 0.6) and not _leading(_root({1: 5, 2: 4}), 0.6)
    assert not _leading(_root({1: 0}), 0.1)
    net = random_network(9)
    sizes = []
    for i, state in enumerate(positions(12, 8)):
        view = view_of(state, state.to_move)
        visits = python_search(view, net, NetSearchConfig(iterations=80, share=0.5), i)
        made = sum(visits.values()) + 1
        assert made == 80 or (made >= 20 and max(visits.values()) >= 0.5 * (made - 1))
        sizes.append(made)
    assert min(sizes) < 80
