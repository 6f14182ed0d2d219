"""The HTTP protocol below the app (``kahuna.server.http.conns``), run in a real uvicorn on 127.0.0.1."""

from __future__ import annotations

import asyncio
import gc
import socket
from typing import Any

import uvicorn
import websockets

from kahuna.bench.server import collector_off
from kahuna.server.common.config import Limits
from kahuna.server.http.conns import protocol_class, server


async def _echo_once(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """An ASGI app that accepts a WebSocket, answers its first frame and waits for the close."""
    if scope["type"] != "websocket":
        return
    assert (await receive())["type"] == "websocket.connect"
    await send({"type": "websocket.accept"})
    frame = await receive()
    await send({"type": "websocket.send", "text": frame.get("text", "")})
    while (await receive())["type"] != "websocket.disconnect":
        pass


def test_an_upgraded_connection_leaves_no_cycle_behind() -> None:
    """Once a connection has become a WebSocket, its HTTP protocol object is freed at once, by
    reference counting: none is left for the cyclic collector, whose young collections would
    otherwise traverse hundreds of them after a burst of connections (and stop the loop meanwhile)."""
    http = protocol_class(Limits())

    def http_protocols() -> int:
        return sum(1 for o in gc.get_objects() if isinstance(o, http))

    async def scenario() -> tuple[int, int]:
        listening = socket.create_server(("127.0.0.1", 0))  # bound first: clients wait in its backlog
        port = listening.getsockname()[1]
        config = uvicorn.Config(_echo_once, http=http, log_config=None, lifespan="off")
        built = server(config)
        serving = asyncio.create_task(built.serve(sockets=[listening]))
        async with (
            websockets.connect(f"ws://127.0.0.1:{port}/ws") as first,
            websockets.connect(f"ws://127.0.0.1:{port}/ws") as second,
        ):
            for sock in (first, second):
                await sock.send("hello")
                assert await sock.recv() == "hello"
            while_open = http_protocols()
        built.should_exit = True
        await serving
        return while_open, http_protocols()

    with collector_off():
        while_open, after = asyncio.run(scenario())
    assert while_open == 0
    assert after == 0
