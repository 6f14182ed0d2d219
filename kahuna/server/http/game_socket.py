"""The WebSocket endpoint of docs/protocol.md: one connection per game and client.

Every frame is validated before it reaches the game; anything wrong is answered with an ``error``
message and the connection stays open. Outgoing messages go through the client's queue, drained
by a sender task, so a slow client never holds up a game.

The seat token comes in the first ``hello`` (``{"type": "hello", "version": V, "token": T}``), so
that it never appears in a URL that a proxy might log (a ``?token=`` query is not read). A connection may send at most
``messages_burst`` messages at once and ``messages_per_second`` on average, must say ``hello``
within ``hello_timeout`` and is closed after ``ws_idle_timeout`` of silence; a ``hello`` that
arrives while the previous one is still being answered is refused.

Chat lines draw on a budget per sender and game (:func:`chat_sender`), shared by the sender's
connections and, with ``--broker``, by every instance: a spectator that reconnects starts where it
left off, not with a fresh budget.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
from typing import Annotated, Any, Literal

import orjson
from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StringConstraints, TypeAdapter, ValidationError

from kahuna.rules import NotationError, parse
from kahuna.server.accounts import store as account_rows
from kahuna.server.accounts.store import Account
from kahuna.server.cluster.presence import Entry, Presence
from kahuna.server.common import logs
from kahuna.server.common.config import Limits
from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import Bucket, Limiter
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.community import relations
from kahuna.server.games import messages
from kahuna.server.games.client import Reply
from kahuna.server.games.live import Client, LiveGame
from kahuna.server.games.service import GameService
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.draining import CLOSE_GOING_AWAY, Drain
from kahuna.server.moderation.service import Moderation

MsgId = Annotated[str, StringConstraints(max_length=64)]


class Hello(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["hello"]
    version: StrictInt | None = None
    token: Annotated[str, StringConstraints(min_length=1, max_length=64)] | None = None
    seat: Literal[0, 1] | None = None
    """Instead of a token: a seat of the signed-in account (session cookie or Bearer on the handshake)."""
    protocol: Annotated[StrictInt, Field(ge=1)] | None = None
    """The highest protocol version the client speaks (none: 1); the connection keeps that of its first ``hello``."""


class ActionMessage(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["action"]
    action: Annotated[str, StringConstraints(max_length=16)]
    version: StrictInt
    id: MsgId | None = None


class Ping(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["ping"]


class GameRequest(BaseModel):
    """Resign, abort, offer (accept) a rematch, ask for (accept, decline) a take-back: the seat's
    own decisions about the game."""

    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["resign", "abort", "rematch", "takeback", "takeback_decline", "claim_victory", "claim_draw"]
    id: MsgId | None = None


class ChatMessage(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["chat"]
    text: Annotated[str, StringConstraints(max_length=1200)]
    id: MsgId | None = None


class Foresee(BaseModel):
    """Ask what the referee foresees at ``version`` (``games/foresight.py``)."""

    model_config = ConfigDict(extra="ignore", strict=True)
    type: Literal["foresee"]
    version: StrictInt
    id: MsgId | None = None


Message = Hello | ActionMessage | Ping | GameRequest | ChatMessage | Foresee
Incoming = TypeAdapter[Message](Annotated[Message, Field(discriminator="type")])
"""What a client may send."""

CLOSE_FORBIDDEN, CLOSE_NOT_FOUND, CLOSE_TOO_SLOW = 4403, 4404, 1013
CLOSE_IDLE, CLOSE_DAMAGED = 4408, 4410


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


async def _send_loop(conn: Connection) -> None:
    """Send what is queued; once told to stop, close the socket with the connection's close code (a
    client that fell too far behind, or a server going away: it can reconnect). A socket gone
    meanwhile ends the loop quietly: the receiving side sees it too and ends the connection."""
    websocket, client = conn.websocket, conn.client
    with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
        while True:
            text = await client.outbox.get()
            if text is None:
                break
            await websocket.send_text(text)
            client.sent += 1
        await websocket.close(conn.close_code)


class Connection:
    """The state of one WebSocket: its game, its client (seat, outbox), its message budget and the
    chat budget its lines draw on (per sender, not per connection)."""

    def __init__(
        self,
        websocket: WebSocket,
        service: GameService,
        game: LiveGame,
        limits: Limits,
        chat_budget: Limiter,
        presence: Presence,
        auth: Authenticator,
        moderation: Moderation,
    ) -> None:
        self.websocket = websocket
        self.moderation = moderation
        self.presence = presence
        self.auth = auth
        self.entry: Entry | None = None
        """This connection in the instance's presence, from its first ``hello`` on."""
        self.chat_budget = chat_budget
        self.service = service
        self.game = game
        self.client = Client(None)
        self.bucket = Bucket(limits.messages_per_second, limits.messages_burst)
        self.greeted = False
        """Whether a ``hello`` was answered (the seat is fixed from then on)."""
        self.account: Account | None = None
        """The account of the handshake (session cookie or Bearer), if any: it may claim its seats."""
        self.close_code = CLOSE_TOO_SLOW
        """The code the sender closes the socket with once the client is stopped."""
        self.handling = False
        """Whether a frame is being answered (an action may be waiting for its commit)."""
        self.leaving = False
        """Whether the server is going away: no further frame is answered, and the socket is closed
        with 1001 once the frame in hand (if any) is answered and its answer sent."""

    def go_away(self) -> None:
        """Close with :data:`CLOSE_GOING_AWAY` after the frame in hand and what is queued: the
        client reconnects elsewhere and is caught up from its version (``draining.Drain``)."""
        self.leaving = True
        self.close_code = CLOSE_GOING_AWAY
        if not self.handling:
            self.client.stop()


