"""The WebSocket endpoint of docs/protocol.md: one connection per game and client.

Every frame is validated before it reaches the game; anything wrong is answered with an ``error``
message and the connection stays open. Outgoing messages go through the client's queue, drained
by a sender task, so a slow client never holds up a game.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Annotated, Literal

from fastapi import WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StringConstraints, TypeAdapter, ValidationError

from kahuna.rules import NotationError, parse
from kahuna.server import logs, messages
from kahuna.server.live import Client, LiveGame
from kahuna.server.service import GameService, Rejected

MsgId = Annotated[str, StringConstraints(max_length=64)]


class Hello(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["hello"]
    version: StrictInt | None = None


class ActionMessage(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["action"]
    action: Annotated[str, StringConstraints(max_length=16)]
    version: StrictInt
    id: MsgId | None = None


class Ping(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["ping"]


Incoming = TypeAdapter[Hello | ActionMessage | Ping](
    Annotated[Hello | ActionMessage | Ping, Field(discriminator="type")]
)
"""What a client may send."""

CLOSE_FORBIDDEN, CLOSE_NOT_FOUND, CLOSE_TOO_SLOW = 4403, 4404, 1013


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"])
    return f"{where}: {first['msg']}" if where else str(first["msg"])


def _message_id(data: object) -> str | None:
    """The client's ``id``, echoed in an error even when the rest of the message is bad."""
    if isinstance(data, dict):
        msg_id = data.get("id")
        if isinstance(msg_id, str) and len(msg_id) <= 64:
            return msg_id
    return None


async def _send_loop(websocket: WebSocket, client: Client) -> None:
    """Send what is queued; a client that fell too far behind is closed (it can reconnect)."""
    while True:
        text = await client.outbox.get()
        if text is None:
            break
        await websocket.send_text(text)
    with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
        await websocket.close(CLOSE_TOO_SLOW)


async def play(websocket: WebSocket, service: GameService, game_id: str, max_frame: int) -> None:
    """Serve one connection until the client leaves."""
    await websocket.accept()
    game = await service.get(game_id)
    if game is None:
        await websocket.send_text(messages.encode(messages.error("not_found", "no such game")))
        await websocket.close(CLOSE_NOT_FOUND)
        return
    token = websocket.query_params.get("token") or None
    seat = None if token is None else game.seat_of_token(token)
    if token is not None and seat is None:
        await websocket.send_text(messages.encode(messages.error("forbidden", "this token is not a seat of this game")))
        await websocket.close(CLOSE_FORBIDDEN)
        return
    client = Client(seat)
    sender = asyncio.create_task(_send_loop(websocket, client))
    logs.event("ws_open", game_id=game.game_id, seat=seat)
    try:
        while True:
            frame = await websocket.receive()
            if frame["type"] == "websocket.disconnect":
                break
            try:
                await _handle(service, game, client, frame.get("text"), max_frame)
            except Exception as exc:  # a bug must cost one message, not the connection
                logs.event("ws_error", game_id=game.game_id, error=type(exc).__name__)
                client.send(messages.error("server_error", "the server failed on this message; nothing changed"))
    except WebSocketDisconnect:
        pass
    finally:
        service.leave(game, client)
        client.stop()
        sender.cancel()
        logs.event("ws_close", game_id=game.game_id, seat=seat)


async def _handle(service: GameService, game: LiveGame, client: Client, text: str | None, max_frame: int) -> None:
    if text is None:
        client.send(messages.error("malformed", "send JSON in text frames"))
        return
    if len(text) > max_frame or len(text.encode("utf-8", "surrogatepass")) > max_frame:
        client.send(messages.error("malformed", f"message over {max_frame} bytes"))
        return
    try:
        data = json.loads(text)
    except ValueError:
        client.send(messages.error("malformed", "not JSON"))
        return
    try:
        message = Incoming.validate_python(data)
    except ValidationError as exc:
        client.send(messages.error("malformed", _describe(exc), _message_id(data)))
        return
    if isinstance(message, Ping):
        client.send(messages.PONG)
    elif isinstance(message, Hello):
        await service.hello(game, client, message.version)
    elif client not in game.clients:
        client.send(messages.error("malformed", "send hello first", message.id))
    else:
        await _act(service, game, client, message)


async def _act(service: GameService, game: LiveGame, client: Client, message: ActionMessage) -> None:
    try:
        action = parse(message.action)
    except NotationError as exc:
        client.send(messages.error("malformed", str(exc), message.id))
        return
    try:
        await service.act(game, client.seat, action, message.version, actor=client, msg_id=message.id)
    except Rejected as exc:
        logs.event("rejected", game_id=game.game_id, seat=client.seat, code=exc.code)
        client.send(messages.error(exc.code, exc.message, message.id))
