"""Every message the server sends is the one docs/protocol.md documents (issue 47).

docs/protocol.md's *Every message, field by field* has a table per socket (a game's, the lobby's)
and one for the messages between instances: a row per message type, its fields and the fields it
has only sometimes. ``kahuna/server/common/protocol.py`` declares the same messages as types. The
tests check that the two agree, type by type and field by field, and that every message a real
server sends (an instance with a Redis broker, on SQLite) matches a documented row of its socket:
its type has a row, and its fields are all that row's fields and none other. The server plays a
timed hot-seat game through its whole life (chat, a hidden line, take-backs asked, declined and
accepted, refusals, a resignation, a rematch) to two seats and two spectators in the three protocols,
and the lobby's offers, challenges, an event's chat and its first round, and an account closed;
every frame each socket receives is checked, and every message published on the game's channel.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, get_args

import httpx
import pytest
import redis.asyncio as aioredis
import websockets
from scale_harness import redis_url
from server_harness import Server, eventually
from test_accounts import client, csrf, signed_in
from test_moderation import moderator
from test_moderation_reports import cookie

from kahuna.rules import parse
from kahuna.server.common import protocol

__all__ = ["redis_url"]

pytestmark = pytest.mark.redis

DOCS = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
SECTION = "## Every message, field by field"
CLOCK = {"initial": 300, "increment": 2}

Row = tuple[str, frozenset[str], frozenset[str]]
"""A documented (or declared) message: its type (or kind), its fields, the fields it has sometimes."""


def documented(text: str) -> dict[str, list[Row]]:
    """The rows of each table of docs/protocol.md's reference section, by socket."""
    body = text.split(f"\n{SECTION}\n", 1)[1].split("\n## ", 1)[0]
    tables: dict[str, list[Row]] = {}
    socket = ""
    for line in body.splitlines():
        if line.startswith("### "):
            socket = "game" if "/ws/<game_id>" in line else "lobby" if "/ws/lobby" in line else "replication"
        elif line.startswith("| `"):
            name, fields, sometimes = ([*re.findall(r"`([^`]+)`", cell)] for cell in line.split("|")[1:4])
            tables.setdefault(socket, []).append((name[0], frozenset(fields), frozenset(sometimes)))
    return tables


def declared(types: tuple[type, ...], key: str) -> list[Row]:
    """The rows the protocol module's types make: the ``Literal`` of ``key`` and the other keys."""
    rows = []
    for kind in types:
        (name,) = get_args(kind.__annotations__[key])
        required: frozenset[str] = getattr(kind, "__required_keys__")  # noqa: B009 (TypedDict's, unknown to mypy)
        optional: frozenset[str] = getattr(kind, "__optional_keys__")  # noqa: B009
        rows.append((name, required - {key}, optional))
    return rows


DECLARED = {
    "game": (protocol.GAME_SOCKET, "type"),
    "lobby": (protocol.LOBBY_SOCKET, "type"),
    "replication": (protocol.REPLICATION, "k"),
}


def mismatch(message: dict[str, Any], rows: list[Row], key: str) -> str | None:
    """Why ``message`` matches no documented row (``None`` if it matches one)."""
    name, fields = message.get(key), set(message) - {key}
    for documented_name, always, sometimes in rows:
        if documented_name == name and always <= fields <= always | sometimes:
            return None
    return f"{key}={name!r} with fields {sorted(fields)}"


def test_the_protocol_module_and_the_docs_declare_the_same_messages() -> None:
    tables = documented(DOCS.read_text(encoding="utf-8"))
    assert sorted(tables) == sorted(DECLARED)
    for socket, (types, key) in DECLARED.items():
        assert sorted(map(_plain, declared(types, key))) == sorted(map(_plain, tables[socket])), socket


def _plain(row: Row) -> tuple[str, list[str], list[str]]:
    """A row in a fixed order (a set's order changes with the hash seed)."""
    return row[0], sorted(row[1]), sorted(row[2])


