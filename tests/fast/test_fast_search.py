"""The compiled ISMCTS equals the Python one: same root visits for the same view, settings (the
heuristic's weights included) and seed, in every phase and variant; the agents choose the same
actions."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from core_differential import running_states

from kahuna.ai.agents.fast_ismcts import FastIsmctsAgent, ismcts_agent, make
from kahuna.ai.agents.fast_ismcts import search as fast_search
from kahuna.ai.agents.heuristic import DEFAULT_WEIGHTS, Weights, load_weights
from kahuna.ai.agents.ismcts import IsmctsAgent, SearchConfig
from kahuna.ai.agents.ismcts import search as python_search
from kahuna.ai.registry import make_agent
from kahuna.ai.spec import SpecError
from kahuna.fast import core_module
from kahuna.fast.layout import view_fields
from kahuna.rules import GameState, Phase, PlayerView, view_of

pytestmark = pytest.mark.needs_core


def _views(count: int, seed: int) -> list[PlayerView]:
    """Views of the seat to move along random games, early and late, in every variant."""
    return [view_of(state, state.to_move) for state in running_states(count, seed)]


def test_root_visits_equal_python() -> None:
    views = _views(24, 5)
    assert any(v.phase is Phase.FINAL for v in views) or any(v.round == 3 for v in views)
    for i, view in enumerate(views):
        config = SearchConfig(iterations=120, exploration=0.5 + 0.1 * (i % 4), playout_turns=i % 4)
        assert fast_search(view, config, 1000 + i) == python_search(view, config, 1000 + i)


def test_root_visits_equal_python_with_other_weights() -> None:
    """Tuned weights reach the compiled leaves: C and Python still agree, and they search differently."""
    scaled = Weights(
        **{name: value * (0.6 + 0.1 * k) for k, (name, value) in enumerate(DEFAULT_WEIGHTS.to_json().items())}
    )
    shipped = load_weights("greedy-tuned")
    differs = 0
    for i, view in enumerate(_views(12, 8)):
        weights = (scaled, shipped, Weights(scale=0.3))[i % 3]
        config = SearchConfig(iterations=100, playout_turns=i % 3, weights=weights)
        visits = fast_search(view, config, 50 + i)
        assert visits == python_search(view, config, 50 + i)
        differs += visits != fast_search(view, SearchConfig(iterations=100, playout_turns=i % 3), 50 + i)
    assert differs >= 6


def test_weights_option_and_bounds(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps({"weights": {"scale": 2.5, "card": 0.2}}), encoding="utf-8")
    for spec in (f"ismcts:iterations=5,weights={path}", f"fast-ismcts:iterations=5,weights={path}"):
        agent = make_agent(spec)
        assert isinstance(agent, IsmctsAgent)
        assert agent.config.weights == Weights(scale=2.5, card=0.2)
    with pytest.raises(SpecError):
        make_agent("ismcts:weights=no-such-weights")
    with pytest.raises(ValueError):
        Weights(scale=0.0)
    view = _views(1, 4)[0]
    fields, hand_slots, down_slots = view_fields(view)
    state = random.Random(1).getstate()[1]
    for bad in ((1.0,) * 8 + (0.0,), (math.nan,) + (1.0,) * 8):
        with pytest.raises(ValueError):
            core_module().search(fields, view.seat, hand_slots, down_slots, state, 5, 0.0, 0.7, 2, bad)


def test_final_turn_views_equal_python() -> None:
    found = 0
    for seed in range(400):
        rng = random.Random(seed)
        state = GameState.new(rng)
        while not state.is_over and state.phase is not Phase.FINAL:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
        if state.phase is Phase.FINAL:
            view = view_of(state, state.to_move)
            config = SearchConfig(iterations=80)
            assert fast_search(view, config, seed) == python_search(view, config, seed)
            found += 1
            if found == 5:
                return
    pytest.fail("no game reached the final turns")


def test_agents_choose_alike_with_workers() -> None:
    config = SearchConfig(iterations=60)
    for workers in (1, 2):
        ours, theirs = FastIsmctsAgent(config, workers), IsmctsAgent(config, workers)
        try:
            for view in _views(4, 77):
                assert ours.choose(view, random.Random(9)) is theirs.choose(view, random.Random(9))
                assert ours.last_iterations == theirs.last_iterations
        finally:
            ours.close()
            theirs.close()


def test_seconds_budget_and_selection(monkeypatch: pytest.MonkeyPatch) -> None:
    view = _views(1, 3)[0]
    visits, done = fast_search(view, SearchConfig(seconds=0.05), 1)
    assert done > 10 and sum(visits.values()) == done
    monkeypatch.setenv("KAHUNA_CORE", "python")
    assert isinstance(ismcts_agent(SearchConfig(), 1, "x"), IsmctsAgent)
    monkeypatch.setenv("KAHUNA_CORE", "fast")
    assert isinstance(ismcts_agent(SearchConfig(), 1, "x"), FastIsmctsAgent)
    assert isinstance(ismcts_agent(SearchConfig(exploration=1000.0), 1, "x"), IsmctsAgent)
    assert make("iterations=5,workers=2").workers == 2
    with pytest.raises(SpecError):
        make("iterations=0")
