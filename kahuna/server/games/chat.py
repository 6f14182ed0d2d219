"""A chat line (the WebSocket's ``chat`` message): seats talk in the players' room, spectators in
theirs; every line is stored before it is sent, and numbered, so that instances agree on the order
(the number is the line's ``line_id``: a report names a line by it, ``moderation/reports.py``).

Each room keeps its own number of lines (:class:`RoomSizes`): a full spectators' room refuses the
spectators and never the players. An archived game's chat is closed (``db/archive.py``: an
archived game is never written again). How often one sender may write is the WebSocket's budget
(``http/game_socket.py``), per sender and game rather than per connection."""

from __future__ import annotations

from dataclasses import dataclass

from kahuna.server.common.errors import Rejected
from kahuna.server.common.names import clean_chat
from kahuna.server.db import store
from kahuna.server.games import messages
from kahuna.server.games.client import Reply
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.live import LiveGame


@dataclass(frozen=True)
class RoomSizes:
    """How many lines each room of a game keeps (``Limits.chat_lines_per_game``,
    ``Limits.spectator_chat_lines_per_game``)."""

    players: int = 500
    spectators: int = 200

    def of(self, room: str) -> int:
        return self.players if room == messages.PLAYERS_ROOM else self.spectators


async def chat(
    engine: GameEngine, game: LiveGame, reply: Reply, text: str, sizes: RoomSizes, shadow: int | None = None
) -> None:
    """Store and send a chat line from ``reply``'s connection (``chat_full`` once its room holds its lines).
    ``shadow``: the sender's ``shadow_mute`` (its id): the line is stored with it and shown to its
    author only (``moderation/chat_sanctions.py``); the sender is answered as for any line."""
    try:
        clean = clean_chat(text)
    except ValueError as exc:
        raise Rejected("invalid", str(exc)) from None
    client = reply.client
    room = messages.chat_room(client.seat)
    async with game.lock:
        if game.archived:
            raise Rejected("archived", "this game is archived: its chat is closed")
        if sum(1 for line in game.chat if line["room"] == room) >= sizes.of(room):
            whose = "players'" if room == messages.PLAYERS_ROOM else "spectators'"
            raise Rejected("chat_full", f"the {whose} chat of this game is full ({sizes.of(room)} lines)", room=room)
        line = {"line_id": len(game.chat), "room": room, "seat": client.seat, "text": clean, "at": store.now()}
        await engine.chat(game, line, shadow, reply)
