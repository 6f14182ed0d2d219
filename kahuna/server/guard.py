"""ASGI middleware in front of the app: request size limit and one structured log line per request.

Logged paths never carry a secret: query strings are dropped and the invite code of a join path
is replaced by ``{invite}``.
"""

from __future__ import annotations

import json
import time
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kahuna.server import logs

SECRET_PATH_PREFIXES = ("/api/join/", "/join/")


def loggable_path(path: str) -> str:
    for prefix in SECRET_PATH_PREFIXES:
        if path.startswith(prefix):
            return prefix + "{invite}"
    return path


class BodyTooLarge(Exception):
    pass


class Guard:
    def __init__(self, app: ASGIApp, max_body: int) -> None:
        self.app = app
        self.max_body = max_body

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = 500
        started = False
        size = 0

        async def counting_receive() -> Message:
            nonlocal size
            message = await receive()
            if message["type"] == "http.request":
                size += len(message.get("body", b""))
                if size > self.max_body:
                    raise BodyTooLarge
            return message

        async def watching_send(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status = message["status"]
                started = True
            await send(message)

        declared = _content_length(scope)
        try:
            if declared is not None and declared > self.max_body:
                raise BodyTooLarge
            await self.app(scope, counting_receive, watching_send)
        except BodyTooLarge:
            if started:
                raise
            await _send_json(send, 413, {"error": "too_large", "message": f"request body over {self.max_body} bytes"})
            status = 413
        finally:
            ms = round((time.perf_counter() - start) * 1000, 2)
            logs.event("request", method=scope["method"], path=loggable_path(scope["path"]), status=status, ms=ms)


def _content_length(scope: Scope) -> int | None:
    for name, value in scope["headers"]:
        if name == b"content-length":
            try:
                return int(value)
            except ValueError:
                return None
    return None


async def _send_json(send: Send, status: int, body: dict[str, Any]) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": data})
