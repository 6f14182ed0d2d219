"""A connection joining a game (the WebSocket's ``hello``: catch it up, then send it every change)
and leaving it; who is online is sent to everyone, and with several instances announced to them.
A clock waiting for its players starts when the second one says ``hello``.

The connections are the game's room's (``games/room.py``): this module is their one writer, on the
transport's side; it changes nothing of the game itself (a clock that starts is the engine's)."""

from __future__ import annotations

from kahuna.server.games import messages, outgoing
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.live import Client, LiveGame
from kahuna.server.games.seats import send_rematch


async def hello(engine: GameEngine, game: LiveGame, client: Client, version: int | None) -> None:
    """Answer a ``hello``: catch the client up, then register it for live updates."""
    async with game.lock:
        await engine.time_out_now(game)
        for text in await outgoing.catch_up(game, client.seat, version, client.protocol):
            client.send_text(text)
        clock = game.clock_json()
        if clock is not None:  # caught-up updates carry the clock of their time
            client.send(messages.clock(clock))
        if game.rematch is not None:
            send_rematch(game, client)
        elif game.rematch_offer is not None:
            client.send(messages.rematch_offered(game.rematch_offer[0]))
        if game.takeback_offer is not None:  # a request still standing, to a client coming back
            client.send(messages.takeback_offered(*game.takeback_offer))
        client.answered_at = client.queued
        newly_online = client.seat is not None and not game.online()[client.seat]
        game.room.join(client)
        engine.replication.presence(game)
    if newly_online:
        outgoing.presence(game)
        if all(game.online()):
            await engine.players_here(game)  # both are here: a clock that waited for them starts
    else:
        client.send(outgoing.presence_message(game))


def leave(engine: GameEngine, game: LiveGame, client: Client) -> None:
    if not game.room.leave(client):
        return
    engine.replication.presence(game)
    if client.seat is not None and not game.online()[client.seat]:
        outgoing.presence(game)
