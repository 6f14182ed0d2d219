"""Play one seat of a server's game over the WebSocket protocol (docs/protocol.md) with any agent.

The seat token goes in the first ``hello`` (or, for ``seat:N``, the seat of the account whose
``Authorization`` header the connection carries: a tournament's seats are their accounts'); every
``sync`` or ``update`` that offers this seat ``legal`` actions is answered with the agent's choice
at that version. It speaks protocol 3: each ``update`` carries what its events do not say, and
:class:`~kahuna.bot.follow.Follower` keeps the whole view. A dropped connection is
reopened and greeted with the last version seen, so the server catches the client up (or sends a
``sync``); the game is over when a message says ``status`` ``over``.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from typing import Any

import websockets

from kahuna.ai.base import Agent
from kahuna.ai.registry import make_agent
from kahuna.bot import follow
from kahuna.rules import PlayerView

RECONNECT_SECONDS = (0.5, 1.0, 2.0, 5.0, 10.0)
"""Waits before each reconnection attempt (the last one repeats)."""

Chooser = Callable[[dict[str, Any], list[str]], str]
"""A view (JSON) and its legal tokens in, one token out."""


def chooser(agent: Agent, rng: random.Random) -> Chooser:
    def choose(view: dict[str, Any], _legal: list[str]) -> str:
        return agent.choose(PlayerView.from_json(view), rng).token

    return choose


def ws_url(server: str) -> str:
    """``http(s)://host`` → ``ws(s)://host``."""
    return "ws" + server[len("http") :] if server.startswith("http") else server


async def play_seat(
    server: str, game_id: str, token: str, choose: Chooser, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """Play the seat of ``token`` (``seat:N``: the account's seat N, signed in by ``headers``) until
    the game is over; its final ``sync`` or ``update``."""
    hello: dict[str, Any] = {"type": "hello", "protocol": follow.PROTOCOL, "token": token}
    if token.startswith("seat:"):
        hello = {"type": "hello", "protocol": follow.PROTOCOL, "seat": int(token.removeprefix("seat:"))}
    game = follow.Follower()
    attempt = 0
    while True:
        try:
            async with websockets.connect(f"{ws_url(server)}/ws/{game_id}", additional_headers=headers) as ws:
                await ws.send(json.dumps({**hello, "version": game.version}))
                attempt = 0
                legal: list[str] = []
                async for text in ws:
                    message = json.loads(text)
                    kind = message.get("type")
                    if kind == "error" and message.get("code") in ("forbidden", "not_found", "damaged"):
                        raise RuntimeError(f"the server refused the seat: {message.get('message')}")
                    if kind == "error" and message.get("code") == "illegal" and legal:
                        # the agent erred: a legal action rather than a stalled game
                        fallback = legal[random.randrange(len(legal))]
                        await ws.send(json.dumps({"type": "action", "action": fallback, "version": game.version}))
                    if kind not in ("sync", "update"):
                        continue
                    try:
                        whole = game.follow(message)
                    except follow.OutOfStep:  # a version missed: the whole state again
                        await ws.send(json.dumps({**hello, "version": None}))
                        continue
                    if whole is None:
                        continue
                    message = whole
                    version = message["version"]
                    if message["view"].get("result") is not None or message.get("status") == "over":
                        return dict(message)
                    legal = message.get("legal") or []
                    if legal:
                        action = await asyncio.to_thread(choose, message["view"], legal)
                        await ws.send(json.dumps({"type": "action", "action": action, "version": version}))
        except (OSError, websockets.ConnectionClosed, websockets.InvalidMessage, websockets.InvalidStatus) as exc:
            # the server is down or restarting (a connection it closed before answering the
            # handshake is an InvalidMessage; a proxy with no instance to hand the handshake to
            # answers it 502 or 503, as nginx may while the instances are replaced): try again
            if isinstance(exc, websockets.InvalidStatus) and exc.response.status_code < 500:
                raise
            await asyncio.sleep(RECONNECT_SECONDS[min(attempt, len(RECONNECT_SECONDS) - 1)])
            attempt += 1


async def play_with_agent(
    server: str, game_id: str, token: str, spec: str, seed: int, headers: dict[str, str] | None = None
) -> dict[str, Any]:
    """Play a seat with a fresh agent of ``spec`` (a ``cmd:`` program is started for this game)."""
    agent = make_agent(spec)
    try:
        return await play_seat(server, game_id, token, chooser(agent, random.Random(seed)), headers)
    finally:
        close = getattr(agent, "close", None)
        if close is not None:
            close()
