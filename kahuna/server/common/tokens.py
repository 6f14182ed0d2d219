"""Unguessable identifiers: seat tokens and invites (192 bits), game ids (public, 72 bits).

Only the SHA-256 of a token or invite is stored, so a copy of the database cannot act for a seat.
"""

from __future__ import annotations

import hashlib
import secrets


def new_secret() -> str:
    """A seat token or invite code: 24 random bytes, URL-safe."""
    return secrets.token_urlsafe(24)


def new_game_id() -> str:
    """A game id: public (it is the spectator link) but not enumerable."""
    return secrets.token_urlsafe(9)


def digest(secret: str) -> str:
    """What is stored and compared instead of the secret itself."""
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def random_seed() -> int:
    """Seeds of deals, reshuffles and AI choices: never predictable."""
    return secrets.randbits(128)
