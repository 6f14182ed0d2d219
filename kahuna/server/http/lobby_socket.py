"""The lobby's WebSocket ``/ws/lobby`` (docs/community.md).

It sends the open seeks at once, then every change (``seek_added``, ``seek_removed``), and the list
afresh at the next ping after the broker may have lost events (``lagged``); a signed-in connection
also gets its account's challenges. A client that owns an offer says so
(``{"type": "own", "seek_id", "token"}``): its pings keep the offer alive, the offer is cancelled
when the connection closes, and when it is accepted the connection sends ``accepted`` with the
owner's seat links (the token comes from the client; the broker never carries it). A tournament's
page watches its event (``{"type": "watch", "tournament_id"}``, one event a connection): the
connection then forwards the event's chat lines (``tournament_chat``, ``community/event_chat.py``).

An instance going away (``draining.Drain``) closes its lobby sockets with 1001 and leaves their
offers open: the owner reconnects to another instance and owns them again there (the browser does,
2 s later); an owner that does not lets them expire after :data:`SEEK_TTL` without pings.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, StringConstraints, ValidationError

from kahuna.server.cluster.broker import LOBBY, user_channel
from kahuna.server.cluster.presence import Presence
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.common.protocol import (
    PONG,
    Challenges,
    LobbyError,
    LobbyMessage,
    Owned,
    SeekRemoved,
    Seeks,
    accepted,
)
from kahuna.server.common.ratelimit import Bucket
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.community.event_chat import event_channel
from kahuna.server.community.lobby import MAX_OPEN_PER_CLIENT, SEEK_TTL, Lobby, seek_channel
from kahuna.server.games.seats import seat_links
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.draining import CLOSE_GOING_AWAY, Drain

LOBBY_FRAME = 512
"""Bytes a lobby message may have (``own`` is the longest)."""
LOBBY_IDLE = 60.0
"""Seconds of silence after which a lobby connection is closed (clients ping every 10 s)."""
MAX_BACKLOG = 1000
"""Messages queued for a lobby connection that does not read them before it is closed."""
CLOSE_TOO_SLOW = 1013
CLOSE_FORBIDDEN = 4403
"""The account was closed by a moderator (``account_closed`` on its ``user:`` channel)."""


def router(lobby: Lobby, presence: Presence, auth: Authenticator, drain: Drain) -> APIRouter:
    """``presence``: a signed-in lobby connection counts its account as online while it is open;
    ``drain``: the open sockets, closed with 1001 when the instance goes away."""
    sockets = APIRouter()

    @sockets.websocket("/ws/lobby")
    async def lobby_ws(websocket: WebSocket) -> None:
        await lobby_socket(websocket, lobby, presence, auth, drain)

    return sockets


async def lobby_socket(
    websocket: WebSocket, lobby: Lobby, presence: Presence, auth: Authenticator, drain: Drain
) -> None:
    """Serve one ``/ws/lobby`` connection until it closes, falls silent or the instance goes away."""
    await websocket.accept()
    try:
        account = await auth.of_websocket(websocket)
    except Rejected as exc:
        await _close(websocket, LobbyError(type="error", code=exc.code, message=exc.message), 4401)
        return
    channels = [LOBBY] if account is None else [LOBBY, user_channel(account.id)]
    subscription = lobby.broker.subscribe(*channels)
    owned: dict[str, str] = {}
    """Offers this connection owns: id → the owner's token (memory only, never logged)."""
    extra: list[Any] = []
    watched: list[Any] = []
    """The watched event's subscription and its task (at most one of each)."""
    outbox: asyncio.Queue[str | None] = asyncio.Queue()
    behind = False
    going_away = False
    """Whether the instance is going away: the socket closes with 1001, its offers stay open."""
    closed_account = False
    """Whether a moderator closed the account: told, then closed with 4403."""

    def send(message: LobbyMessage) -> None:
        """Queue a message; a client :data:`MAX_BACKLOG` behind is closed (it reconnects and gets
        the list afresh) rather than missing events silently."""
        nonlocal behind
        if behind:
            return
        if outbox.qsize() >= MAX_BACKLOG:
            behind = True
            outbox.put_nowait(None)
        else:
            outbox.put_nowait(json.dumps(message, ensure_ascii=False))

    async def forward(messages: Any) -> None:
        nonlocal closed_account
        async for channel, text in messages:
            event = json.loads(text)
            seek_id = event.get("seek_id")
            if channel.startswith("seek:") and event.get("type") == "accepted" and seek_id in owned:
                send(accepted({**event, **seat_links(event["game_id"], event["seat"], owned.pop(seek_id))}))
            elif channel.startswith("seek:"):
                owned.pop(seek_id, None)
                send(event)
            elif channel.startswith("user:") and event.get("type") == "account_closed":
                closed_account = True
                send(event)
                outbox.put_nowait(None)
            else:
                send(event)

    def go_away() -> None:
        nonlocal going_away
        if not going_away:
            going_away = True
            outbox.put_nowait(None)

    async def sender() -> None:
        while (text := await outbox.get()) is not None:
            await websocket.send_text(text)
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await websocket.close(
                CLOSE_GOING_AWAY if going_away else CLOSE_FORBIDDEN if closed_account else CLOSE_TOO_SLOW
            )

    tasks = [asyncio.create_task(forward(subscription)), asyncio.create_task(sender())]
    send(Seeks(type="seeks", **await lobby.open_seeks()))
    if account is not None:
        send(Challenges(type="challenges", username=account.username, challenges=await lobby.challenges(account)))
    bucket = Bucket(5.0, 20)
    entry = None if account is None else presence.enter(account.id)
    drain.register(websocket, go_away)
    try:
        while True:
            try:
                frame = await asyncio.wait_for(websocket.receive(), LOBBY_IDLE)
            except TimeoutError:
                break
            if frame["type"] == "websocket.disconnect":
                break
            text = frame.get("text")
            if bucket.take() or text is None or len(text) > LOBBY_FRAME:
                send(LobbyError(type="error", code="malformed", message="too many or too large messages"))
                continue
            try:
                message = _Incoming.model_validate_json(text)
            except ValidationError:
                send(LobbyError(type="error", code="malformed", message='send {"type": "ping"} or "own"'))
                continue
            if message.type == "ping":
                if owned:
                    await lobby.keep_alive(owned)
                if any(sub.lagged for sub in (subscription, *extra)):
                    await _resync(lobby, send, owned, [subscription, *extra])
                send(PONG)
            elif message.type == "watch":
                if message.tournament_id is None:
                    send(LobbyError(type="error", code="malformed", message="watch needs tournament_id"))
                    continue
                await _unwatch(watched)
                watching = lobby.broker.subscribe(event_channel(message.tournament_id))
                watched.extend([watching, asyncio.create_task(forward(watching))])
            elif message.seek_id is None or message.token is None:
                send(LobbyError(type="error", code="malformed", message="own needs seek_id and token"))
            elif len(owned) >= MAX_OPEN_PER_CLIENT:
                send(LobbyError(type="error", code="too_many_seeks", message="this connection owns enough offers"))
            else:
                try:
                    await lobby.owns(message.seek_id, message.token)
                except Rejected as exc:
                    send(LobbyError(type="error", code=exc.code, message=exc.message))
                    continue
                owned[message.seek_id] = message.token
                mine = lobby.broker.subscribe(seek_channel(message.seek_id))
                extra.append(mine)
                tasks.append(asyncio.create_task(forward(mine)))
                status = await lobby.status(message.seek_id, message.token)  # kept alive; accepted meanwhile?
                if "token" in status:
                    owned.pop(message.seek_id, None)
                    send(accepted(status))
                elif status["status"] != "open":  # cancelled or expired while the owner was away
                    owned.pop(message.seek_id, None)
                    send(SeekRemoved(type="seek_removed", seek_id=message.seek_id, reason=status["status"]))
                else:
                    send(Owned(type="owned", seek_id=message.seek_id, alive_seconds=SEEK_TTL))
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        if entry is not None:
            presence.leave(entry)
        for task in tasks:
            await cancel_and_wait(task)
        await _unwatch(watched)
        await subscription.close()
        for each in extra:
            await each.close()
        # The owner left: its offers go with it; unless the instance is going away, and the owner
        # owns them again from another instance.
        for seek_id, token in () if going_away else list(owned.items()):
            with contextlib.suppress(Rejected):
                await lobby.cancel(seek_id, token)
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await websocket.close()
        drain.unregister(websocket)
        logs.event("lobby_close", owned=len(owned), going_away=going_away)


async def _resync(lobby: Lobby, send: Any, owned: dict[str, str], subscriptions: list[Any]) -> None:
    """Events may have been lost (the broker was away): the list afresh, and the seats of owned
    offers accepted meanwhile, from the database, which is the truth."""
    for sub in subscriptions:
        sub.lagged = False
    send(Seeks(type="seeks", **await lobby.open_seeks()))
    for seek_id, token in list(owned.items()):
        status = await lobby.status(seek_id, token)
        if "token" in status:
            owned.pop(seek_id, None)
            send(accepted(status))


class _Incoming(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["ping", "own", "watch"]
    seek_id: Annotated[str, StringConstraints(min_length=1, max_length=32)] | None = None
    token: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    tournament_id: Annotated[str, StringConstraints(min_length=1, max_length=32)] | None = None


async def _unwatch(watched: list[Any]) -> None:
    """Stop forwarding the watched event's lines (if any)."""
    if watched:
        subscription, task = watched
        await cancel_and_wait(task)
        await subscription.close()
        watched.clear()


async def _close(websocket: WebSocket, message: LobbyError, code: int) -> None:
    with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
        await websocket.send_text(json.dumps(message))
        await websocket.close(code)
