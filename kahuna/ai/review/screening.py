"""Fair-play screening of one game: how closely each player's decisions follow the AI's own.

The judge is the network search of ``master`` (the same network and settings) on a small fixed
budget, :data:`JUDGE_ITERATIONS` iterations per decision, run by the compiled core: a game's
screening costs a fraction of a CPU-second (docs/fair-play.md measures it), where the post-game
analysis (:mod:`kahuna.ai.review.analysis`, a thousand iterations of the Python tree per decision)
costs a minute. Each decision is searched from the acting seat's own view just before it (the
record replayed through the referee, :func:`kahuna.ai.review.analysis.decisions`): the hidden cards
are sampled, never read from the record.

From the root of the search, per decision:

* ``first``: the most visited action, the one the AI would play (ties to the lowest index);
* a *reasonable* action: one whose mean value (a win chance for the mover) is within
  :attr:`Judge.margin` of the first's and that got at least :attr:`Judge.share` of the root's
  visits. A decision is a *real choice* when it has two reasonable actions or more: forced
  decisions (one legal action) and trivial ones (one reasonable action) say nothing of a player;
* ``loss``: the analysis's measure, the first's mean value less the played action's
  (never below 0). A played action the search never visited is valued at the lowest mean among
  the visited ones, a loss the search could not measure more closely in its budget;
* ``stake``: the first's mean value less the lowest reasonable alternative's: how much the
  decision matters;
* ``seconds``: the time from the action before (the opponent's, or the player's own within a
  turn) to this one, when the caller knows when each action was stored.

Each decision's search is seeded from the game's seed and the step alone, so a game screened twice
gives the same figures.
"""

from __future__ import annotations

import random
import statistics
import time
from array import array
from dataclasses import astuple, dataclass
from functools import cache
from typing import Any

from kahuna.ai.agents.heuristic import load_weights
from kahuna.ai.agents.net import Network, load_network
from kahuna.ai.agents.netsearch import NetSearchConfig, _iterate, _Node, compiled
from kahuna.ai.review.analysis import Decision, decisions, seed_for
from kahuna.fast import core_module
from kahuna.fast.layout import view_fields
from kahuna.rules import GameRecord, PlayerView, determinize, legal_actions_of

JUDGE_ITERATIONS = 400
"""Iterations of the network search per searched decision (docs/fair-play.md: its cost and how
well it separates the populations)."""

RootStats = dict[int, tuple[int, float]]
"""Root action index → (visits, mean value for the mover)."""


@dataclass(frozen=True)
class Judge:
    """What one decision's search spends and when an action counts as reasonable."""

    iterations: int = JUDGE_ITERATIONS
    margin: float = 0.10
    share: float = 0.05

    def config(self) -> NetSearchConfig:
        return NetSearchConfig(
            iterations=self.iterations, c_puct=1.0, mix=0.0, heuristic=judge_heuristic(), stop=True, share=0.0
        )


@cache
def judge_heuristic() -> Any:
    """The playout heuristic of ``master``'s search (the judge's and the puzzles' proof's)."""
    return load_weights("ismcts-tuned")


@cache
def judge_network() -> Network:
    """``master``'s network, loaded once per process."""
    return load_network("net")


def root_stats(view: PlayerView, net: Network, config: NetSearchConfig, seed: int) -> RootStats:
    """Visits and mean value of every visited root action after a search of ``view``; the
    compiled core's search (stopping once the leader is settled) when it is built, else Python."""
    if compiled(config):
        return _compiled_root(view, net, config, seed)
    return _python_root(view, net, config, seed)


def _compiled_root(view: PlayerView, net: Network, config: NetSearchConfig, seed: int) -> RootStats:
    core = core_module()
    header, row = core.NETSEARCH_BOARD_HEADER, core.NETSEARCH_BOARD_ROW
    board = array("d", bytes(8 * (header + row)))
    fields, hand_slots, down_slots = view_fields(view)
    core.net_search_timed(
        net.compiled(),
        fields,
        view.seat,
        hand_slots,
        down_slots,
        random.Random(seed).getstate()[1],
        config.iterations,
        float(config.c_puct),
        float(config.mix),
        config.playout_turns,
        astuple(config.heuristic),
        3600.0,  # no clock: the budget is the iterations, ended early once the leader is settled
        3600.0,
        0.0,
        board,
        1,
        0,
    )
    actions = (row - 1) // 2
    out: RootStats = {}
    for index in range(actions):
        visits = int(board[header + 1 + index])
        if visits:
            out[index] = (visits, board[header + 1 + actions + index] / visits)
    return out