def chat_sender(conn: Connection) -> str:
    """Whose chat budget a line draws on: the seat's (whatever connection it comes from), else the
    spectator's account, else the spectator's address; in this game only."""
    game_id, seat = conn.game.game_id, conn.client.seat
    if seat is not None:
        return f"{game_id}:seat:{seat}"
    if conn.account is not None:
        return f"{game_id}:account:{conn.account.id}"
    address = conn.websocket.client.host if conn.websocket.client else ""
    return f"{game_id}:address:{address}"


def router(
    service: GameService,
    max_frame: int,
    limits: Limits,
    chat_budget: Limiter,
    presence: Presence,
    auth: Authenticator,
    drain: Drain,
    moderation: Moderation,
) -> APIRouter:
    """``chat_budget``: chat lines per sender and game (``chat_per_minute``, ``chat_burst``);
    ``presence``: who is online (each connection is counted from its first ``hello``);
    ``auth``: the account of the handshake, and the accounts seated in a game (``hello`` asks);
    ``drain``: the open sockets, closed with 1001 when the instance goes away; ``moderation``:
    whether a line's account is muted (asked for each line, so that a mute holds at once)."""
    sockets = APIRouter()

    @sockets.websocket("/ws/{game_id}")
    async def game_ws(websocket: WebSocket, game_id: str) -> None:
        await play(websocket, service, game_id, max_frame, limits, chat_budget, presence, auth, drain, moderation)

    return sockets


async def play(
    websocket: WebSocket,
    service: GameService,
    game_id: str,
    max_frame: int,
    limits: Limits,
    chat_budget: Limiter,
    presence: Presence,
    auth: Authenticator,
    drain: Drain,
    moderation: Moderation,
) -> None:
    """Serve one connection until the client leaves, falls silent, falls too far behind, or the
    instance goes away (``drain``)."""
    await websocket.accept()
    try:
        game = await service.get(game_id)
    except Rejected as exc:  # quarantined: its record is damaged
        await _refuse(websocket, exc.code, exc.message, CLOSE_DAMAGED)
        return
    if game is None:
        await _refuse(websocket, "not_found", "no such game", CLOSE_NOT_FOUND)
        return
    conn = Connection(websocket, service, game, limits, chat_budget, presence, auth, moderation)
    try:
        conn.account = await auth.of_websocket(websocket)
    except Rejected as exc:  # a wrong Bearer token: the program must learn of it
        await _refuse(websocket, exc.code, exc.message, CLOSE_FORBIDDEN)
        return
    game.room.pin()
    sender = asyncio.create_task(_send_loop(conn))
    drain.register(conn, conn.go_away)
    logs.event("ws_open", game_id=game.game_id)
    try:
        while True:
            timeout = limits.ws_idle_timeout if conn.greeted else limits.hello_timeout
            try:
                async with asyncio.timeout(timeout):  # reschedules one timer; wait_for made a task per frame
                    frame = await websocket.receive()
            except TimeoutError:
                logs.event("ws_timeout", game_id=game.game_id, greeted=conn.greeted)
                conn.client.send(messages.error("timeout", f"nothing received for {timeout:g} s"))
                conn.client.stop()
                await asyncio.wait_for(sender, 5)  # sends what is queued, then closes
                return
            if frame["type"] == "websocket.disconnect":
                break
            if conn.leaving:  # going away: the client sends it again where it reconnects
                continue
            conn.handling = True
            try:
                if not await _handle(conn, frame.get("text"), max_frame):
                    break
            except Exception as exc:  # a bug must cost one message, not the connection
                logs.event("ws_error", game_id=game.game_id, error=type(exc).__name__)
                conn.client.send(messages.error("server_error", "the server failed on this message; nothing changed"))
            finally:
                conn.handling = False
            if conn.leaving:  # asked to go while answering: the answer is queued, now close
                conn.client.stop()
    except (WebSocketDisconnect, TimeoutError, RuntimeError):
        pass
    finally:
        game.room.unpin()
        if conn.entry is not None:
            presence.leave(conn.entry)
        service.leave(game, conn.client)
        conn.client.stop()
        await cancel_and_wait(sender)
        drain.unregister(conn)
        logs.event("ws_close", game_id=game.game_id, seat=conn.client.seat)


