"""What every process that plays moves builds alike: the rooms that hear of every game's end.

The server (``app.py``) and ``kahuna worker`` (``run_worker.py``) both store moves that end games,
so both build their game engine with these subscribers; a room that must learn of ends (ratings,
the fair-play queue, tournaments' results) is added here, and the game core does not change.
"""

from __future__ import annotations

from kahuna.server.community import ratings, tournament_rows
from kahuna.server.fairplay import queue as fair_play
from kahuna.server.games.ended import EndHooks


def end_hooks() -> EndHooks:
    """The subscribers of the game-ended hook, each run inside the transaction that stores an end."""
    return EndHooks([ratings.rate_game, fair_play.enqueue, tournament_rows.record_result])
