"""One WebSocket connection to a game as the game sees it: its seat and its outgoing queue
(``Room.clients``, ``games/room.py``; ``http/game_socket.py`` drains the queue)."""

from __future__ import annotations

import asyncio

from kahuna.server.common.protocol import GameMessage
from kahuna.server.games import messages

MAX_BACKLOG = 1000
"""Messages queued for a connection that does not read them before it is closed (it may reconnect)."""


class Client:
    """One WebSocket connection: its seat (``None`` = spectator) and its outgoing queue.

    Messages are queued, never awaited, so one slow connection cannot hold up a game; ``None`` in
    the queue tells the sender to stop (the client left, or fell :data:`MAX_BACKLOG` behind).
    """

    def __init__(self, seat: int | None) -> None:
        self.seat = seat
        self.token: str | None = None
        """The seat token this connection presented (memory only, never logged): a rematch's new
        seat token is derived from it (``rematch_token``)."""
        self.by_account = False
        """Whether the seat was claimed as the signed-in account's (``hello`` with ``seat``, no
        token): a rematch then gives it a seat of the account in the new game rather than a token."""
        self.outbox: asyncio.Queue[str | None] = asyncio.Queue()
        self.stopped = False
        self.queued = 0
        """Messages put in the outbox so far."""
        self.sent = 0
        """Messages written to the socket so far (the sender counts them)."""
        self.answered_at = 0
        """``queued`` after the last ``hello`` was answered: until ``sent`` reaches it, another
        ``hello`` is refused (its answer would only pile up behind the first one)."""
        self.protocol = 1
        """The protocol version its first ``hello`` asked for (``messages.PROTOCOLS``): 1 gets whole
        views in every ``update``, 2 what changed."""
        self.foreseen: int | None = None
        """The version whose ``foreseen`` answer this connection got (one per version: ``foresight``)."""

    def busy(self) -> bool:
        """Whether the answer to the previous ``hello`` is still being sent."""
        return self.sent < self.answered_at

    def send(self, message: GameMessage) -> None:
        self.send_text(messages.encode(message))

    def send_text(self, text: str) -> None:
        if self.stopped:
            return
        if self.outbox.qsize() >= MAX_BACKLOG:
            self.stop()
        else:
            self.queued += 1
            self.outbox.put_nowait(text)

    def stop(self) -> None:
        if not self.stopped:
            self.stopped = True
            self.outbox.put_nowait(None)


class Reply:
    """Who is owed an ``ack`` for a request: the connection that sent it and the request's ``id``.

    The engine is the one owner of every acknowledgement: it is handed the reply with the request
    and sends the ``ack`` once the change is committed (an action's before its ``update``, as
    docs/protocol.md says; a request's after what it caused was sent to everyone)."""

    def __init__(self, client: Client, msg_id: str | None) -> None:
        self.client = client
        self.msg_id = msg_id

    def ack(self, version: int) -> None:
        self.client.send(messages.ack(self.msg_id, version))
