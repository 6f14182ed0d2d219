"""ISMCTS keeps to its budget, in iterations, seconds and across worker processes."""

from __future__ import annotations

import random
import time

from kahuna.ai.agents.ismcts import IsmctsAgent, SearchConfig, search
from kahuna.rules import GameState, view_of


def opening_view() -> tuple[GameState, int]:
    state = GameState.new(random.Random(21))
    return state, state.to_move


def test_iteration_budget_is_exact() -> None:
    state, seat = opening_view()
    agent = IsmctsAgent(SearchConfig(iterations=123))
    action = agent.choose(view_of(state, seat), random.Random(0))
    assert agent.last_iterations == 123
    assert action in state.legal_actions()


def test_root_visits_add_up_to_the_iterations() -> None:
    state, seat = opening_view()
    visits, done = search(view_of(state, seat), SearchConfig(iterations=80), seed=4)
    assert done == 80
    assert sum(visits.values()) == 80


def test_seconds_budget_stops_the_search() -> None:
    state, seat = opening_view()
    agent = IsmctsAgent(SearchConfig(seconds=0.2))
    start = time.perf_counter()
    agent.choose(view_of(state, seat), random.Random(0))
    elapsed = time.perf_counter() - start
    assert agent.last_iterations >= 1
    assert elapsed < 2.0  # 0.2 s asked; generous room for a busy machine


def test_root_parallel_search_splits_the_budget_and_is_deterministic() -> None:
    state, seat = opening_view()
    view = view_of(state, seat)
    agent = IsmctsAgent(SearchConfig(iterations=60), workers=2)
    try:
        first = agent.choose(view, random.Random(8))
        assert agent.last_iterations == 60
        again = agent.choose(view, random.Random(8))
    finally:
        agent.close()
    assert first is again
    assert first in state.legal_actions()


def forced_position() -> GameState:
    """A position with a single legal action, found by random play (e.g. ``end`` with no cards)."""
    for seed in range(100):
        rng = random.Random(seed)
        state = GameState.new(random.Random(seed))
        while not state.is_over:
            legal = state.legal_actions()
            if len(legal) == 1:
                return state
            state.apply(legal[rng.randrange(len(legal))])
    raise AssertionError("no forced position in 100 random games")


def test_a_forced_move_is_played_without_search() -> None:
    state = forced_position()
    agent = IsmctsAgent(SearchConfig(iterations=500))
    assert agent.choose(view_of(state, state.to_move), random.Random(0)) is state.legal_actions()[0]
    assert agent.last_iterations == 0
