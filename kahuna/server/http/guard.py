"""ASGI middleware in front of the app: per-address rate limits, request size and time limits,
security headers, and one structured log line per request.

Rate limits are checked here, before FastAPI parses anything, so that a flood of refused requests
costs a dictionary lookup each (``429 rate_limited`` with ``retry_after`` and ``Retry-After``).

Logged paths never carry a secret: query strings are dropped, the invite code of a join path is
replaced by ``{invite}`` and the token of a password-reset or unsubscribe link by ``{token}`` (a
reset link refused for a weak password stays usable, so its path must not be readable in a log).

Every HTTP answer carries a Content-Security-Policy that lets a page run only the project's own
scripts from this origin: the pages keep seat tokens in ``localStorage``, so no other script (an
injected one, or a CDN's) may run beside them.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kahuna.server.common import logs
from kahuna.server.common.ratelimit import Quotas

SECRET_PATHS = {
    "/api/join/": "{invite}",
    "/join/": "{invite}",
    "/api/password-reset/": "{token}",
    "/api/unsubscribe/": "{token}",
    "/unsubscribe/": "{token}",
}
"""The paths whose rest is a secret (every route with a token in its path), and what is logged instead."""

CONTENT_SECURITY_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
SECURITY_HEADERS = [
    (b"content-security-policy", CONTENT_SECURITY_POLICY.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
]


def loggable_path(path: str) -> str:
    for prefix, placeholder in SECRET_PATHS.items():
        if path.startswith(prefix):
            return prefix + placeholder
    return path


class BodyRefused(Exception):
    """A request body that is too large or too slow to arrive; answered with ``status``."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


class Guard:
    def __init__(self, app: ASGIApp, max_body: int, body_timeout: float, quotas: Quotas) -> None:
        self.app = app
        self.max_body = max_body
        self.body_timeout = body_timeout
        self.quotas = quotas

    def too_large(self) -> BodyRefused:
        return BodyRefused(413, "too_large", f"request body over {self.max_body} bytes")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        deadline = time.monotonic() + self.body_timeout
        status = 500
        started = False
        size = 0
        body_done = False

        async def counting_receive() -> Message:
            """The body's next part within the deadline; once the body is in, a wait without one
            (a streamed answer listens for the client's disconnect for as long as it takes)."""
            nonlocal size, body_done
            if body_done:
                return await receive()
            try:
                message = await asyncio.wait_for(receive(), max(0.0, deadline - time.monotonic()))
            except TimeoutError:
                raise BodyRefused(
                    408, "too_slow", f"request body not received within {self.body_timeout:g} s"
                ) from None
            if message["type"] == "http.request":
                size += len(message.get("body", b""))
                if size > self.max_body:
                    raise self.too_large()
                body_done = not message.get("more_body", False)
            return message

        async def watching_send(message: Message) -> None:
            nonlocal status, started
            if message["type"] == "http.response.start":
                status = message["status"]
                started = True
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        declared = _content_length(scope)
        limiter = self.quotas.limiter(scope["method"], scope["path"])
        wait = 0.0 if limiter is None else await limiter.take(scope["client"][0] if scope.get("client") else "")
        try:
            if wait:
                status = 429
                body = {"error": "rate_limited", "message": f"too many requests: try again in {wait:.0f} s"}
                await _send_json(send, 429, {**body, "retry_after": wait}, [(b"retry-after", b"%d" % wait)])
                return
            if declared is not None and declared > self.max_body:
                raise self.too_large()
            await self.app(scope, counting_receive, watching_send)
        except BodyRefused as refused:
            if started:
                raise
            await _send_json(send, refused.status, {"error": refused.code, "message": refused.message})
            status = refused.status
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


async def _send_json(send: Send, status: int, body: dict[str, Any], more: Sequence[tuple[bytes, bytes]] = ()) -> None:
    data = json.dumps(body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(data)).encode()), *more]
    await send({"type": "http.response.start", "status": status, "headers": [*headers, *SECURITY_HEADERS]})
    await send({"type": "http.response.body", "body": data})
