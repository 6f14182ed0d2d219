"""AI seats: how an AI chooses its action, and its turns played in this process's pool.

The agent sees only the AI seat's player view (``kahuna.ai.base``), in a worker process of the
:class:`~kahuna.server.games.ai_pool.AiPool`; its action is then played through the engine like any
seat's (:meth:`~kahuna.server.games.engine.GameEngine.play_ai`), so an AI move is stored,
replicated and broadcast exactly as a person's. :func:`ai_move` is shared by the server's own AI
turns (:class:`LocalAiTurns`) and by ``kahuna worker``, which plays the moves that clustered
instances queue (``cluster/ai_jobs.py``).
"""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

from kahuna.ai import timed
from kahuna.ai.levels import deep_spec
from kahuna.ai.registry import make_agent
from kahuna.rules import Action, PlayerView, parse, view_of
from kahuna.server.common import logs
from kahuna.server.common.draws import random_seed
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.games import messages
from kahuna.server.games.ai_pool import AiPool, ClockReading
from kahuna.server.games.live import LiveGame
from kahuna.server.games.ports import AiMoves

RETRY_SECONDS = 1.0
"""Seconds before an AI turn that failed (the database refused its move) is tried again."""


async def ai_move(engine: AiMoves, pool: AiPool, game: LiveGame, seat: int, spec: str) -> bool:
    """Choose and play one action of the AI ``seat`` (here, or in ``kahuna worker``); ``False`` if
    the game moved on while the agent thought. Raises if the action could not be stored.

    In a correspondence game a level plays its deep spec (``grandmaster`` thinks ten seconds, where
    nobody waits); on a real-time clock the worker is told the time left, so that a level thinking
    by time spends its share of it (``kahuna.ai.timed``)."""
    view, version = view_of(game.state, seat), game.version  # the log's length, take-backs included
    clock, now = game.clock, time.time()
    reading: ClockReading | None = None
    if clock is not None and clock.control.correspondence:
        spec = deep_spec(spec)
    elif clock is not None:
        left = clock.left(seat, now)
        if timed.short_of_time(left, clock.control):
            action = await asyncio.to_thread(_quick_action, view)  # short of time: no queue
            return await engine.play_ai(game, seat, version, action)
        reading = (left, now, clock.control.to_json())
    action = await _agent_action(pool, game, spec, view.to_json(), reading)
    return await engine.play_ai(game, seat, version, action)


async def _agent_action(
    pool: AiPool, game: LiveGame, spec: str, view_json: dict[str, Any], clock: ClockReading | None
) -> Action:
    """The agent's choice; a uniformly random legal action if the agent fails (logged)."""
    start = time.perf_counter()
    try:
        token = await pool.choose(spec, view_json, random_seed(), game.owner, clock)
        action = parse(token)
    except Exception as exc:
        logs.event("ai_error", game_id=game.game_id, spec=spec, error=type(exc).__name__)
        return random.Random(random_seed()).choice(game.state.legal_actions())
    ms = round((time.perf_counter() - start) * 1000, 1)
    logs.event("ai_move", game_id=game.game_id, spec=spec, ms=ms)
    return action


def _quick_action(view: PlayerView) -> Action:
    """The quick level's choice, computed in a thread rather than queued behind other games' AI
    turns: a seat short of time cannot wait (``kahuna/ai/timed.py``)."""
    return make_agent(timed.QUICK_LEVEL).choose(view, random.Random(random_seed()))


def ai_to_move(game: LiveGame) -> bool:
    """Whether the game is being played and an AI seat is to move."""
    return game.status == messages.PLAYING and game.ai_spec(game.state.to_move) is not None


class LocalAiTurns:
    """AI turns computed in this process's pool: the embedded server, or ``--local-ai``. The task of
    each game whose AI is thinking is held here, not on the game (the engine alone writes a
    :class:`LiveGame`): the registry asks :meth:`thinking` before it drops a game from memory."""

    def __init__(self, pool: AiPool) -> None:
        self.pool = pool
        self._tasks: dict[LiveGame, asyncio.Task[None]] = {}

    def thinking(self, game: LiveGame) -> bool:
        task = self._tasks.get(game)
        return task is not None and not task.done()

    def schedule(self, game: LiveGame, engine: AiMoves) -> None:
        if not ai_to_move(game) or self.thinking(game):
            return
        task = self._tasks[game] = asyncio.get_running_loop().create_task(self._turns(game, engine))
        task.add_done_callback(lambda _: self._tasks.pop(game) if self._tasks.get(game) is task else None)

    async def _turns(self, game: LiveGame, engine: AiMoves) -> None:
        """Play the AI seat's actions while it is to move (a turn is several actions)."""
        while game.status == messages.PLAYING:
            seat = game.state.to_move
            spec = game.ai_spec(seat)
            if spec is None:
                return
            try:
                if not await ai_move(engine, self.pool, game, seat, spec):
                    return
            except Exception as exc:  # e.g. the database refused the move: try again shortly
                logs.event("ai_error", game_id=game.game_id, seat=seat, error=type(exc).__name__)
                await asyncio.sleep(RETRY_SECONDS)

    async def close(self) -> None:
        """Stop every AI turn under way and return once each has ended, so that none is still
        storing a move when the writer closes."""
        for task in list(self._tasks.values()):
            await cancel_and_wait(task)
