"""ISMCTS keeps to its budget, in iterations, in seconds (read from a clock it is given) and across
worker processes."""

from __future__ import annotations

import random
from functools import partial

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


class Ticks:
    """A clock that moves one second at each reading: the search's deadline arrives on cue."""

    def __init__(self, step: float = 1.0) -> None:
        self.now = 0.0
        self.step = step
        self.readings = 0

    def __call__(self) -> float:
        self.now += self.step
        self.readings += 1
        return self.now


def test_seconds_budget_stops_the_search_at_its_deadline() -> None:
    """With 3.5 s from the first reading (1 s), the readings after iterations 1-3 (2, 3, 4 s) are
    before the deadline and the one after iteration 4 (5 s) is past it: four iterations."""
    state, seat = opening_view()
    clock = Ticks()
    visits, done = search(view_of(state, seat), SearchConfig(seconds=3.5), seed=4, clock=clock)
    assert done == 4 and sum(visits.values()) == 4 and clock.readings == 5


def test_seconds_budget_makes_one_iteration_even_when_the_deadline_has_passed() -> None:
    state, seat = opening_view()
    clock = Ticks(step=100.0)
    assert search(view_of(state, seat), SearchConfig(seconds=0.5), seed=4, clock=clock)[1] == 1
    agent = _IsmctsOnTicks(SearchConfig(seconds=0.5))
    assert agent.choose(view_of(state, seat), random.Random(0)) in state.legal_actions()
    assert agent.last_iterations == 1


class _IsmctsOnTicks(IsmctsAgent):
    """The agent with its search reading a :class:`Ticks` clock of 100 s steps (the way the compiled
    twin changes its search function): every deadline has passed at the first reading after one
    iteration."""

    search_function = staticmethod(partial(search, clock=Ticks(step=100.0)))


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
