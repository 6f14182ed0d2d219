"""``kahuna bot``'s seat (``play_seat``) across an upgrade: a proxy that answers a handshake 502
(no instance to hand it to for a moment) and a socket closed with 1001 *going away* are both
followed by a new connection whose ``hello`` carries the last version seen.

Before, a 502 handshake (``websockets.InvalidStatus``) escaped ``play_seat`` and ended the bot's
game in the middle of an upgrade.
"""

from __future__ import annotations

import asyncio
import json
from http import HTTPStatus
from typing import Any

from websockets.asyncio.server import ServerConnection, serve
from websockets.http11 import Request, Response

from kahuna.bot import client
from kahuna.bot.client import play_seat


def test_a_502_handshake_and_a_going_away_close_are_followed_by_a_hello_at_the_last_version(
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr(client, "RECONNECT_SECONDS", (0.01,))
    handshakes: list[int] = []
    hellos: list[dict[str, Any]] = []

    def answer(connection: ServerConnection, _request: Request) -> Response | None:
        handshakes.append(1)
        if len(handshakes) == 1:  # nginx, its instances being replaced
            return connection.respond(HTTPStatus.BAD_GATEWAY, "502 Bad Gateway\n")
        return None

    async def game(ws: ServerConnection) -> None:
        hellos.append(json.loads(await ws.recv()))
        if len(hellos) == 1:  # an instance going away after the first state
            view: dict[str, Any] = {"result": None}
            await ws.send(json.dumps({"type": "sync", "version": 7, "status": "playing", "view": view, "legal": []}))
            await ws.close(1001, "going away")
            return
        view = {"result": {"winner": 0}}
        await ws.send(json.dumps({"type": "sync", "version": 9, "status": "over", "view": view, "legal": []}))
        await ws.wait_closed()

    async def scenario() -> dict[str, Any]:
        async with serve(game, "127.0.0.1", 0, process_request=answer) as server:
            port = server.sockets[0].getsockname()[1]
            return await asyncio.wait_for(play_seat(f"http://127.0.0.1:{port}", "g1", "t0", lambda _v, _l: ""), 10)

    last = asyncio.run(scenario())
    assert last["version"] == 9
    assert len(handshakes) == 3
    assert [hello["version"] for hello in hellos] == [None, 7]
    assert all(hello["token"] == "t0" for hello in hellos)
