"""The arena's schedule and tallies: round robin, deals played twice with seats swapped, workers.

Every game is a self-contained :class:`GameTask` (agent specs, seeds, seat order), so games run
in any process and in any order and still give the same results for the same seed. Agents are
built from their specs inside the process that plays, once per game, and closed after it.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field

from kahuna.ai.base import Agent, AgentError
from kahuna.ai.eval.match import GameResult, agent_rng, deal_rng, play_game
from kahuna.ai.eval.stats import paired_interval
from kahuna.ai.registry import make_agent
from kahuna.ai.timed import QUICK_LEVEL
from kahuna.clock import TimeControl
from kahuna.rules import Action, GameState, PlayerView, Variant


@dataclass(frozen=True)
class GameTask:
    """One arena game: ``specs[0]`` is the pairing's first agent, seated second when ``swapped``."""

    pairing: int
    game: int
    specs: tuple[str, str]
    seed: int
    deal: int
    swapped: bool
    keep_record: bool
    variant: tuple[str, ...] = ()
    """Names of the optional rules the game is played with."""
    clock: str | None = None
    """A time control in the command line's spelling (``1+0``), or ``None``: untimed."""


@dataclass
class GameOutcome:
    task: GameTask
    result: GameResult
    notes: list[str] = field(default_factory=list)
    """What went wrong around the game without deciding it (an agent that failed to close)."""

    @property
    def first_seat(self) -> int:
        """The seat the pairing's first agent played."""
        return 1 if self.task.swapped else 0

    @property
    def first_score(self) -> float:
        """The pairing's first agent's score in this game: 1 a win, ½ a draw, 0 a loss."""
        winner = self.result.winner
        return 0.5 if winner is None else float(winner == self.first_seat)


@dataclass
class PairingTally:
    """Wins, losses and draws of the pairing's first agent, its score per deal, and the forfeits seen."""

    labels: tuple[str, str]
    wins: int = 0
    losses: int = 0
    draws: int = 0
    forfeits: list[str] = field(default_factory=list)
    timeouts: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    deal_scores: dict[int, list[float]] = field(default_factory=dict)
    """Deal number → the first agent's score in each game of that deal (two, seats swapped)."""

    @property
    def games(self) -> int:
        return self.wins + self.losses + self.draws

    def interval(self) -> tuple[float, float]:
        """95 % interval of the first agent's score rate, with each deal's two games as one unit."""
        pair_scores = [sum(scores) / len(scores) for scores in self.deal_scores.values()]
        return paired_interval(pair_scores, self.games)

    def add(self, outcome: GameOutcome) -> None:
        self.deal_scores.setdefault(outcome.task.deal, []).append(outcome.first_score)
        winner = outcome.result.winner
        if winner is None:
            self.draws += 1
        elif winner == outcome.first_seat:
            self.wins += 1
        else:
            self.losses += 1
        loser = self.labels[0] if winner != outcome.first_seat else self.labels[1]
        if outcome.result.forfeit:
            self.forfeits.append(f"game {outcome.task.game + 1}: {loser} ({outcome.result.forfeit})")
        if outcome.result.reason == "timeout":
            self.timeouts.append(f"game {outcome.task.game + 1}: {loser} ran out of time")
        self.notes.extend(f"game {outcome.task.game + 1}: {note}" for note in outcome.notes)


def unique_labels(specs: list[str]) -> list[str]:
    """The specs as result labels; a repeated spec gets ``#2``, ``#3``… so that keys stay distinct."""
    seen: dict[str, int] = {}
    labels = []
    for spec in specs:
        seen[spec] = seen.get(spec, 0) + 1
        labels.append(spec if seen[spec] == 1 else f"{spec}#{seen[spec]}")
    return labels


def schedule(
    specs: list[str],
    games: int,
    seed: int,
    keep_record: bool,
    variant: tuple[str, ...] = (),
    clock: str | None = None,
) -> list[GameTask]:
    """``games`` games for every pair of agents: deal ``k`` is played as games ``2k`` and ``2k+1``,
    the second with seats swapped (an odd count plays its last deal once)."""
    tasks = []
    for pairing, (i, j) in enumerate(itertools.combinations(range(len(specs)), 2)):
        for game in range(games):
            tasks.append(
                GameTask(
                    pairing, game, (specs[i], specs[j]), seed, game // 2, bool(game % 2), keep_record, variant, clock
                )
            )
    return tasks


def play_task(task: GameTask) -> GameOutcome:
    """Play one scheduled game (in whatever process runs it).

    Whatever an agent raises — while being built, choosing or closing — stays inside this game:
    an agent that cannot be built or cannot choose forfeits it, one that fails to close leaves a
    note; the arena goes on with the next game.
    """
    first = _build(task.specs[0])
    second = _build(task.specs[1])
    agents: tuple[Agent, Agent] = (second, first) if task.swapped else (first, second)
    specs = [agents[0].name, agents[1].name]
    notes: list[str] = []
    try:
        state = GameState.new(deal_rng(task.seed, task.deal), Variant.from_names(task.variant))
        rngs = (agent_rng(task.seed, task.deal, task.swapped, 0), agent_rng(task.seed, task.deal, task.swapped, 1))
        meta: dict[str, object] = {
            "arena": {"seed": task.seed, "deal": task.deal, "swapped": task.swapped, "game": task.game + 1},
            "specs": list(task.specs[::-1] if task.swapped else task.specs),
        }
        control = None if task.clock is None else TimeControl.parse(task.clock)
        quick = None if control is None else (make_agent(QUICK_LEVEL), make_agent(QUICK_LEVEL))
        if control is not None:
            meta["clock"] = control.to_json()
        result = play_game(
            agents, state, rngs, players=specs, meta=meta, keep_record=task.keep_record, clock=control, quick=quick
        )
    finally:
        for agent in (first, second):
            close = getattr(agent, "close", None)
            if callable(close):
                try:
                    close()
                except Exception as exc:
                    notes.append(f"{agent.name} failed to close: {type(exc).__name__}: {exc}")
    return GameOutcome(task, result, notes)


class _Unbuilt:
    """Stands in for an agent whose spec failed to build in this process: it forfeits the game."""

    def __init__(self, spec: str, error: Exception) -> None:
        self.name = spec
        self.error = error

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        raise AgentError(f"could not be built: {type(self.error).__name__}: {self.error}")


def _build(spec: str) -> Agent:
    try:
        return make_agent(spec)
    except Exception as exc:
        return _Unbuilt(spec, exc)


def run_tasks(tasks: list[GameTask], jobs: int) -> Iterator[GameOutcome]:
    """Play the tasks, ``jobs`` processes at a time, yielding outcomes as games finish."""
    if jobs <= 1:
        for task in tasks:
            yield play_task(task)
        return
    with ProcessPoolExecutor(jobs) as pool:
        futures = [pool.submit(play_task, task) for task in tasks]
        try:
            for future in as_completed(futures):
                yield future.result()
        finally:
            for future in futures:
                future.cancel()
