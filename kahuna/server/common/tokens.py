"""Unguessable identifiers: seat tokens and invites (192 bits), game and tournament ids (public, 72 bits).

Only the SHA-256 of a token or invite is stored, so a copy of the database cannot act for a seat.
None of them begins with "-": people paste them after a command-line option
(``kahuna bot --tournament ID``), and an id read as an option would be refused.
"""

from __future__ import annotations

import hashlib
import secrets


def _url_safe(nbytes: int) -> str:
    """``secrets.token_urlsafe`` drawn again until it does not begin with "-" (1 draw in 64 does)."""
    while True:
        token = secrets.token_urlsafe(nbytes)
        if not token.startswith("-"):
            return token


def new_secret() -> str:
    """A seat token or invite code: 24 random bytes, URL-safe."""
    return _url_safe(24)


def new_game_id() -> str:
    """A game or tournament id: public (it is the spectator link) but not enumerable."""
    return _url_safe(9)


def digest(secret: str) -> str:
    """What is stored and compared instead of the secret itself."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()
