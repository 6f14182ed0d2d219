"""A seat's decision to stop: resign (the opponent wins) or abort (nobody wins, only before either
player has finished a turn). The engine stores the end and runs the game-ended hook."""

from __future__ import annotations

import time

from kahuna.rules import GameState, Termination
from kahuna.server.common.errors import Rejected
from kahuna.server.games import messages
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.live import LiveGame


def _turn_finished(state: GameState) -> bool:
    """Whether either player has finished a turn (after that a game can no longer be aborted)."""
    return any(action.ends_turn for _, action in state.history)


async def resign(engine: GameEngine, game: LiveGame, seat: int | None) -> None:
    """``seat`` gives up, on its own turn or the opponent's: the opponent wins."""
    if seat is None:
        raise Rejected("forbidden", "spectators cannot resign")
    async with game.lock:
        await engine.time_out_now(game)
        if game.state.is_over:
            raise Rejected("game_over", "the game is over")
        if game.status != messages.PLAYING:
            raise Rejected("not_started", "the game has not begun: abort it instead")
        await engine.end(game, Termination("resign", seat), time.time())


async def abort(engine: GameEngine, game: LiveGame, seat: int | None) -> None:
    """``seat`` calls the game off before either player has finished a turn: nobody wins."""
    if seat is None:
        raise Rejected("forbidden", "spectators cannot abort")
    async with game.lock:
        await engine.time_out_now(game)
        if game.state.is_over:
            raise Rejected("game_over", "the game is over")
        if _turn_finished(game.state):
            raise Rejected("too_late", "a game can be aborted only before either player has finished a turn")
        await engine.end(game, Termination("aborted", seat), time.time())
