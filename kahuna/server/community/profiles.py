"""What public profiles and the leaderboard show (served by ``http/profiles.py``).

The leaderboard ranks the players whose rating is trusted (deviation below
``ratings.TRUSTED_BELOW``, 75, lichess's rule) and lists apart, unranked, the others who have
played rated games in the pool, those with a provisional rating (deviation of 110 or more) marked.
A deleted account is left out of both.
"""

from __future__ import annotations

import json
from typing import Any

from sqlalchemy import Connection, or_, select

from kahuna.server.accounts import store as db
from kahuna.server.community import ratings
from kahuna.server.db.schema import accounts, game_accounts, games, rating_history
from kahuna.server.db.schema import ratings as rating_rows
from kahuna.server.games.factory import POOLS

RECENT_GAMES = 50
"""Games a profile lists (the newest first)."""
HISTORY_POINTS = 500
"""Rating changes a profile returns per pool for its graph (the newest)."""
LEADERBOARD_SIZE = 100


def profile(conn: Connection, username: str) -> dict[str, Any] | None:
    account = db.account_by_name(conn, username)
    if account is None:
        return None
    info = db.account_info(conn, account.id)
    played = conn.execute(
        select(game_accounts, games.c.name0, games.c.name1, games.c.result, games.c.status, games.c.updated)
        .join(games, games.c.id == game_accounts.c.game_id)
        .where(or_(game_accounts.c.account0 == account.id, game_accounts.c.account1 == account.id))
        .order_by(games.c.created.desc())
        .limit(RECENT_GAMES)
    ).mappings()
    changes = {
        row["game_id"]: row
        for row in conn.execute(select(rating_history).where(rating_history.c.account_id == account.id)).mappings()
    }
    recent = []
    for row in played:
        seat = 0 if row["account0"] == account.id else 1
        result = json.loads(row["result"]) if row["result"] else None
        winner = None if result is None else result.get("winner")
        outcome = None if result is None else "draw" if winner is None else "win" if winner == seat else "loss"
        if result is not None and result.get("reason") == "aborted":
            outcome = "aborted"
        change = changes.get(row["game_id"])
        recent.append(
            {
                "game_id": row["game_id"],
                "seat": seat,
                "opponent": row[f"name{1 - seat}"],
                "rated": bool(row["rated"]),
                "pool": row["pool"],
                "status": row["status"],
                "result": outcome,
                "ended": row["updated"] if row["status"] == "over" else None,
                "rating_before": None if change is None else round(change["before"]),
                "rating_after": None if change is None else round(change["after"]),
            }
        )
    history: dict[str, list[dict[str, Any]]] = {pool: [] for pool in POOLS}
    newest = sorted(changes.values(), key=lambda row: row["id"])
    for row in newest:
        history[row["pool"]].append({"game_id": row["game_id"], "at": row["at"], "rating": round(row["after"])})
    return {
        "username": account.username,
        "is_bot": account.is_bot,
        "created": info["created"],
        "ratings": ratings.ratings_of(conn, account.id),
        "history": {pool: points[-HISTORY_POINTS:] for pool, points in history.items()},
        "games": recent,
    }


def leaderboard(conn: Connection, pool: str) -> dict[str, Any]:
    rows = conn.execute(
        select(rating_rows, accounts.c.username, accounts.c.is_bot)
        .join(accounts, accounts.c.id == rating_rows.c.account_id)
        .where(rating_rows.c.pool == pool, accounts.c.deleted.is_(None))
        .order_by(rating_rows.c.rating.desc())
    ).mappings()
    trusted: list[dict[str, Any]] = []
    unranked: list[dict[str, Any]] = []
    for row in rows:
        entry = {
            "username": row["username"],
            "is_bot": bool(row["is_bot"]),
            "rating": round(row["rating"]),
            "deviation": round(row["deviation"]),
            "games": row["games"],
            "provisional": row["deviation"] >= ratings.PROVISIONAL_FROM,
        }
        if row["deviation"] < ratings.TRUSTED_BELOW:
            if len(trusted) < LEADERBOARD_SIZE:
                trusted.append({"rank": len(trusted) + 1, **entry})
        elif len(unranked) < LEADERBOARD_SIZE:
            unranked.append(entry)
    return {"pool": pool, "trusted_below": ratings.TRUSTED_BELOW, "players": trusted, "unranked": unranked}