def test_the_check_refuses_an_undocumented_field_and_a_missing_one() -> None:
    rows = documented(DOCS.read_text(encoding="utf-8"))["game"]
    ack = {"type": "ack", "id": "a1", "version": 3}
    assert mismatch(ack, rows, "type") is None
    assert mismatch({**ack, "at": 1}, rows, "type") == "type='ack' with fields ['at', 'id', 'version']"
    assert mismatch({"type": "ack", "id": "a1"}, rows, "type") is not None
    assert mismatch({"type": "acked"}, rows, "type") is not None


class Socket:
    """A WebSocket whose every frame is kept (``frames``); the test takes the ones it awaits, in
    order, whatever came between (an ``ack`` may come before or after what its request caused)."""

    def __init__(self, ws: Any, name: str) -> None:
        self.ws, self.name = ws, name
        self.frames: list[dict[str, Any]] = []
        self.taken: set[int] = set()
        """The frames the test has awaited (each at most once)."""

    @classmethod
    async def open(cls, url: str, name: str, headers: dict[str, str] | None = None) -> Socket:
        return cls(await websockets.connect(url, additional_headers=headers), name)

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def until(self, wanted: str | Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        """The first frame not yet taken of type ``wanted`` (or for which it is true)."""
        test = (lambda m: m.get("type") == wanted) if isinstance(wanted, str) else wanted
        looked = 0
        while True:
            for index in range(looked, len(self.frames)):
                if index not in self.taken and test(self.frames[index]):
                    self.taken.add(index)
                    return self.frames[index]
            looked = len(self.frames)
            self.frames.append(json.loads(await asyncio.wait_for(self.ws.recv(), 15)))

    async def flush(self) -> None:
        """Everything sent so far: a ``ping`` and every frame until its ``pong``."""
        await self.send(type="ping")
        await self.until("pong")

    async def close(self) -> None:
        await self.ws.close()


@pytest.fixture
def server(tmp_path: Path, redis_url: str) -> Iterator[Server]:
    """An instance with a Redis broker, so that it publishes what it stores on each game's channel.
    Its rate limits are shared through Redis with every other test's instance and run, for the
    same loopback address: the budgets this test draws on refill at once."""
    budgets = ("signups_per_hour", "logins_per_minute", "games_per_minute", "joins_per_minute")
    args = ("--broker", redis_url, "--local-ai", *(f"--limit={budget}=1000000" for budget in budgets))
    running = Server(tmp_path, args=args).start()
    yield running
    running.stop()


async def _game(server: Server, ann: httpx.Client, mia: httpx.Client) -> tuple[str, list[Socket]]:
    """A timed hot-seat game of ann's, from its first ``hello`` to its rematch: its id and sockets."""
    made = ann.post(
        "/api/games", json={"opponent": "hotseat", "clock": CLOCK, "seat": "first"}, headers=csrf(ann)
    ).json()
    game_id, tokens = made["game_id"], made["tokens"]
    url = f"{server.ws_url}/ws/{game_id}"
    seats = [await Socket.open(url, "seat 0 (protocol 3)"), await Socket.open(url, "seat 1 (protocol 1)")]
    watchers = [await Socket.open(url, "spectator (protocol 2)"), await Socket.open(url, "spectator (protocol 3)")]
    everyone = [*seats, *watchers]
    legal: dict[int, list[str]] = {}
    """What each seat may play now, from the last ``sync`` or ``update`` it got."""
    for socket, token, speaks in zip(everyone, [*tokens, None, None], (3, 1, 2, 3), strict=True):
        await socket.send(type="hello", version=None, protocol=speaks, **({} if token is None else {"token": token}))
        sync = await socket.until("sync")
        if token is not None:
            legal[sync["seat"]] = sync["legal"]
    version = 0

    async def everyone_at(wanted: Callable[[dict[str, Any]], bool]) -> None:
        for socket in everyone:
            message = await socket.until(wanted)
            if socket in seats and message["type"] in ("sync", "update"):
                legal[seats.index(socket)] = message.get("legal", [])

    async def act(seat: int, token: str) -> None:
        nonlocal version
        await seats[seat].send(type="action", action=token, version=version, id=f"a{version}")
        await seats[seat].until(lambda m: m == {"type": "ack", "id": f"a{version}", "version": version + 1})
        version += 1
        await everyone_at(lambda m: m["type"] == "update" and m["version"] == version)

    async def ask(seat: int, kind: str, answer: str) -> None:
        await seats[seat].send(type=kind, id=kind)
        await seats[seat].until(lambda m: m["type"] == "ack" and m["id"] == kind)
        await everyone_at(lambda m: m["type"] == answer)

    def mover() -> int:
        return 0 if legal[0] else 1

    await seats[0].send(type="chat", text="good luck", id="c0")
    await seats[0].until(lambda m: m["type"] == "ack" and m["id"] == "c0")  # stored: line 0 is ann's
    await watchers[0].send(type="chat", text="go ann", id="c1")
    for socket in everyone:
        await socket.until("chat")
    await seats[mover()].send(type="foresee", version=version, id="f")
    await seats[mover()].until("foreseen")
    await seats[1].ws.send("not json")
    await seats[1].until("error")
    while not any(not parse(token).ends_turn for token in legal[mover()]):
        await act(mover(), legal[mover()][0])
    seat = mover()
    await act(seat, next(token for token in legal[seat] if not parse(token).ends_turn))
    await ask(seat, "takeback", "takeback_offered")
    await ask(1 - seat, "takeback_decline", "takeback_declined")
    await ask(seat, "takeback", "takeback_offered")
    await seats[1 - seat].send(type="takeback", id="yes")
    await seats[1 - seat].until(lambda m: m["type"] == "ack" and m["id"] == "yes")
    version += 1
    await everyone_at(lambda m: m["type"] == "sync" and m["version"] == version)
    await seats[seat].send(type="action", action="end", version=version, id="illegal")
    assert (await seats[seat].until("error"))["code"] == "illegal"
    await seats[seat].send(type="action", action=legal[seat][0], version=version - 1, id="stale")
    assert (await seats[seat].until("error"))["code"] == "stale_version"
    for _ in range(6):
        await act(mover(), legal[mover()][-1])
    hide = {"username": "ann", "kind": "hide_line", "game_id": game_id, "line_id": 0, "reason": "test"}
    hidden = mia.post("/api/mod/sanctions", json=hide, headers=csrf(mia))
    assert hidden.status_code == 201, hidden.text
    await everyone_at(lambda m: m["type"] == "chat_hidden")
    await ask(0, "resign", "sync")
    await ask(0, "rematch", "rematch_offered")
    await ask(1, "rematch", "rematch")
    return game_id, everyone


async def _lobby(server: Server, ann: httpx.Client, bob: httpx.Client, mia: httpx.Client) -> list[Socket]:
    """Offers, a challenge, an event's chat and first round, and an account closed, on /ws/lobby."""
    url = f"{server.ws_url}/ws/lobby"
    watcher = await Socket.open(url, "lobby (guest)")
    mine = {name: await Socket.open(url, f"lobby ({name})", cookie(who)) for name, who in (("ann", ann), ("bob", bob))}
    for socket in (watcher, *mine.values()):
        await socket.until("seeks")
    for socket in mine.values():
        await socket.until("challenges")
    with client(server) as guest, client(server) as taker:
        seek = guest.post("/api/seeks", json={"name": "Guest", "clock": CLOCK}).json()
        await watcher.until("seek_added")
        owner = await Socket.open(url, "lobby (seek owner)")
        await owner.send(type="own", seek_id=seek["seek_id"], token=seek["token"])
        await owner.until("owned")
        assert taker.post(f"/api/seeks/{seek['seek_id']}/accept", json={"name": "Taker"}).status_code == 200
        await owner.until("accepted")
        await watcher.until(lambda m: m["type"] == "seek_removed" and m["seek_id"] == seek["seek_id"])
        late = await Socket.open(url, "lobby (owner come back)")
        await late.send(type="own", seek_id=seek["seek_id"], token=seek["token"])
        await late.until("accepted")
    made = ann.post("/api/challenges", json={"opponent": "bob", "clock": CLOCK}, headers=csrf(ann)).json()
    await mine["bob"].until("challenge")
    await mine["ann"].send(type="own", seek_id=made["seek_id"], token=made["token"])
    await mine["ann"].until("owned")
    assert bob.post(f"/api/challenges/{made['seek_id']}/decline", headers=csrf(bob)).status_code == 204
    await mine["ann"].until("declined")
    await watcher.ws.send('{"type": "nothing"}')
    await watcher.until("error")

    event = {"kind": "swiss", "name": "Wire Cup", "clock": CLOCK, "rounds": 1, "join": True}
    tid = ann.post("/api/tournaments", json=event, headers=csrf(ann)).json()["tournament_id"]
    assert bob.post(f"/api/tournaments/{tid}/join", headers=csrf(bob)).status_code == 204
    await watcher.send(type="watch", tournament_id=tid)
    await watcher.flush()  # the watch is in place
    assert ann.post(f"/api/tournaments/{tid}/chat", json={"text": "hello"}, headers=csrf(ann)).status_code == 201
    await watcher.until("tournament_chat")
    assert ann.post(f"/api/tournaments/{tid}/start", headers=csrf(ann)).status_code == 204
    for socket in mine.values():
        await socket.until("tournament_game")

    cy = signed_in(server, "cy")
    closing = await Socket.open(url, "lobby (cy)", cookie(cy))
    await closing.until("challenges")
    body = {"username": "cy", "kind": "close", "reason": "test"}
    assert mia.post("/api/mod/sanctions", json=body, headers=csrf(mia)).status_code == 201
    await closing.until("account_closed")
    return [watcher, *mine.values(), owner, late, closing]


def test_every_message_a_real_server_sends_is_documented(server: Server, redis_url: str) -> None:
    tables = documented(DOCS.read_text(encoding="utf-8"))
    ann, bob, mia = signed_in(server, "ann"), signed_in(server, "bob"), moderator(server, "mia")
    published: list[tuple[str, dict[str, Any]]] = []
    """What was published on a ``game:`` channel: the channel and the message."""

    async def listen(heard: Any) -> None:
        async for item in heard.listen():
            if item["type"] == "pmessage":
                published.append((item["channel"].decode(), json.loads(item["data"])))

    async def scenario() -> tuple[str, list[Socket], list[Socket]]:
        broker = aioredis.from_url(redis_url)
        heard = broker.pubsub()
        await heard.psubscribe("game:*")
        confirmed = await heard.get_message(timeout=5)  # in effect from now on
        assert confirmed is not None and confirmed["type"] == "psubscribe"
        listening = asyncio.create_task(listen(heard))
        try:
            game_id, games = await _game(server, ann, mia)
            lobbies = await _lobby(server, ann, bob, mia)
            for socket in (*games, *lobbies[:-1]):  # the last, the closed account's, is closed
                await socket.flush()
            for socket in (*games, *lobbies):
                await socket.close()
            channel = f"game:{game_id}"

            async def rematch_announced() -> bool:
                kinds = [message["k"] for name, message in published if name == channel]
                return "o" in kinds and "r" in kinds[kinds.index("o") :]

            await eventually(rematch_announced, "the agreed rematch on the game's channel")
        finally:
            listening.cancel()
            await heard.aclose()  # type: ignore[no-untyped-call]  # redis-py leaves PubSub.aclose unannotated
            await broker.aclose()
        return game_id, games, lobbies

    game_id, games, lobbies = asyncio.run(scenario())
    frames = [frame for socket in (*games, *lobbies) for frame in socket.frames]
    ours = {game_id} | {frame["game_id"] for frame in frames if "game_id" in frame}
    replicated = [message for channel, message in published if channel.removeprefix("game:") in ours]
    wrong = [
        f"{socket.name}: {why}"
        for sockets, table in ((games, "game"), (lobbies, "lobby"))
        for socket in sockets
        for frame in socket.frames
        if (why := mismatch(frame, tables[table], "type")) is not None
    ]
    for message in replicated:
        assert isinstance(message.pop("i"), str)
        if (why := mismatch(message, tables["replication"], "k")) is not None:
            wrong.append(f"replication: {why}")
    assert wrong == [], "\n".join(wrong)
    seen = {
        "game": {frame["type"] for socket in games for frame in socket.frames},
        "lobby": {frame["type"] for socket in lobbies for frame in socket.frames},
        "replication": {message["k"] for message in replicated},
    }
    assert seen == {socket: {row[0] for row in rows} for socket, rows in tables.items()}  # every kind was sent