async def _refuse(websocket: WebSocket, code: str, message: str, close_code: int) -> None:
    with contextlib.suppress(RuntimeError, WebSocketDisconnect, OSError):
        await websocket.send_text(messages.encode(messages.error(code, message)))
        await websocket.close(close_code)


async def _authenticate(conn: Connection, token: str) -> bool:
    """Bind the connection to the token's seat; a token of no seat of this game closes it (4403)."""
    seat = conn.game.seat_of_token(token)
    if seat is None:
        await _refuse(conn.websocket, "forbidden", "this token is not a seat of this game", CLOSE_FORBIDDEN)
        return False
    conn.client.seat = seat
    conn.client.token = token
    return True


async def _claim(conn: Connection, seat: int) -> bool:
    """Bind the connection to ``seat`` if it belongs to the handshake's account; else close it (4403)."""
    account = conn.account
    game_id = conn.game.game_id
    if account is None or seat not in await conn.auth.accounts.seats_in_game(account, game_id):
        await _refuse(conn.websocket, "forbidden", "this seat is not your account's", CLOSE_FORBIDDEN)
        return False
    conn.client.seat = seat
    conn.client.by_account = True
    return True


def _parse(text: str) -> Any:
    """The JSON value of a frame; ``ValueError`` for anything that is not plain, printable JSON.

    orjson parses a frame several times faster than the standard library and refuses lone
    surrogates itself; what it refuses is judged again by the standard library, so that exactly
    the frames accepted before are accepted."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        pass
    try:
        data = json.loads(text)
        # Lone surrogates ("\ud800") decode but cannot be sent back: refuse them like any bad frame.
        json.dumps(data, ensure_ascii=False).encode("utf-8")
    except (ValueError, RecursionError, UnicodeEncodeError):
        raise ValueError("not JSON") from None
    return data


async def _handle(conn: Connection, text: str | None, max_frame: int) -> bool:
    """Answer one frame; ``False`` when the connection must end (a bad token in ``hello``)."""
    client = conn.client
    wait = conn.bucket.take()
    if wait:
        client.send(messages.error("rate_limited", "too many messages", retry_after=round(wait, 3)))
        return True
    if text is None:
        client.send(messages.error("malformed", "send JSON in text frames"))
        return True
    if len(text) > max_frame or len(text.encode("utf-8", "surrogatepass")) > max_frame:
        client.send(messages.error("malformed", f"message over {max_frame} bytes"))
        return True
    try:
        data = _parse(text)
    except ValueError:
        client.send(messages.error("malformed", "not JSON"))
        return True
    try:
        message = Incoming.validate_python(data)
    except ValidationError as exc:
        client.send(messages.error("malformed", _describe(exc), _message_id(data)))
        return True
    if isinstance(message, Ping):
        client.send(messages.PONG)
    elif isinstance(message, Hello):
        return await _hello(conn, message)
    elif client not in conn.game.room.clients:
        client.send(messages.error("malformed", "send hello first", message.id))
    elif isinstance(message, ActionMessage):
        await _act(conn.service, conn.game, client, message)
    else:
        await _request(conn, message)
    return True


async def _request(conn: Connection, message: GameRequest | ChatMessage | Foresee) -> None:
    """Resign, abort, rematch, take-back or chat; the engine sends the ``ack`` (the change itself is
    broadcast), this answers a refusal. ``foresee`` is answered with its ``foreseen`` message instead."""
    service, game, client = conn.service, conn.game, conn.client
    reply = Reply(client, message.id)
    try:
        if isinstance(message, Foresee):
            client.send(service.foresee(game, client, message.version))
            return
        if isinstance(message, ChatMessage):
            wait = await conn.chat_budget.take(chat_sender(conn))
            if wait:
                raise Rejected("rate_limited", "too many chat lines", retry_after=round(wait, 3))
            if await _chat_blocked(conn):
                raise Rejected("blocked", "a player of this game blocks you: your lines are not sent")
            shadow = await _refuse_muted(conn)
            await service.chat(game, reply, message.text, shadow)
        elif message.type == "resign":
            await service.resign(game, client.seat, reply)
        elif message.type == "abort":
            await service.abort(game, client.seat, reply)
        elif message.type in ("claim_victory", "claim_draw"):
            await service.claim(game, client.seat, message.type == "claim_draw", reply)
        elif message.type == "takeback":
            await service.takeback(game, reply)
        elif message.type == "takeback_decline":
            await service.decline_takeback(game, reply)
        else:
            await service.rematch(game, reply)
    except Rejected as exc:
        logs.event("rejected", game_id=game.game_id, seat=client.seat, code=exc.code)
        client.send(messages.refusal(exc, message.id))


async def _hello(conn: Connection, message: Hello) -> bool:
    client = conn.client
    if client.busy():
        client.send(messages.error("rate_limited", "the previous hello is still being answered", retry_after=1))
        return True
    if message.token is not None:
        if not conn.greeted and client.seat is None:
            if not await _authenticate(conn, message.token):
                return False
        elif client.seat is None or conn.game.seat_of_token(message.token) != client.seat:
            client.send(messages.error("forbidden", "a connection keeps the seat of its first hello"))
            return True
    elif message.seat is not None:
        if not conn.greeted and client.seat is None:
            if not await _claim(conn, message.seat):
                return False
        elif client.seat != message.seat:
            client.send(messages.error("forbidden", "a connection keeps the seat of its first hello"))
            return True
    if not conn.greeted:
        client.protocol = max(v for v in messages.PROTOCOLS if v <= (message.protocol or 1))
    conn.greeted = True
    await conn.service.hello(conn.game, client, message.version)
    if conn.entry is None:
        await _present(conn)
    return True


async def _seat_account(conn: Connection) -> int | None:
    """The account of the connection's seat (``None``: a guest's seat), or of a signed-in spectator."""
    seat, game_id = conn.client.seat, conn.game.game_id
    if seat is None:
        return None if conn.account is None else conn.account.id
    if conn.client.by_account and conn.account is not None:
        return conn.account.id
    return await conn.auth.accounts.seated(game_id, seat)


async def _present(conn: Connection) -> None:
    """Count the connection as online (and, holding a seat, as playing while the game is played)."""
    game = conn.game

    def playing() -> bool:
        return game.status == messages.PLAYING

    account = await _seat_account(conn)
    conn.entry = conn.presence.enter(account, game.game_id, conn.client.seat, playing)


async def _chat_blocked(conn: Connection) -> bool:
    """Whether a player of the game blocks the account this line comes from (``relations``)."""
    sender = await _seat_account(conn)
    if sender is None:
        return False
    game_id = conn.game.game_id

    def read(db: Any) -> bool:
        players = account_rows.game_players(db, game_id).values()
        return relations.blocked_by_any(db, players, sender)

    return await conn.service.writer.read(read)


async def _refuse_muted(conn: Connection) -> int | None:
    """``Rejected`` (``muted``, with the seconds left) when a moderator muted the line's account;
    else its shadow mute's id, if any (the line is then shown to its author only)."""
    sender = await _seat_account(conn)
    if sender is None:
        return None
    left, shadow = await conn.moderation.chat_standing(sender)
    if left is not None:
        words = f"a moderator muted you in chat for {math.ceil(left / 60)} more minutes"
        raise Rejected("muted", words, seconds_left=math.ceil(left))
    return shadow


async def _act(service: GameService, game: LiveGame, client: Client, message: ActionMessage) -> None:
    try:
        action = parse(message.action)
    except NotationError as exc:
        client.send(messages.error("malformed", str(exc), message.id))
        return
    try:
        await service.act(game, client.seat, action, message.version, Reply(client, message.id))
    except Rejected as exc:
        logs.event("rejected", game_id=game.game_id, seat=client.seat, code=exc.code)
        client.send(messages.refusal(exc, message.id))
