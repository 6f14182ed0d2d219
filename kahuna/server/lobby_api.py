"""The lobby's HTTP endpoints and its WebSocket ``/ws/lobby`` (docs/community.md).

``/ws/lobby`` sends the open seeks at once, then every change (``seek_added``, ``seek_removed``),
and the list afresh at the next ping after the broker may have lost events (``lagged``);
a signed-in connection also gets its account's challenges. A client that owns an offer says so
(``{"type": "own", "seek_id", "token"}``): its pings keep the offer alive, the offer is cancelled
when the connection closes, and when it is accepted the connection sends ``accepted`` with the
owner's seat links (the token comes from the client; the broker never carries it).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Header, Path, Query, Request, Response, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StringConstraints, ValidationError

from kahuna.server import logs
from kahuna.server.accounts import Account
from kahuna.server.api import Name, client_ip
from kahuna.server.auth import is_https, optional_account, websocket_account
from kahuna.server.broker import LOBBY, user_channel
from kahuna.server.lobby import MAX_OPEN_PER_CLIENT, SEEK_TTL, Lobby, Offer, seek_channel
from kahuna.server.ratelimit import Bucket
from kahuna.server.service import Rejected, seat_links

SeekId = Annotated[str, Path(min_length=1, max_length=32)]
SeekToken = Annotated[str | None, Header(alias="X-Seek-Token", max_length=64)]
"""The owner's secret of an offer (its seat token to come), in a header: never in a URL."""
Variants = list[Literal["no_build_at_enemy_stone", "replace_on_remove"]]
ClockJson = dict[str, StrictInt] | None
MaybeAccount = Annotated[Account | None, Depends(optional_account)]
"""The signed-in account, or ``None`` for a guest."""
BROWSER_COOKIE = "browser"
"""A random id a browser gets with its first offer (HttpOnly, for the API's requests only): so that a
guest cannot accept its own offer, while two browsers behind one address can play each other."""
BROWSER_SECONDS = 365 * 24 * 3600

LOBBY_FRAME = 512
"""Bytes a lobby message may have (``own`` is the longest)."""
LOBBY_IDLE = 60.0
"""Seconds of silence after which a lobby connection is closed (clients ping every 10 s)."""
MAX_BACKLOG = 1000
"""Messages queued for a lobby connection that does not read them before it is closed."""
CLOSE_TOO_SLOW = 1013


class NewSeek(BaseModel):
    model_config = ConfigDict(extra="forbid")

    clock: ClockJson = Field(default=None, max_length=2, examples=[{"initial": 300, "increment": 3}, {"days": 2}])
    variant: Variants = Field(default_factory=list, max_length=2)
    rated: bool = False
    name: Name = Field(default="Player", description="a guest's name (an account plays under its username)")


class PublicSeek(BaseModel):
    seek_id: str
    kind: str
    status: str
    username: str
    account: bool = Field(description="whether an account made it (else a guest)")
    rating: int | None
    clock: dict[str, int] | None
    variant: list[str]
    rated: bool


class SeekPage(BaseModel):
    seeks: list[PublicSeek]
    page: int
    pages: int = Field(description="pages in all (at least 1)")
    total: int = Field(description="seeks listed in all")


