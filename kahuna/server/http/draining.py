"""Leaving without dropping anyone: what an instance does with its WebSockets when told to stop.

uvicorn, on SIGTERM, stops listening and then cuts every WebSocket at once (close code 1012, the
transport closed in the same step): a player whose action was being committed at that moment had
it stored but never heard the ``ack``, and anything queued for a socket (the update of that very
action) was thrown away. For an upgrade, where instances are replaced one at a time while games
are played (docs/deploy.md, *Upgrading without stopping play*), each socket is instead let finish
the frame it is answering, sent what is queued for it, and closed with 1001 *going away*: the
client reconnects (through the proxy, to another instance) with the last version it saw and is
caught up there. The lobby's sockets are closed the same way, leaving their owners' offers open
(``lobby_socket.py``). Only then does uvicorn's own shutdown run (``conns.server``), then the
app's, which commits whatever the writer still holds.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

CLOSE_GOING_AWAY = 1001
"""The close code of a socket whose server is going away (RFC 6455): reconnect."""

DRAIN_SECONDS = 10.0
"""How long the sockets are given to finish their frame and be closed before uvicorn cuts the rest.
An action's commit takes milliseconds; this bounds a database that hangs."""


class Drain:
    """The open game and lobby sockets of this instance, and whether it is going away.

    Each socket registers a callback that asks it to close (after the frame in hand, if any) and
    unregisters when it has ended; :meth:`run` asks them all and waits for them.
    """

    def __init__(self) -> None:
        self.draining = False
        """Set once the instance is going away: ``/readyz`` answers 503 from then on, and a socket
        that opens meanwhile is closed as soon as it is registered."""
        self._closers: dict[object, Callable[[], None]] = {}
        self._empty = asyncio.Event()
        self._empty.set()

    def register(self, key: object, close: Callable[[], None]) -> None:
        """A socket opened: ``close()`` asks it to end with :data:`CLOSE_GOING_AWAY`."""
        if self.draining:
            close()
        self._closers[key] = close
        self._empty.clear()

    def unregister(self, key: object) -> None:
        """The socket of ``key`` has ended."""
        self._closers.pop(key, None)
        if not self._closers:
            self._empty.set()

    @property
    def open(self) -> int:
        """Sockets not ended yet."""
        return len(self._closers)

    async def run(self, timeout: float = DRAIN_SECONDS) -> int:
        """Ask every socket to go, and wait (at most ``timeout`` seconds) until all have ended;
        the number still open then (uvicorn's shutdown cuts them)."""
        self.draining = True
        for close in list(self._closers.values()):
            close()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._empty.wait(), timeout)
        return self.open
