"""Connection limits below the app: a cap on open connections (in all and per IP address) and a
deadline for each request's headers.

uvicorn keeps a connection open for as long as its client likes before a request is complete: a
client that connects and stays silent, or trickles its headers a byte at a time, holds a socket
and memory forever, and a few thousand of them exhaust the server. The app never sees such a
connection, so the limits live in the HTTP protocol object that uvicorn creates per connection
(:func:`protocol_class`). Once a WebSocket is open, the app's own timeouts take over (``game_socket.py``).

The per-address cap is checked at every new connection, so the count must not cost a walk over
every open connection: :class:`ConnectionsByAddress` keeps it as uvicorn's protocols come and go
(:func:`server` installs it), so a burst of *n* connections costs *n* steps, not *n*²/2.
"""

from __future__ import annotations

import asyncio
import socket
from collections import Counter
from typing import Any

import uvicorn
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

from kahuna.server.common import logs
from kahuna.server.common.config import Limits
from kahuna.server.http.draining import Drain


def protocol_class(limits: Limits) -> type[asyncio.Protocol]:
    """uvicorn's httptools protocol, with ``limits`` on connections and header time."""

    class GuardedHttp(HttpToolsProtocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            ip = self.client[0] if self.client else ""
            if len(self.connections) > limits.max_connections:
                self._refuse("max_connections")
            elif _count_of(self.connections, ip) > limits.max_connections_per_ip:
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

        def handle_websocket_upgrade(self) -> None:
            super().handle_websocket_upgrade()
            # The connection now belongs to the WebSocket protocol, and this object is dropped. Its
            # parser holds its bound methods, a reference cycle that uvicorn breaks only in
            # connection_lost, which an upgraded connection never calls here: left alone, every
            # WebSocket leaves this object, its parser and their parts to the cyclic collector
            # (about 23 objects each: most of the 9,755 a 300-game round's first young collection
            # found in cycles). Broken here, they go as soon as the upgrade is done.
            self.parser = None  # type: ignore[assignment]

    return GuardedHttp


class ConnectionsByAddress(set[Any]):
    """uvicorn's set of open connections (its ``ServerState.connections``), counted per address.

    Every uvicorn protocol adds itself to this set when its connection is made, and removes itself
    when it is lost or handed over (an HTTP connection upgraded to a WebSocket leaves, and the
    WebSocket protocol comes in with the same transport). A protocol learns its peer's address
    just *after* adding itself, so a newcomer waits in ``_pending`` and is counted the next time a
    count is asked for, once its transport is set; each protocol is looked at once.
    """

    def __init__(self) -> None:
        super().__init__()
        self._address: dict[Any, str] = {}
        self._pending: set[Any] = set()
        self._count: Counter[str] = Counter()

    def add(self, protocol: Any) -> None:
        if protocol not in self:
            super().add(protocol)
            self._pending.add(protocol)

    def remove(self, protocol: Any) -> None:
        super().remove(protocol)
        self._forget(protocol)

    def discard(self, protocol: Any) -> None:
        if protocol in self:
            super().discard(protocol)
            self._forget(protocol)

    def count(self, address: str) -> int:
        """The open connections from ``address``."""
        for protocol in [p for p in self._pending if getattr(p, "transport", None) is not None]:
            self._pending.discard(protocol)
            client = getattr(protocol, "client", None)
            known = client[0] if client else ""
            self._address[protocol] = known
            self._count[known] += 1
        return self._count[address]

    def _forget(self, protocol: Any) -> None:
        if protocol in self._pending:
            self._pending.discard(protocol)
            return
        address = self._address.pop(protocol, None)
        if address is not None:
            self._count[address] -= 1
            if not self._count[address]:
                del self._count[address]


def _count_of(connections: set[Any], address: str) -> int:
    if isinstance(connections, ConnectionsByAddress):
        return connections.count(address)
    raise TypeError("the server was not built by kahuna.server.http.conns.server(): no per-address count")


class DrainingServer(uvicorn.Server):
    """uvicorn's server, which on SIGTERM first stops listening (a reconnecting client is sent to
    another instance by the proxy, whose connection here is refused), then lets the game and lobby
    sockets close going away (``draining.Drain``), and only then runs uvicorn's own shutdown: it cuts what
    is left, waits for the HTTP requests in progress, and runs the app's, which commits what the
    writer holds."""

    def __init__(self, config: uvicorn.Config, drain: Drain | None) -> None:
        super().__init__(config)
        self.drain = drain

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        for listening in self.servers:
            listening.close()
        if self.drain is not None and not self.force_exit:
            logs.event("draining", sockets=self.drain.open)
            left = await self.drain.run()
            logs.event("drained", left=left)
        await super().shutdown(sockets)


def server(config: uvicorn.Config, drain: Drain | None = None) -> uvicorn.Server:
    """A uvicorn server whose open connections are counted per address (for :func:`protocol_class`)
    and, given ``drain`` (the app's WebSockets), that closes them with 1001 before stopping."""
    built = DrainingServer(config, drain)
    built.server_state.connections = ConnectionsByAddress()
    return built
