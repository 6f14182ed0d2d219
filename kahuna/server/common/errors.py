"""The refusal that every room of the server raises, whatever asked: an HTTP request, a WebSocket
frame or a lobby message.

It lives here, below every room, because everything refuses something: the HTTP layer turns it
into a JSON error with its status (``http/common.py``), the game socket into an ``error``
message (docs/protocol.md), and nothing else needs to know which.
"""

from __future__ import annotations

from typing import Any


class Rejected(Exception):
    """A request the server refuses; ``code`` is the protocol's error code, ``extra`` more fields of
    the error (``reason`` of an illegal action, ``retry_after`` of a rate limit)."""

    def __init__(self, code: str, message: str, status: int = 400, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.extra = extra
