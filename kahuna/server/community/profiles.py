"""What public profiles and the leaderboard show (served by ``http/profiles.py``).

The leaderboard ranks the players whose rating is trusted (deviation below
``ratings.TRUSTED_BELOW``, 75, lichess's rule) and lists apart, unranked, the others who have
played rated games in the pool, those with a provisional rating (deviation of 110 or more) marked.
A deleted account is left out of both. Bot accounts (the AI levels' ``ai-<level>``, whose ratings
are fixed anchors, and players' bots) are no people: they are listed apart in ``computers``, ranked
among themselves, as lichess keeps bots off its leaderboards; ``players`` and ``unranked`` hold
people only.

A profile also carries the player's statistics (``player_games.stats``) and how many follow the
player and whom the player follows (``relations``).
"""

from __future__ import annotations

from collections.abc import Container
from typing import Any

from sqlalchemy import Connection, select

from kahuna.server.accounts import store as db
from kahuna.server.community import player_games, rating_marks, ratings, relations
from kahuna.server.community.bots import level_named, plays_games, run_by_server
from kahuna.server.db.schema import accounts, rating_history
from kahuna.server.db.schema import ratings as rating_rows
from kahuna.server.games.factory import POOLS

RECENT_GAMES = 50
"""Games a profile lists (the newest first)."""
HISTORY_POINTS = 500
"""Rating changes a profile returns per pool for its graph (the newest)."""
LEADERBOARD_SIZE = 100


def profile(
    conn: Connection, username: str, online: Container[int], scans: player_games.PlayedCache
) -> dict[str, Any] | None:
    """A player's public profile (``online``: the accounts online now, for its dot; ``scans``: the
    player's games, kept while they do not change)."""
    account = db.account_by_name(conn, username)
    if account is None:
        return None
    info = db.account_info(conn, account.id)
    played = scans.played(conn, account.id)
    changes = conn.execute(
        select(rating_history).where(rating_history.c.account_id == account.id).order_by(rating_history.c.id)
    ).mappings()
    history: dict[str, list[dict[str, Any]]] = {pool: [] for pool in POOLS}
    for row in changes:
        history[row["pool"]].append({"game_id": row["game_id"], "at": row["at"], "rating": round(row["after"])})
    return {
        "username": account.username,
        "is_bot": account.is_bot,
        "challengeable": plays_games(account),  # the page offers "Challenge" by it
        "reportable": not run_by_server(account),  # and "Report this player"
        "online": account.id in online,
        "created": info["created"],
        "ratings": ratings.ratings_of(conn, account.id),
        "history": {pool: points[-HISTORY_POINTS:] for pool, points in history.items()},
        "games": [game.public() for game in played[:RECENT_GAMES]],
        "stats": player_games.stats(played),
        **relations.follow_counts(conn, account.id),
    }


def leaderboard(conn: Connection, pool: str) -> dict[str, Any]:
    rows = conn.execute(
        select(rating_rows, accounts.c.username, accounts.c.is_bot)
        .join(accounts, accounts.c.id == rating_rows.c.account_id)
        .where(rating_rows.c.pool == pool, accounts.c.deleted.is_(None), ~rating_marks.is_marked(accounts.c.id))
        .order_by(rating_rows.c.rating.desc())
    ).mappings()
    trusted: list[dict[str, Any]] = []
    unranked: list[dict[str, Any]] = []
    computers: list[dict[str, Any]] = []
    for row in rows:
        entry = {
            "username": row["username"],
            "is_bot": bool(row["is_bot"]),
            "rating": round(row["rating"]),
            "deviation": round(row["deviation"]),
            "games": row["games"],
            "provisional": row["deviation"] >= ratings.PROVISIONAL_FROM,
        }
        if entry["is_bot"]:
            if len(computers) < LEADERBOARD_SIZE:
                level = level_named(row["username"])
                computers.append({"rank": len(computers) + 1, "level": level, **entry})
        elif row["deviation"] < ratings.TRUSTED_BELOW:
            if len(trusted) < LEADERBOARD_SIZE:
                trusted.append({"rank": len(trusted) + 1, **entry})
        elif len(unranked) < LEADERBOARD_SIZE:
            unranked.append(entry)
    return {
        "pool": pool,
        "trusted_below": ratings.TRUSTED_BELOW,
        "players": trusted,
        "unranked": unranked,
        "computers": computers,
    }
