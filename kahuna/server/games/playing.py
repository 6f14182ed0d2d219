"""A seat's action (the WebSocket's ``action`` message): checked against the protocol, then played
by the engine."""

from __future__ import annotations

import time

from kahuna.rules import Action
from kahuna.rules.board import SEAT_NAMES
from kahuna.server.common.errors import Rejected
from kahuna.server.games import messages
from kahuna.server.games.client import Reply
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.live import LiveGame


async def act(
    engine: GameEngine,
    game: LiveGame,
    seat: int | None,
    action: Action,
    version: int,
    reply: Reply | None = None,
) -> None:
    """Play ``action`` for ``seat`` if the protocol allows it, else raise ``Rejected``; the engine
    acknowledges ``reply`` once the action is committed."""
    if seat is None:
        raise Rejected("forbidden", "spectators cannot play")
    async with game.lock:
        if game.clock is not None and not game.state.is_over and game.clock.flagged(time.time()) is not None:
            await engine.time_out_now(game)  # the deadline has passed, the timer not yet fired
        if game.state.is_over:
            raise Rejected("game_over", "the game is over")
        if version != game.version:
            raise Rejected("stale_version", f"you are at version {version}, the game is at version {game.version}")
        if game.status == messages.WAITING:
            raise Rejected("not_your_turn", "the game is waiting for its invited opponent")
        if game.state.to_move != seat:
            raise Rejected("not_your_turn", f"it is {SEAT_NAMES[game.state.to_move]}'s turn")
        await engine.apply(game, seat, action, reply)