class AcceptSeek(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name = "Player"


def offer_of(kind: str, body: NewSeek) -> Offer:
    return Offer(kind, body.clock, tuple(body.variant), body.rated, body.name)


def router(lobby: Lobby) -> APIRouter:
    api = APIRouter(prefix="/api")

    @api.post("/seeks", status_code=201)
    async def create_seek(body: NewSeek, request: Request, response: Response, account: MaybeAccount) -> dict[str, Any]:
        """Open a seek in the lobby: ``{"seek_id", "token"}``; keep the token, it is your seat.

        Guests may seek unrated games; rated ones need an account and a clock."""
        browser = _browser(request, response)
        return await lobby.create(offer_of("seek", body), account, client_ip(request), browser=browser)

    @api.get("/seeks", response_model=SeekPage)
    async def list_seeks(page: Annotated[int, Query(ge=1, le=1000)] = 1) -> dict[str, Any]:
        """One page of the open seeks, fairly ordered: at most two per address, every address's
        first before anyone's second, the newest first within each round (docs/community.md)."""
        return await lobby.open_seeks(page)

    @api.get("/seeks/{seek_id}")
    async def seek_status(seek_id: SeekId, token: SeekToken = None) -> dict[str, Any]:
        """An offer; with its ``X-Seek-Token`` it is kept alive, and once accepted its owner's seat."""
        return await lobby.status(seek_id, token)

    @api.post("/seeks/{seek_id}/accept")
    async def accept_seek(
        seek_id: SeekId, request: Request, account: MaybeAccount, body: AcceptSeek | None = None
    ) -> dict[str, Any]:
        """Take the other seat (drawn at random): ``{"game_id", "seat", "token", "seat_url"}``; 409
        once taken, and ``own_seek`` for one's own offer (a guest's: from the browser that made it)."""
        name = "Player" if body is None else body.name
        return await lobby.accept(seek_id, account, name, request.cookies.get(BROWSER_COOKIE))

    @api.delete("/seeks/{seek_id}", status_code=204)
    async def cancel_seek(seek_id: SeekId, account: MaybeAccount, token: SeekToken = None) -> None:
        """Withdraw an offer (its token, or the account that made it)."""
        await lobby.cancel(seek_id, token, account)

    @api.post("/pairing", status_code=201)
    async def play_now(body: NewSeek, request: Request, response: Response, account: MaybeAccount) -> dict[str, Any]:
        """Quick pairing: ``{"seek_id", "token"}`` plus the seat links if an opponent was waiting;
        else wait (``/ws/lobby`` or polling ``GET /api/seeks/<id>``) for the matcher."""
        browser = _browser(request, response)
        return await lobby.create(offer_of("pool", body), account, client_ip(request), browser=browser)

    return api


def _browser(request: Request, response: Response) -> str:
    """The request's ``browser`` cookie, set first if it has none (a new random id)."""
    browser = request.cookies.get(BROWSER_COOKIE, "")
    if not 20 <= len(browser) <= 64:
        browser = secrets.token_urlsafe(24)
        response.set_cookie(
            BROWSER_COOKIE,
            browser,
            max_age=BROWSER_SECONDS,
            path="/api/",
            secure=is_https(request),
            httponly=True,
            samesite="lax",
        )
    return browser


async def lobby_socket(websocket: WebSocket, lobby: Lobby) -> None:
    """Serve one ``/ws/lobby`` connection until it closes or falls silent."""
    await websocket.accept()
    try:
        account = await websocket_account(websocket)
    except Rejected as exc:
        await _close(websocket, {"type": "error", "code": exc.code, "message": exc.message}, 4401)
        return
    channels = [LOBBY] if account is None else [LOBBY, user_channel(account.id)]
    subscription = lobby.broker.subscribe(*channels)
    owned: dict[str, str] = {}
    """Offers this connection owns: id → the owner's token (memory only, never logged)."""
    extra: list[Any] = []
    outbox: asyncio.Queue[str | None] = asyncio.Queue()
    behind = False

    def send(message: dict[str, Any]) -> None:
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
        async for channel, text in messages:
            event = json.loads(text)
            seek_id = event.get("seek_id")
            if channel.startswith("seek:") and event.get("type") == "accepted" and seek_id in owned:
                send({**event, **seat_links(event["game_id"], event["seat"], owned.pop(seek_id))})
            elif channel.startswith("seek:"):
                owned.pop(seek_id, None)
                send(event)
            else:
                send(event)

    async def sender() -> None:
        while (text := await outbox.get()) is not None:
            await websocket.send_text(text)
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await websocket.close(CLOSE_TOO_SLOW)

    tasks = [asyncio.create_task(forward(subscription)), asyncio.create_task(sender())]
    send({"type": "seeks", **await lobby.open_seeks()})
    if account is not None:
        send({"type": "challenges", "username": account.username, "challenges": await lobby.challenges(account)})
    bucket = Bucket(5.0, 20)
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
                send({"type": "error", "code": "malformed", "message": "too many or too large messages"})
                continue
            try:
                message = _Incoming.model_validate_json(text)
            except ValidationError:
                send({"type": "error", "code": "malformed", "message": 'send {"type": "ping"} or "own"'})
                continue
            if message.type == "ping":
                if owned:
                    await lobby.keep_alive(owned)
                if any(sub.lagged for sub in (subscription, *extra)):
                    await _resync(lobby, send, owned, [subscription, *extra])
                send({"type": "pong"})
            elif message.seek_id is None or message.token is None:
                send({"type": "error", "code": "malformed", "message": "own needs seek_id and token"})
            elif len(owned) >= MAX_OPEN_PER_CLIENT:
                send({"type": "error", "code": "too_many_seeks", "message": "this connection owns enough offers"})
            else:
                try:
                    await lobby.owns(message.seek_id, message.token)
                except Rejected as exc:
                    send({"type": "error", "code": exc.code, "message": exc.message})
                    continue
                owned[message.seek_id] = message.token
                mine = lobby.broker.subscribe(seek_channel(message.seek_id))
                extra.append(mine)
                tasks.append(asyncio.create_task(forward(mine)))
                status = await lobby.status(message.seek_id, message.token)  # kept alive; accepted meanwhile?
                if "token" in status:
                    owned.pop(message.seek_id, None)
                    send({"type": "accepted", **status})
                elif status["status"] != "open":  # cancelled or expired while the owner was away
                    owned.pop(message.seek_id, None)
                    send({"type": "seek_removed", "seek_id": message.seek_id, "reason": status["status"]})
                else:
                    send({"type": "owned", "seek_id": message.seek_id, "alive_seconds": SEEK_TTL})
    except (WebSocketDisconnect, RuntimeError):
        pass
    finally:
        for task in tasks:
            task.cancel()
        await subscription.close()
        for each in extra:
            await each.close()
        for seek_id, token in list(owned.items()):  # the owner left: its offers go with it
            with contextlib.suppress(Rejected):
                await lobby.cancel(seek_id, token)
        with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
            await websocket.close()
        logs.event("lobby_close", owned=len(owned))


async def _resync(lobby: Lobby, send: Any, owned: dict[str, str], subscriptions: list[Any]) -> None:
    """Events may have been lost (the broker was away): the list afresh, and the seats of owned
    offers accepted meanwhile, from the database, which is the truth."""
    for sub in subscriptions:
        sub.lagged = False
    send({"type": "seeks", **await lobby.open_seeks()})
    for seek_id, token in list(owned.items()):
        status = await lobby.status(seek_id, token)
        if "token" in status:
            owned.pop(seek_id, None)
            send({"type": "accepted", **status})


class _Incoming(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["ping", "own"]
    seek_id: Annotated[str, StringConstraints(min_length=1, max_length=32)] | None = None
    token: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None


async def _close(websocket: WebSocket, message: dict[str, Any], code: int) -> None:
    with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
        await websocket.send_text(json.dumps(message))
        await websocket.close(code)
