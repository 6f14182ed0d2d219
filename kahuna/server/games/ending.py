"""A seat's decision to stop: resign (the opponent wins) or abort (nobody wins, only before either
player has finished a turn); or, in a real-time game the opponent has left (no connection for
``left_claim_seconds``), claim the win (``left``) or call it a draw (``left-draw``), as on lichess.
The engine stores the end and runs the game-ended hook."""

from __future__ import annotations

import time
from collections.abc import Callable

from kahuna.rules import Termination
from kahuna.server.common.errors import Rejected
from kahuna.server.games import messages, outgoing
from kahuna.server.games.client import Reply
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


async def resign(engine: GameEngine, game: LiveGame, seat: int | None, reply: Reply | None = None) -> None:
    """``seat`` gives up, on its own turn or the opponent's: the opponent wins."""
    await _end_by(engine, game, seat, "resign", _not_begun, reply)


async def abort(engine: GameEngine, game: LiveGame, seat: int | None, reply: Reply | None = None) -> None:
    """``seat`` calls the game off before either player has finished a turn: nobody wins."""
    await _end_by(engine, game, seat, "aborted", _turn_finished, reply)


async def claim(engine: GameEngine, game: LiveGame, seat: int | None, draw: bool, reply: Reply | None = None) -> None:
    """``seat`` claims the win (or, ``draw``, calls it a draw) of a real-time game whose opponent
    has had no connection for ``game.room.left_claim_seconds``: the opponent's seat "left"."""
    if seat is None:
        raise Rejected("forbidden", "spectators cannot claim a game")
    reason = "left-draw" if draw else "left"
    async with game.lock:
        await engine.time_out_now(game)
        if game.state.is_over:
            raise Rejected("game_over", "the game is over")
        refused = _not_claimable(game, 1 - seat, time.time())
        if refused is not None:
            raise refused
        await engine.end(game, Termination(reason, 1 - seat), time.time(), reply)


def _not_claimable(game: LiveGame, opponent: int, now: float) -> Rejected | None:
    clock = game.clock
    if clock is None or clock.control.correspondence:
        return Rejected("not_realtime", "only a real-time game can be claimed when the opponent leaves")
    if game.status != messages.PLAYING or clock.running is None:
        return Rejected("not_started", "the game has not begun: abort it instead")
    if game.ai_spec(opponent) is not None:
        return Rejected("opponent_here", "the AI never leaves")
    outgoing.presence_message(game, now)  # notes a seat gone since the last presence message
    left_at = game.room.left_at[opponent]
    if left_at is None:
        return Rejected("opponent_here", "your opponent is connected")
    wait = game.room.left_claim_seconds - (now - left_at)
    if wait > 0:
        return Rejected("too_soon", "your opponent left only a moment ago", retry_after=round(wait, 3))
    return None


async def _end_by(
    engine: GameEngine,
    game: LiveGame,
    seat: int | None,
    reason: str,
    refusal: Callable[[LiveGame], Rejected | None],
    reply: Reply | None,
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
        await engine.end(game, Termination(reason, seat), time.time(), reply)
