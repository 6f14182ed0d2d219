"""A puzzle's starting rating from how the AI levels fare on it.

Each level of :data:`RATING_LEVELS` (the named levels up to ``master``: ``grandmaster`` thinks by
time, so its answer depends on the machine) plays the puzzle's turn :data:`TRIES` times from the
seat's view, each try seeded apart and each action checked by
:func:`kahuna.ai.puzzles.puzzle.check`. The starting rating is :data:`BASE` plus :data:`STEP` per
level *failure rate*: the expected number of levels that fail one try. A puzzle every level solves
every time starts at :data:`BASE`, one only ``master`` solves (always) at ``BASE + 4 * STEP``, one
no level ever solves at ``BASE + 5 * STEP``. One try per level made the rating mostly noise for
the levels that sample (``easy``'s random moves, the searches' determinizations): a puzzle ``hard``
solves three times in four moved 300 points on one coin. The players' results then move it (the
server's Glicko-2).

The tries of one rating run are seeded from a *salt* (:func:`rating_salt`, the generator's seed);
``kahuna puzzles levels`` checks the ratings with tries of another salt (:func:`check_salt`), so the
check never replays the tries that set them.
"""

from __future__ import annotations

import json
import multiprocessing
import random
from collections.abc import Callable, Iterator

from kahuna.ai.base import Agent
from kahuna.ai.levels import LEVELS
from kahuna.ai.puzzles.puzzle import Puzzle, check
from kahuna.ai.registry import make_agent
from kahuna.rules import view_of

RATING_LEVELS: tuple[str, ...] = tuple(name for name in LEVELS if name != "grandmaster")
BASE = 700
STEP = 300
TRIES = 20
"""Tries per level and puzzle: a level's failure rate then carries a standard error of at most
0.11 (``sqrt(0.25 / 20)``), the rating at most 75 points (all five levels at a coin's toss); and
:mod:`kahuna.ai.puzzles.sift` needs this many to tell a level that solves a puzzle from one that
guesses it."""


class AgentCache:
    """Each level's agent built once per process (a network loads once)."""

    def __init__(self, make: Callable[[str], Agent] = make_agent) -> None:
        self._make = make
        self._agents: dict[str, Agent] = {}

    def __call__(self, name: str) -> Agent:
        if name not in self._agents:
            self._agents[name] = self._make(name)
        return self._agents[name]


def rating_salt(seed: int) -> str:
    """The salt of the tries that set the starting ratings (the generator's seed)."""
    return f"kahuna-puzzle-rate:{seed}"


def check_salt(seed: int) -> str:
    """The salt of ``kahuna puzzles levels``' tries: never the rating run's."""
    return f"kahuna-puzzle-levels:{seed}"


def attempt(agent: Agent, puzzle: Puzzle, rng: random.Random) -> bool:
    """Let ``agent`` play the puzzle's turn; whether it found an accepted turn."""
    state = puzzle.game_state()
    actions: list[str] = []
    while True:
        action = agent.choose(view_of(state, puzzle.seat), rng)
        actions.append(action.token)
        verdict = check(puzzle, actions)
        if verdict.status != "open":
            return verdict.status == "correct"
        state.apply(action)


def solves(
    puzzle: Puzzle, salt: str, tries: int = TRIES, agents: Callable[[str], Agent] = make_agent
) -> dict[str, int]:
    """How many of ``tries`` each level solves; try ``k`` of level ``L`` draws its choices from
    ``salt``, ``k``, the puzzle's id and ``L``."""
    return {
        name: sum(
            attempt(agents(name), puzzle, random.Random(f"{salt}:{k}:{puzzle.puzzle_id}:{name}")) for k in range(tries)
        )
        for name in RATING_LEVELS
    }


def starting_rating(solved: dict[str, int], tries: int) -> int:
    """:data:`BASE` plus :data:`STEP` per level's failure rate (``solved``: tries solved of ``tries``)."""
    failures = sum(1 - solved.get(name, 0) / tries for name in RATING_LEVELS)
    return round(BASE + STEP * failures)


_WORKER_AGENTS: Callable[[str], Agent] | None = None
"""A worker process's own agents (each level built once per process, its network loaded once)."""


def _solves_in_worker(task: tuple[str, str, int]) -> tuple[str, dict[str, int]]:
    global _WORKER_AGENTS
    if _WORKER_AGENTS is None:
        _WORKER_AGENTS = AgentCache()
    line, salt, tries = task
    puzzle = Puzzle.from_json(json.loads(line))
    return puzzle.puzzle_id, solves(puzzle, salt, tries, _WORKER_AGENTS)


def solves_of_all(
    puzzles: list[Puzzle], salt: str, tries: int, agents: Callable[[str], Agent], jobs: int = 1
) -> Iterator[tuple[str, dict[str, int]]]:
    """:func:`solves` of each puzzle, in order, as each is done; with ``jobs`` > 1 in that many
    worker processes (each with its own agents, so ``agents`` is used only in-process). A try is
    seeded by its salt, number, puzzle and level alone, so the counts are the same either way."""
    if jobs <= 1 or len(puzzles) < 2:
        for puzzle in puzzles:
            yield puzzle.puzzle_id, solves(puzzle, salt, tries, agents)
        return
    tasks = [(json.dumps(p.to_json()), salt, tries) for p in puzzles]
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap(_solves_in_worker, tasks, chunksize=1)
