"""The games being played now that anyone may watch (``GET /api/games/live``, the Watch page, TV).

Which games are listed: every game being played (``status = 'playing'``) that is not unlisted
(``games.unlisted``, written by the game factory). The lobby's games (seeks, quick pairing,
challenges, games against the AI levels' accounts, tournament boards) are always listed: their
players met in public. A game against a friend by invite link or against the AI from the home page
is listed unless its creator chose "unlisted"; a hot-seat game and the tutorial are never listed
(both seats at one screen: nobody else plays in them). A game waiting for its invited player is
not being played yet.

Order: rated games first, then by the players' mean rating in the game's pool (a guest, an account
never rated there, or a game with no pool — one not made in the lobby — counts as 1500, as in
quick pairing; an AI level's account by its fixed anchor), then the newest first. What is listed
is public anyway (names, ratings, the clock, how many actions were played): a spectator view,
nothing of the hands.

Cost: one query over the running games (``games.status`` is indexed) with each seat's rating as a
subquery, sorted, then the actions and clocks of the ``limit`` listed games only; no game's state is
loaded or replayed (``tools/live_games_cost.py`` measures it, docs/community.md).
"""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

from sqlalchemy import Connection, case, func, select

from kahuna.server.accounts.passwords import LEVEL_PREFIX
from kahuna.server.community.ratings import ANCHORS
from kahuna.server.db.schema import accounts, actions, clocks, game_accounts, games
from kahuna.server.db.schema import ratings as rating_rows
from kahuna.server.db.store import TAKEBACK
from kahuna.server.db.writer import Writer

MAX_LIMIT = 50
DEFAULT_LIMIT = 20
UNRATED = 1500.0
"""What a guest, or an account with no rating in the pool, counts as in the order."""


def live_games(conn: Connection, limit: int, now: float | None = None) -> list[dict[str, Any]]:
    """Up to ``limit`` running listed games, rated first, best rated first (see the module)."""
    rating0, rating1 = _rating(0), _rating(1)
    mean = (func.coalesce(rating0, UNRATED) + func.coalesce(rating1, UNRATED)) / 2
    rows = conn.execute(
        select(
            games.c.id,
            games.c.created,
            games.c.name0,
            games.c.name1,
            games.c.kind0,
            games.c.kind1,
            func.coalesce(game_accounts.c.rated, False).label("rated"),
            game_accounts.c.pool,
            game_accounts.c.account0,
            game_accounts.c.account1,
            rating0.label("rating0"),
            rating1.label("rating1"),
        )
        .outerjoin(game_accounts, game_accounts.c.game_id == games.c.id)
        .where(games.c.status == "playing", games.c.unlisted.is_(False))
        .order_by(func.coalesce(game_accounts.c.rated, False).desc(), mean.desc(), games.c.created.desc(), games.c.id)
        .limit(limit)
    ).all()
    ids = [row.id for row in rows]
    played = {
        game_id: count
        for game_id, count in conn.execute(
            select(actions.c.game_id, func.count())
            .where(actions.c.game_id.in_(ids), actions.c.token != TAKEBACK)
            .group_by(actions.c.game_id)
        )
    }
    taken_back = {
        game_id: count
        for game_id, count in conn.execute(
            select(actions.c.game_id, func.count())
            .where(actions.c.game_id.in_(ids), actions.c.token == TAKEBACK)
            .group_by(actions.c.game_id)
        )
    }
    timed = {row.game_id: row for row in conn.execute(select(clocks).where(clocks.c.game_id.in_(ids)))}
    at = time.time() if now is None else now
    listed = []
    for row in rows:
        players = []
        for seat in (0, 1):
            account = row.account0 if seat == 0 else row.account1
            rating = row.rating0 if seat == 0 else row.rating1
            players.append(
                {
                    "name": row.name0 if seat == 0 else row.name1,
                    # "human", or "ai:<level>": the page names a level in its own language
                    "kind": row.kind0 if seat == 0 else row.kind1,
                    "account": account is not None,
                    "rating": None if account is None or row.pool is None else round(rating or UNRATED),
                }
            )
        listed.append(
            {
                "game_id": row.id,
                "players": players,
                "rated": bool(row.rated),
                "pool": row.pool,
                "clock": None if row.id not in timed else _clock(timed[row.id], at),
                # each take-back removes the action before it (``games/live.as_played``)
                "moves": played.get(row.id, 0) - taken_back.get(row.id, 0),
                "created": row.created,
                "watch_url": f"/watch/{row.id}",
            }
        )
    return listed


def listed_of(conn: Connection, game_ids: list[str]) -> set[str]:
    """Which of ``game_ids`` are listed games (what the following list may name: an unlisted or
    hot-seat game is shown to nobody who does not hold its link)."""
    if not game_ids:
        return set()
    rows = conn.execute(select(games.c.id).where(games.c.id.in_(game_ids), games.c.unlisted.is_(False)))
    return {game_id for (game_id,) in rows}


def _rating(seat: int) -> Any:
    """The rating of a seat's account in the game's pool, as its profile shows it: an AI level's
    fixed anchor (``ratings.anchor_of``), else its stored rating; ``NULL`` for none (a guest, or
    never rated there)."""
    account_id = game_accounts.c.account0 if seat == 0 else game_accounts.c.account1
    anchors = [
        ((accounts.c.username == f"{LEVEL_PREFIX}{level}") & accounts.c.is_bot.is_(True), anchor)
        for level, anchor in ANCHORS.items()
    ]
    anchor = select(case(*anchors, else_=None)).where(accounts.c.id == account_id).scalar_subquery()
    stored = (
        select(rating_rows.c.rating)
        .where(rating_rows.c.account_id == account_id, rating_rows.c.pool == game_accounts.c.pool)
        .scalar_subquery()
    )
    return func.coalesce(anchor, stored)


def _clock(row: Any, now: float) -> dict[str, Any]:
    """The time control and each seat's seconds left now (the running clock counted down)."""
    remaining = [float(row.remaining0), float(row.remaining1)]
    if row.running is not None and row.since is not None:
        remaining[row.running] = max(0.0, remaining[row.running] - (now - float(row.since)))
    return {"control": json.loads(row.control), "remaining": [round(r, 3) for r in remaining], "running": row.running}


FRESH_SECONDS = 1.0
"""How long one reading of the list serves every request: the list is the same for everyone, and
the Watch page, TV and the lobby of every visitor ask for it."""


class LiveList:
    """The live list read at most once per :data:`FRESH_SECONDS` (its :data:`MAX_LIMIT` entries; a
    smaller ``limit`` is their beginning), by one reading at a time however many requests come at
    once: under load a reading waits for the database's threads, and each request used to add
    one (``kahuna bench server --probe``, docs/community.md). Built once at assembly, given to
    ``http/live_games.py``."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self._read_at = float("-inf")
        self._games: list[dict[str, Any]] = []
        self._reading: asyncio.Task[list[dict[str, Any]]] | None = None

    async def first(self, limit: int) -> list[dict[str, Any]]:
        if time.monotonic() - self._read_at > FRESH_SECONDS:
            if self._reading is None:
                self._reading = asyncio.ensure_future(self.writer.read(lambda conn: live_games(conn, MAX_LIMIT)))
                try:
                    began = time.monotonic()
                    self._games = await asyncio.shield(self._reading)
                    self._read_at = began
                finally:
                    self._reading = None
            else:
                await asyncio.shield(self._reading)
        return self._games[:limit]
