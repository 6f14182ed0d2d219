"""grandmaster: the network search by time on several workers, and its time manager on a clock.

Nothing here reads the wall clock against a threshold: the stopping rule is checked as a function
of given counts and times, the compiled workers through their shared board (a raised stop flag,
the iteration bound), and reproducibility in the mode without a clock.
"""

from __future__ import annotations

import random
from array import array
from dataclasses import astuple

import pytest

from kahuna.ai.agents.net import load_network
from kahuna.ai.agents.netsearch import NetSearchConfig, compiled_search
from kahuna.ai.agents.timed_net import CHECK_EVERY, TimedNetAgent, cores, time_to_stop, timed_search
from kahuna.ai.base import RandomAgent
from kahuna.ai.budget import TimeBudget
from kahuna.ai.levels import LEVEL_SPECS, deep_spec
from kahuna.ai.registry import make_agent
from kahuna.ai.spec import SpecError
from kahuna.ai.timed import (
    LATENCY_SECONDS,
    MAX_SHARE_OF_LEFT,
    choose_on_clock,
    decision_budget,
    reserve,
    turns_played,
)
from kahuna.clock import TimeControl
from kahuna.fast import core_module, selected_core
from kahuna.fast.layout import view_fields
from kahuna.rules import GameState, PlayerView, legal_actions_of, view_of

needs_core = pytest.mark.skipif(selected_core() != "fast", reason="the compiled core is not built or not selected")


def midgame_view(seed: int = 5, plies: int = 12) -> PlayerView:
    state = GameState.new(random.Random(seed))
    rng = random.Random(seed + 1)
    while len(state.history) < plies or len(legal_actions_of(view_of(state, state.to_move))) < 3:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
    return view_of(state, state.to_move)


def config(iterations: int) -> NetSearchConfig:
    return NetSearchConfig(iterations=iterations, c_puct=1.0, mix=0.5)


def test_grandmaster_is_a_level_that_thinks_by_time_on_every_core() -> None:
    agent = make_agent("grandmaster")
    assert isinstance(agent, TimedNetAgent)
    assert agent.name == "grandmaster"
    assert agent.budget == TimeBudget(1.0, 2.0, 0.02)
    assert agent.workers == cores()
    deep = make_agent(deep_spec("grandmaster"))
    assert isinstance(deep, TimedNetAgent) and deep.budget is not None and deep.budget.seconds == 10
    assert deep_spec("master") == "master"  # levels by count have no deeper budget
    assert "seconds=1" in LEVEL_SPECS["grandmaster"]


@pytest.mark.parametrize(
    "spec",
    ["net:seconds=-1", "net:seconds=1,stretch=0.5", "net:workers=65", "net:seconds=1,close=2", "net:seconds=3000"],
)
def test_bad_time_options_are_refused(spec: str) -> None:
    with pytest.raises(SpecError):
        make_agent(spec)


@needs_core
def test_without_a_clock_the_workers_are_reproducible_and_add_up() -> None:
    """seconds=0: each worker searches its share of the iterations from its own seed; the visits are
    the sum of the single searches (so the same seed and workers give the same action anywhere)."""
    view = midgame_view()
    net = load_network("net")
    agent = TimedNetAgent(net, config(120), None, workers=2)
    first = agent.choose(view, random.Random(9))
    assert agent.last is not None
    visits = agent.last.visits
    seeds_rng = random.Random(9)
    seeds = [seeds_rng.getrandbits(64) for _ in range(2)]
    expected: dict[int, int] = {}
    for seed in seeds:
        for index, n in compiled_search(view, net, config(60), seed).items():
            expected[index] = expected.get(index, 0) + n
    assert visits == expected
    assert agent.choose(view, random.Random(9)) is first
    agent.close()


def board_for(workers: int) -> array[float]:
    core = core_module()
    return array("d", bytes(8 * (core.NETSEARCH_BOARD_HEADER + workers * core.NETSEARCH_BOARD_ROW)))


def run_worker(view: PlayerView, iterations: int, budget: TimeBudget, board: array[float], workers: int = 1) -> int:
    net = load_network("net")
    fields, hands, downs = view_fields(view)
    cfg = config(iterations)
    visits, done = core_module().net_search_timed(
        net.compiled(),
        fields,
        view.seat,
        hands,
        downs,
        random.Random(3).getstate()[1],
        cfg.iterations,
        cfg.c_puct,
        cfg.mix,
        cfg.playout_turns,
        astuple(cfg.heuristic),
        budget.seconds,
        budget.hard_seconds,
        budget.close,
        board,
        workers,
        0,
    )
    assert sum(visits.values()) <= done
    return int(done)


@needs_core
def test_a_raised_stop_flag_ends_every_worker_at_its_next_check() -> None:
    board = board_for(2)
    board[0] = 1.0  # another worker decided: stop
    assert run_worker(midgame_view(), 100_000, TimeBudget(3600, 3600), board, workers=2) == CHECK_EVERY


@needs_core
def test_a_worker_publishes_its_root_and_keeps_to_its_iteration_bound() -> None:
    board = board_for(1)
    done = run_worker(midgame_view(), 40, TimeBudget(3600, 3600), board)
    header = core_module().NETSEARCH_BOARD_HEADER
    assert done <= 40
    assert board[header] == done  # the row starts with the iterations made
    assert 0 < sum(board[header + 1 : header + 1 + 243]) <= done


