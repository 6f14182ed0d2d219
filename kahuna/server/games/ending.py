"""A seat's decision to stop: resign (the opponent wins) or abort (nobody wins, only before either
player has finished a turn). The engine stores the end and runs the game-ended hook."""

from __future__ import annotations

import time
from collections.abc import Callable

from kahuna.rules import Termination
from kahuna.server.common.errors import Rejected
from kahuna.server.games import messages
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.live import LiveGame


def _not_begun(game: LiveGame) -> Rejected | None:
    if game.status != messages.PLAYING:
        return Rejected("not_started", "the game has not begun: abort it instead")
    return None


def _turn_finished(game: LiveGame) -> Rejected | None:
    """Refused once either player has finished a turn (after that a game can no longer be aborted)."""
    if any(action.ends_turn for _, action in game.state.history):
        return Rejected("too_late", "a game can be aborted only before either player has finished a turn")
    return None


async def resign(engine: GameEngine, game: LiveGame, seat: int | None) -> None:
    """``seat`` gives up, on its own turn or the opponent's: the opponent wins."""
    await _end_by(engine, game, seat, "resign", _not_begun)


async def abort(engine: GameEngine, game: LiveGame, seat: int | None) -> None:
    """``seat`` calls the game off before either player has finished a turn: nobody wins."""
    await _end_by(engine, game, seat, "aborted", _turn_finished)


async def _end_by(
    engine: GameEngine, game: LiveGame, seat: int | None, reason: str, refusal: Callable[[LiveGame], Rejected | None]
) -> None:
    """End ``game`` as ``seat`` asks (``reason``), unless it is over or ``refusal`` refuses."""
    if seat is None:
        raise Rejected("forbidden", f"spectators cannot {'resign' if reason == 'resign' else 'abort'}")
    async with game.lock:
        await engine.time_out_now(game)
        if game.state.is_over:
            raise Rejected("game_over", "the game is over")
        refused = refusal(game)
        if refused is not None:
            raise refused
        await engine.end(game, Termination(reason, seat), time.time())
