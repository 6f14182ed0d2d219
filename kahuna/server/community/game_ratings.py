"""The ratings of one game's players, for the game page (``GET /api/games/<id>/ratings``).

The game's messages (``games/messages.py``) carry whether it is rated; the players' ratings and a
rated game's rating change live with the community (``community/ratings.py``), which the game
room does not know of, so the game page asks here: when it opens, and again when the game is over.
The end hook writes the change in the transaction that stores the end, before the final ``sync`` or
``update`` is sent, so a page that asks after seeing the end finds it.

Each seat: ``rating``, the account's rating in the game's pool now, as its profile shows it (an AI
level's account: its fixed anchor; an account never rated there: 1500); ``before`` and ``after``,
the rating before and after this game once it was rated. A guest's seat, and every seat of a game
not made in the lobby (no pool), have none. ``paired``: the game has its players' accounts (a
lobby game, a signed-in player's game, their rematches), so the page marks it Rated or Casual.
``account``, each seat: whether an account plays it (``accounts.store.game_players``, what a report
of the seat is checked against), so that the page offers "Report opponent" against an account and
not against a guest, who has none to report (docs/moderation.md). All of it is public (profiles
show it).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from kahuna.server.accounts.store import game_players
from kahuna.server.community import glicko2
from kahuna.server.community.ratings import anchor_of
from kahuna.server.db.schema import game_accounts, games, rating_history, ratings
from kahuna.server.db.writer import Writer


def game_ratings(conn: Connection, game_id: str) -> dict[str, Any] | None:
    """The game's ratings (see the module); ``None``: no such game."""
    if conn.execute(select(games.c.id).where(games.c.id == game_id)).first() is None:
        return None
    row = conn.execute(select(game_accounts).where(game_accounts.c.game_id == game_id)).mappings().first()
    seated = game_players(conn, game_id)
    none: dict[str, int | None] = {"rating": None, "before": None, "after": None}
    if row is None or row["pool"] is None:
        unrated = [{**none, "account": seat in seated} for seat in (0, 1)]
        return {"rated": False, "paired": row is not None, "pool": None, "players": unrated}
    pool = row["pool"]
    changes = {
        history.account_id: history
        for history in conn.execute(
            select(rating_history.c.account_id, rating_history.c.before, rating_history.c.after).where(
                rating_history.c.game_id == game_id, rating_history.c.kind == "game"
            )
        )
    }
    players: list[dict[str, int | bool | None]] = []
    for seat, account in enumerate((row["account0"], row["account1"])):
        if account is None:
            players.append({**none, "account": seat in seated})
            continue
        anchor = anchor_of(conn, account)
        stored = conn.execute(
            select(ratings.c.rating).where(ratings.c.account_id == account, ratings.c.pool == pool)
        ).scalar()
        now = anchor.rating if anchor is not None else glicko2.Rating().rating if stored is None else stored
        change = changes.get(account)
        players.append(
            {
                "rating": round(now),
                "before": None if change is None else round(change.before),
                "after": None if change is None else round(change.after),
                "account": True,
            }
        )
    return {"rated": bool(row["rated"]), "paired": True, "pool": pool, "players": players}


class GameRatingService:
    """What ``GET /api/games/<id>/ratings`` reads (``http/game_ratings.py``), built at assembly."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer

    async def of(self, game_id: str) -> dict[str, Any] | None:
        """:func:`game_ratings` of ``game_id``; ``None``: no such game."""
        return await self.writer.read(lambda conn: game_ratings(conn, game_id))
