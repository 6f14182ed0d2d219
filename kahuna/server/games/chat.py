"""A chat line (the WebSocket's ``chat`` message): seats talk in the players' room, spectators in
theirs; every line is stored before it is sent, and numbered, so that instances agree on the order."""

from __future__ import annotations

from kahuna.server.common.errors import Rejected
from kahuna.server.common.names import clean_chat
from kahuna.server.db import store
from kahuna.server.db.writer import Conflict
from kahuna.server.games import messages
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.live import Client, LiveGame


async def chat(engine: GameEngine, game: LiveGame, client: Client, text: str, lines_per_game: int) -> None:
    """Store and send a chat line from ``client`` (``chat_full`` after ``lines_per_game`` lines)."""
    try:
        clean = clean_chat(text)
    except ValueError as exc:
        raise Rejected("invalid", str(exc)) from None
    async with game.lock:
        if len(game.chat) >= lines_per_game:
            raise Rejected("chat_full", f"this game's chat is full ({lines_per_game} lines)")
        line = {"room": messages.chat_room(client.seat), "seat": client.seat, "text": clean, "at": store.now()}
        seq = len(game.chat)
        try:
            await engine.writer.write(lambda conn: store.insert_chat(conn, game.game_id, seq, line))
        except Conflict:  # another instance stored a line with this number: catch up, send again
            await engine.refresh(game)
            raise Rejected("stale_version", "another chat line came first; send yours again") from None
        engine.replication.chat_stored(game, seq, line)
        game.chat.append(line)
        game.send_chat(line)