@needs_core
def test_bad_boards_and_budgets_are_refused() -> None:
    with pytest.raises(ValueError, match="board"):
        run_worker(midgame_view(), 40, TimeBudget(1, 1), array("d", bytes(8 * 10)))
    with pytest.raises(ValueError, match="time budget"):
        run_worker(midgame_view(), 40, TimeBudget(1, 1), board_for(1), workers=0)


def test_the_stopping_rule() -> None:
    budget = TimeBudget(1.0, 2.0, close=0.02)
    clear = {1: (900, 900 * 0.7), 2: (100, 100 * 0.4)}
    # 1000 iterations in 0.1 s: 9,000 more would fit before the budget, enough to overturn 900-100.
    assert not time_to_stop(clear, 1000, 0.1, budget, 1_000_000)
    # At 0.9 s the rate leaves 111 iterations: action 2 cannot catch up any more.
    assert time_to_stop(clear, 1000, 0.9, budget, 1_000_000)
    # The iteration bound is a remainder too: 10 iterations left cannot overturn 900-100.
    assert time_to_stop(clear, 1000, 0.1, budget, 1010)
    # At the budget a clear root stops; a close one thinks on, to the hard limit.
    assert time_to_stop({1: (600, 600 * 0.5), 2: (400, 400 * 0.3)}, 1000, 1.0, budget, 1_000_000)
    close = {1: (600, 600 * 0.5), 2: (400, 400 * 0.49)}
    assert not time_to_stop(close, 1000, 1.0, budget, 1_000_000)
    assert time_to_stop(close, 1000, 2.0, budget, 1_000_000)
    # Ties go to the lower index: 3 may tie 1 but not pass it, 0 must stay strictly behind.
    assert time_to_stop({1: (500, 250.0), 3: (400, 200.0)}, 900, 0.9, budget, 1000)
    assert not time_to_stop({1: (500, 250.0), 0: (400, 200.0)}, 900, 0.9, budget, 1000)


@needs_core
def test_the_iteration_bound_is_shared_by_the_workers() -> None:
    agent = TimedNetAgent(load_network("net"), config(100), TimeBudget(3600, 3600), workers=2)
    agent.choose(midgame_view(), random.Random(2))
    assert agent.last is not None and agent.last.iterations <= 100
    agent.close()


@needs_core
def test_the_search_by_time_plays_a_legal_action_on_two_workers() -> None:
    view = midgame_view()
    net = load_network("net")
    result = timed_search(view, net, config(200), TimeBudget(3600, 3600), [1, 2], None)
    assert result.iterations <= 400
    assert set(result.visits) <= {a.index for a in legal_actions_of(view)}


def test_a_share_of_the_clock_fits_the_moves_to_come() -> None:
    own = TimeBudget.of(1.0)
    blitz = TimeControl(initial=60, increment=0)
    budget = decision_budget(own, 60.0, blitz, 0)
    assert budget is not None
    usable = 60.0 - reserve(blitz) - LATENCY_SECONDS
    assert budget.seconds < own.seconds and budget.seconds * 72 <= usable  # 36 turns, 2 decisions each
    assert budget.hard_seconds <= MAX_SHARE_OF_LEFT * usable
    # Late in the game with little left: smaller shares, then none (the quick level plays).
    later = decision_budget(own, 25.0, blitz, 30)
    assert later is not None and later.seconds < budget.seconds
    assert decision_budget(own, reserve(blitz) + LATENCY_SECONDS, blitz, 30) is None
    # A long clock with an increment: the level's own budget, never more.
    assert decision_budget(own, 600.0, TimeControl(initial=600, increment=5), 10) == own
    # Correspondence: the level's own (deep) budget.
    assert decision_budget(own, 86_400.0, TimeControl(days=1), 10) is own


class Recorder(RandomAgent):
    """A level by time that records the budget it was given."""

    def __init__(self) -> None:
        self.budget: TimeBudget | None = TimeBudget.of(1.0)
        self.given: list[TimeBudget | None] = []

    def choose_within(self, view: PlayerView, rng: random.Random, budget: TimeBudget | None) -> object:
        self.given.append(budget)
        return self.choose(view, rng)


def test_on_a_clock_a_level_by_time_gets_its_share_and_the_quick_level_plays_when_short() -> None:
    view = midgame_view()
    blitz = TimeControl(initial=60, increment=0)
    level, quick = Recorder(), Recorder()
    choose_on_clock(level, quick, view, random.Random(1), 50.0, blitz)
    assert level.given == [decision_budget(TimeBudget.of(1.0), 50.0, blitz, turns_played(view))]
    choose_on_clock(level, quick, view, random.Random(1), reserve(blitz), blitz)
    assert len(level.given) == 1  # short of time: the quick level chose, not asked for a budget
    choose_on_clock(level, quick, view, random.Random(1), None, None)
    assert len(level.given) == 1  # untimed: its own budget, by choose


def test_turns_played_counts_the_seats_finished_turns() -> None:
    state = GameState.new(random.Random(2))
    ends = 0
    while ends < 6:
        action = state.legal_actions()[-1]
        ends += action.ends_turn
        state.apply(action)
    assert turns_played(view_of(state, state.to_move)) == 3
