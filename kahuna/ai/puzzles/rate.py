"""A puzzle's starting rating from how the AI levels fare on it.

Each level of :data:`RATING_LEVELS` (the named levels up to ``master``: ``grandmaster`` thinks by
time, so its answer depends on the machine) plays the puzzle's turn once, from the seat's view,
each action checked by :func:`kahuna.ai.puzzles.puzzle.check`. A puzzle every level solves starts
at :data:`BASE`; each level that fails adds :data:`STEP` (a puzzle only ``master`` solves starts
at ``BASE + 4 * STEP``, one no level solves at ``BASE + 5 * STEP``). The players' results then
move it (the server's Glicko-2).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from kahuna.ai.base import Agent
from kahuna.ai.levels import LEVELS
from kahuna.ai.puzzles.puzzle import Puzzle, check
from kahuna.ai.registry import make_agent
from kahuna.rules import view_of

RATING_LEVELS: tuple[str, ...] = tuple(name for name in LEVELS if name != "grandmaster")
BASE = 700
STEP = 300


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


def solved_by(puzzle: Puzzle, seed: int, agents: Callable[[str], Agent] = make_agent) -> tuple[str, ...]:
    """The levels that solve ``puzzle`` (each once, its choices seeded from ``seed`` and its name)."""
    out = []
    for name in RATING_LEVELS:
        rng = random.Random(f"kahuna-puzzle-rate:{seed}:{puzzle.puzzle_id}:{name}")
        if attempt(agents(name), puzzle, rng):
            out.append(name)
    return tuple(out)


def starting_rating(solved: tuple[str, ...]) -> int:
    """:data:`BASE` plus :data:`STEP` per level that failed."""
    return BASE + STEP * sum(name not in solved for name in RATING_LEVELS)