def _python_root(view: PlayerView, net: Network, config: NetSearchConfig, seed: int) -> RootStats:
    rng = random.Random(seed)
    root = _Node(0.0)
    for _ in range(config.iterations):
        _iterate(root, determinize(view, rng), net, config, rng)
    return {i: (c.visits, c.reward / c.visits) for i, c in root.children.items() if c.visits}


@dataclass(frozen=True)
class Choice:
    """One searched decision of a player."""

    step: int
    seat: int
    real: bool
    matched: bool
    loss: float
    stake: float
    seconds: float | None


def judge_decision(decision: Decision, judge: Judge, seed: int, seconds: float | None) -> Choice | None:
    """The decision as the judge sees it; ``None`` when it was forced (one legal action)."""
    if len(legal_actions_of(decision.view)) == 1:
        return None
    stats = root_stats(decision.view, judge_network(), judge.config(), seed_for(seed, decision.step))
    if not stats:
        return None
    total = sum(visits for visits, _ in stats.values())
    first = max(stats, key=lambda i: (stats[i][0], -i))
    best = stats[first][1]
    reasonable = [v for n, v in stats.values() if n >= judge.share * total and v >= best - judge.margin]
    played = decision.played.index
    value = stats[played][1] if played in stats else min(v for _, v in stats.values())
    return Choice(
        step=decision.step,
        seat=decision.seat,
        real=len(reasonable) >= 2,
        matched=played == first,
        loss=max(0.0, best - value),
        stake=max(0.0, best - min(reasonable)),
        seconds=seconds,
    )


def screen(
    record: GameRecord, times: list[float] | None, seed: int, judge: Judge | None = None
) -> tuple[list[Choice], list[int]]:
    """Every unforced decision of ``record``, judged, and how many actions each seat made;
    ``times``: when each action was stored (seconds, one per action), for the time per decision."""
    judge = judge or Judge()
    out = []
    actions = [0, 0]
    for decision in decisions(record):
        actions[decision.seat] += 1
        seconds = None
        if times is not None and 0 < decision.step < len(times):
            seconds = max(0.0, times[decision.step] - times[decision.step - 1])
        choice = judge_decision(decision, judge, seed, seconds)
        if choice is not None:
            out.append(choice)
    return out, actions


def figures(choices: list[Choice], seat: int, actions: int) -> dict[str, Any]:
    """One player's figures in one game: its decisions, the real choices among them, how many the
    player made as the AI's first choice, the summed and mean loss, and its time per decision
    (median on real choices, and on the hard ones, the half with the larger stakes, against the
    easy half: a ratio near 1 is a player who takes the same time whatever the decision)."""
    mine = [c for c in choices if c.seat == seat and c.real]
    matched = sum(c.matched for c in mine)
    loss = sum(c.loss for c in mine)
    out: dict[str, Any] = {
        "actions": actions,
        "choices": len(mine),
        "matched": matched,
        "match_rate": round(matched / len(mine), 4) if mine else None,
        "loss": round(loss, 4),
        "mean_loss": round(loss / len(mine), 4) if mine else None,
        "seconds_median": None,
        "hard_easy_seconds": None,
    }
    timed = sorted((c for c in mine if c.seconds is not None), key=lambda c: c.stake)
    if timed:
        out["seconds_median"] = round(statistics.median(c.seconds or 0.0 for c in timed), 3)
    if len(timed) >= 4:
        half = len(timed) // 2
        easy = statistics.median(c.seconds or 0.0 for c in timed[:half])
        hard = statistics.median(c.seconds or 0.0 for c in timed[half:])
        out["hard_easy_seconds"] = round(hard / easy, 3) if easy > 0 else None
    return out


def screen_game(
    record_json: dict[str, Any], times: list[float] | None, seed: int, iterations: int = JUDGE_ITERATIONS
) -> tuple[dict[str, dict[str, Any]], float]:
    """Worker side: both players' :func:`figures` of one game, by seat (``"0"``, ``"1"``), and the
    CPU-seconds the screening took in this process."""
    start = time.process_time()
    record = GameRecord.from_json(record_json)
    choices, actions = screen(record, times, seed, Judge(iterations=iterations))
    found = {str(seat): figures(choices, seat, actions[seat]) for seat in (0, 1)}
    return found, time.process_time() - start
