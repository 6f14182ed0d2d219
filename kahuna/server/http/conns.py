"""Connection limits below the app: a cap on open connections (in all and per IP address) and a
deadline for each request's headers.

uvicorn keeps a connection open for as long as its client likes before a request is complete: a
client that connects and stays silent, or trickles its headers a byte at a time, holds a socket
and memory forever, and a few thousand of them exhaust the server. The app never sees such a
connection, so the limits live in the HTTP protocol object that uvicorn creates per connection
(:func:`protocol_class`). Once a WebSocket is open, the app's own timeouts take over (``game_socket.py``).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kahuna.server.common import logs
from kahuna.server.common.config import Limits


def protocol_class(limits: Limits) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol, with ``limits`` on connections and header time."""

    class GuardedHttp(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            ip = self.client[0] if self.client else ""
            if len(self.connections) > limits.max_connections:
                self._refuse("max_connections")
            elif sum(1 for other in self.connections if _ip_of(other) == ip) > limits.max_connections_per_ip:
                self._refuse("max_connections_per_ip")
            else:
                self._arm()

        def _refuse(self, limit: str) -> None:
            logs.event("connection_refused", limit=limit)
            self.transport.abort()

        def _arm(self) -> None:
            self._disarm()
            self._header_timer = self.loop.call_later(limits.header_timeout, self._headers_too_slow)

        def _disarm(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            logs.event("connection_timeout", limit="header_timeout")
            self.transport.abort()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._arm()

        def on_headers_complete(self) -> None:
            self._disarm()
            super().on_headers_complete()

        def connection_lost(self, exc: Exception | None) -> None:
            self._disarm()
            super().connection_lost(exc)

    return GuardedHttp


def _ip_of(protocol: Any) -> str | None:
    client = getattr(protocol, "client", None)
    return client[0] if client else None
