"""Rematches (the WebSocket's ``rematch`` message): one seat offers, the other accepts (an AI accepts
at once), and the factory starts a new game with the same settings and the seats swapped, linked
from both games.

The rematch's id and the offering seat's new token digest are fixed when the offer is made, so
that the other seat may accept through any instance (which never sees the offering seat's token).
"""

from __future__ import annotations

from kahuna.server.common.errors import Rejected
from kahuna.server.common.tokens import new_game_id
from kahuna.server.db.writer import Conflict
from kahuna.server.games.client import Reply
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.factory import GameFactory, Player, Terms
from kahuna.server.games.live import HUMAN, LiveGame
from kahuna.server.games.seats import rematch_digest, send_rematch


async def rematch(engine: GameEngine, factory: GameFactory, game: LiveGame, reply: Reply) -> None:
    """Offer a rematch, or accept the other seat's offer: a new game with the seats swapped."""
    client = reply.client
    seat = client.seat
    if seat is None:
        raise Rejected("forbidden", "spectators cannot offer a rematch")
    async with game.lock:
        if not game.state.is_over:
            raise Rejected("not_over", "a rematch can be offered once the game is over")
        if game.tournament:
            raise Rejected(
                "tournament", "a tournament's games have no rematch: its next pairing comes from the tournament"
            )
        if game.rematch is not None:  # agreed already: this seat's link again
            send_rematch(game, client)
            engine.answer(game, reply)
            return
        other = 1 - seat
        offer = game.rematch_offer
        new_id = new_game_id() if offer is None else offer[1]
        if game.ai_spec(other) is None and (offer is None or offer[0] == seat):
            engine.offer_rematch(game, seat, new_id, rematch_digest(client, new_id), reply)
            return
        digests: list[str | None] = [None, None]
        digests[1 - seat] = rematch_digest(client, new_id)  # old seat s plays seat 1 - s
        if offer is not None and offer[0] == other:
            digests[seat] = offer[2]
        await _start(engine, factory, game, new_id, digests)
        engine.rematch_agreed(game, new_id, reply)


async def _start(
    engine: GameEngine, factory: GameFactory, game: LiveGame, game_id: str, digests: list[str | None]
) -> None:
    """Start the rematch ``game_id``: old seat ``s`` plays seat ``1 - s``, whose seat-token digest
    is ``digests[1 - s]``; the lock of ``game`` is held."""
    players = tuple(Player(game.names[1 - s], game.kinds[1 - s], digests[s]) for s in (0, 1))
    if any(player.kind == HUMAN and player.token is None for player in players):
        raise Rejected("forbidden", "both players must be present with their seat links")
    terms = Terms(
        (players[0], players[1]),
        game.state.variant,
        None if game.clock is None else game.clock.control,
        game_id=game_id,
        rematch_of=game.game_id,
        owner=game.owner,
    )
    try:
        await factory.start(terms)
    except Conflict:  # the players agreed on another instance at the same moment
        await engine.refresh(game)
        raise Rejected("stale_version", "the rematch was agreed meanwhile") from None
