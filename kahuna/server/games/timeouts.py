"""Ending games whose clock ran out: decided by the server at the deadline, whether anybody is
connected or not (``games/deadlines.py`` says when; the engine stores the end once)."""

from __future__ import annotations

from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.games.deadlines import Deadlines
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.registry import GameRegistry


async def end_timed_out_games(deadlines: Deadlines, registry: GameRegistry, engine: GameEngine) -> None:
    """Forever: wait for the earliest deadline, then end that game by timeout (loaded if need be)."""
    while True:
        game_id = await deadlines.next_due()
        try:
            game = await registry.get(game_id)
            if game is not None:
                async with game.lock:
                    await engine.time_out_now(game)
        except Rejected as exc:
            if exc.code == "server_error":  # the database refused: try again soon
                logs.event("timeout_error", game_id=game_id, error=exc.code)
                deadlines.retry_soon(game_id)
            # else another instance ended the game (or moved) first: caught up, the clock is tracked
        except Exception as exc:  # a damaged game or a failed write: logged, tried again soon
            logs.event("timeout_error", game_id=game_id, error=type(exc).__name__)
            deadlines.retry_soon(game_id)
