"""Games written straight into a database by tests, without a server in front."""

from __future__ import annotations

from typing import Any

from kahuna.server.db.store import StoredGame


def stored_game(game_id: str, deal: str = "", **fields: Any) -> StoredGame:
    """A game between two human seats with no action yet, no seat token and no clock, as
    ``store.insert_game`` takes it; ``fields`` set any other :class:`StoredGame` field."""
    defaults: dict[str, Any] = {
        "created": "2026-01-01T00:00:00Z",
        "updated": "2026-01-01T00:00:00Z",
        "variant": {},
        "kinds": ["human", "human"],
        "names": ["A", "B"],
        "invite": None,
        "seat_tokens": [None, None],
        "status": "playing",
        "reshuffles": [],
        "actions": [],
    }
    return StoredGame(game_id=game_id, deal=deal, **{**defaults, **fields})
