"""The outermost middleware: every HTTP answer counted by route and status, and the WebSockets
open counted by kind, in the process's metrics (``ops/metrics.py``).

The route is the path's template (``/api/games/{game_id}``), never the path itself, so that the
number of series stays that of the routes whatever clients ask; a request answered before any
route was chosen (a rate limit's 429, a body too large) or that matched none counts as
``unrouted``.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kahuna.server.ops import metrics


class Measured:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            path = scope["path"]
            kind = "lobby" if path == "/ws/lobby" else "game" if path.startswith("/ws/") else "other"
            gauge = metrics.WEBSOCKETS.labels(kind)
            gauge.inc()
            try:
                await self.app(scope, receive, send)
            finally:
                gauge.dec()
            return
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500  # an exception before any answer: uvicorn sends a 500

        async def watching_send(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, watching_send)
        finally:
            route = scope.get("route")
            template = getattr(route, "path", None) or "unrouted"
            metrics.HTTP_REQUESTS.labels(template, str(status)).inc()
