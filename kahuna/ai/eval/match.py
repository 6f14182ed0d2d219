"""One game between two agents, as the arena plays it: views in, actions out, forfeits caught.

Each seat only ever gets its own :func:`view_of`. An agent that raises any exception (an
:class:`AgentError` says why in words; anything else is a crash, named by its type) or answers
something that is not a legal action forfeits: the game stops there and the other seat wins, and
whoever plays many games (the arena) carries on with the next. The result carries the game record
and the time each seat spent per turn.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from kahuna.ai.base import Agent, AgentError
from kahuna.ai.timed import choose_on_clock
from kahuna.clock import Clock, TimeControl
from kahuna.rules import Action, GameRecord, GameState, IllegalActionError, Termination, view_of
from kahuna.rules.board import SEAT_NAMES

FORFEIT = "forfeit"
"""The ``reason`` of a game lost by an agent error."""


@dataclass
class GameResult:
    """How one game went; ``winner`` is a seat or ``None`` for a draw."""

    winner: int | None
    reason: str
    actions: int
    turn_seconds: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    """Per seat, the seconds it spent on each of its turns (all its choices in that turn)."""
    forfeit: str | None = None
    """Why the losing seat forfeited, in words, when it did."""
    record: str | None = None


def deal_rng(seed: int, deal: int) -> random.Random:
    """The RNG that deals a game (and shuffles its later rounds) for one arena deal."""
    return random.Random(f"kahuna-arena:{seed}:deal:{deal}")


def agent_rng(seed: int, deal: int, swapped: bool, seat: int) -> random.Random:
    """The RNG one seat's agent draws from during one game: fixed by the arena seed."""
    return random.Random(f"kahuna-arena:{seed}:deal:{deal}:swapped:{int(swapped)}:seat:{seat}")


def play_game(
    agents: tuple[Agent, Agent],
    state: GameState,
    rngs: tuple[random.Random, random.Random],
    players: list[str] | None = None,
    meta: dict[str, object] | None = None,
    keep_record: bool = False,
    clock: TimeControl | None = None,
    quick: tuple[Agent, Agent] | None = None,
    now: Callable[[], float] = time.perf_counter,
) -> GameResult:
    """Play ``state`` to its end with ``agents[seat]`` choosing for each seat.

    On a ``clock`` (seconds read from ``now``: real seconds of this process unless a test gives
    another clock) each seat plays its agent while it has time and ``quick[seat]`` when short of it,
    and a level that thinks by time spends its share of the time left (``kahuna/ai/timed.py``), as
    the server does; a seat whose time runs out loses (``timeout``).
    """
    turn_seconds: tuple[list[float], list[float]] = ([], [])
    spent = [0.0, 0.0]
    forfeit: tuple[int, str] | None = None
    timer = None if clock is None else Clock.new(clock)
    if timer is not None:
        timer.start(state.to_move, now())
    while not state.is_over:
        seat = state.to_move
        start = now()
        agent, view = agents[seat], view_of(state, seat)
        try:
            if timer is not None and quick is not None:
                action = choose_on_clock(agent, quick[seat], view, rngs[seat], timer.left(seat, start), clock)
            else:
                action = agent.choose(view, rngs[seat])
        except AgentError as exc:
            forfeit = (seat, str(exc) or type(exc).__name__)
            break
        except Exception as exc:  # a bug in the agent costs it this game, not the whole run
            forfeit = (seat, f"crashed: {type(exc).__name__}: {exc}" if str(exc) else f"crashed: {type(exc).__name__}")
            break
        if not isinstance(action, Action):
            forfeit = (seat, f"answered {action!r}, which is not an action")
            break
        moment = now()
        if timer is not None and timer.flagged(moment) == seat:
            state.terminate(Termination("timeout", seat))
            break
        try:
            state.apply(action)
        except IllegalActionError as exc:
            forfeit = (seat, f"played the illegal action {action.token!r}: {exc}")
            break
        if timer is not None and action.ends_turn and not state.is_over:
            timer.turn_ended(seat, moment)
        spent[seat] += now() - start
        if action.ends_turn:
            turn_seconds[seat].append(spent[seat])
            spent[seat] = 0.0
    if forfeit is not None:
        loser, why = forfeit
        winner: int | None = 1 - loser
        reason = FORFEIT
        message: str | None = f"{SEAT_NAMES[loser]} forfeits: {why}"
    else:
        assert state.outcome is not None
        winner, reason, message = state.outcome.winner, state.outcome.reason, None
    record = None
    if keep_record:
        info = dict(meta or {})
        info["result"] = {"winner": winner, "reason": reason} | ({"forfeit": message} if message else {})
        record = GameRecord.of(state, players=players, meta=info).dumps()
    return GameResult(winner, reason, len(state.history), turn_seconds, message, record)
