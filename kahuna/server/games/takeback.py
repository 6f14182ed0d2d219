"""Take-backs (the WebSocket's ``takeback`` and ``takeback_decline`` messages): in a casual game
the seat to move asks to take back its last action of this turn, and the other seat accepts or
declines (an AI accepts at once, as lichess's does).

Bounded (issue 45): a seat whose request is pending may not ask again (``takeback_pending``), a
seat whose requests were declined ``MAX_DECLINED_TAKEBACKS`` times asks no more in this game, and a
game holds at most ``MAX_TAKEBACKS`` take-backs (both ``takeback_limit``).

Only within the asker's own turn, before it draws: a turn's card plays draw nothing and reveal no
card the asker did not hold, so taking one back changes no one's knowledge of hidden cards (the
card goes back to the hand it came from). Never in a rated game. The take-back is stored as its own
entry of the game's log before anyone is told (``GameEngine.take_back``): versions only grow, and
the replay, the record and the analysis give the game as played after it.
"""

from __future__ import annotations

from kahuna.server.common.errors import Rejected
from kahuna.server.games import messages
from kahuna.server.games.client import Reply
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.live import LiveGame
from kahuna.server.games.messages import MAX_DECLINED_TAKEBACKS, MAX_TAKEBACKS


async def takeback(engine: GameEngine, game: LiveGame, reply: Reply) -> None:
    """Ask to take back this seat's last action, or accept the other seat's request."""
    seat = reply.client.seat
    if seat is None:
        raise Rejected("forbidden", "spectators cannot take back actions")
    async with game.lock:
        _check_game(game)
        offer = game.takeback_offer
        if offer is not None and offer[0] != seat:  # the other seat asked: accepted
            if offer[1] != game.version:
                engine.void_takeback(game)
                raise Rejected("stale_version", "the game moved on since the take-back was asked for")
            await engine.take_back(game, offer[0], reply)
            return
        if offer is not None:
            raise Rejected("takeback_pending", "this seat's take-back request waits for an answer")
        if game.state.to_move != seat:
            raise Rejected("not_your_turn", "a take-back is asked for in one's own turn")
        if not messages.can_take_back(game.state, seat, game.status, True):
            raise Rejected("nothing_to_take_back", "no action of this turn to take back (a draw ends the turn)")
        if game.ai_spec(1 - seat) is not None:
            await engine.take_back(game, seat, reply)
            return
        if game.takeback_declines[seat] >= MAX_DECLINED_TAKEBACKS:
            raise Rejected(
                "takeback_limit", f"{MAX_DECLINED_TAKEBACKS} take-back requests were declined: no more in this game"
            )
        engine.ask_takeback(game, seat, reply)


async def decline(engine: GameEngine, game: LiveGame, reply: Reply) -> None:
    """Decline the other seat's take-back request."""
    seat = reply.client.seat
    if seat is None:
        raise Rejected("forbidden", "spectators cannot decline a take-back")
    async with game.lock:
        offer = game.takeback_offer
        if offer is None or offer[0] == seat:
            raise Rejected("no_takeback", "the other seat has not asked for a take-back")
        engine.decline_takeback(game, seat, reply)


def _check_game(game: LiveGame) -> None:
    if game.state.is_over:
        raise Rejected("game_over", "the game is over")
    if game.status != messages.PLAYING:
        raise Rejected("not_your_turn", "the game is waiting for its invited opponent")
    if game.tournament:
        raise Rejected("tournament", "a tournament's games allow no take-backs")
    if game.takebacks >= MAX_TAKEBACKS:
        raise Rejected("takeback_limit", f"a game allows at most {MAX_TAKEBACKS} take-backs")
    if not game.allows_takebacks:
        raise Rejected("rated", "rated games allow no take-backs")
