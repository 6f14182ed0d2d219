"""A player's lobby games as a profile shows them: the statistics (per pool and against each AI
level, the best win, the longest winning streak) and the games list, filtered and paged.

Both read the same rows (:func:`scan`): the player's :data:`SCAN_LIMIT` newest lobby games (games
made by invitation link have no accounts and are not the profile's), in one query, then the
rating changes of those games (by game id, in chunks of 500). So a profile costs a bounded read,
whatever the number of games a player has; a player with more games than that has statistics of
the newest ones (the answer says so: ``"scanned"``).
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, case, func, or_, select

from kahuna.server.community import ratings
from kahuna.server.db.schema import game_accounts, games, rating_history
from kahuna.server.games.live import AI_PREFIX

SCAN_LIMIT = 10_000
"""Newest games read for the statistics and the list."""
CHUNK = 500
"""Game ids asked for in one query of their rating changes."""
PAGE_SIZE = 20
"""Games on one page of the list."""
RESULTS = ("win", "loss", "draw")
UNTIMED = "untimed"
"""The pool of a game without a clock (casual only)."""


@dataclass(frozen=True)
class Played:
    """One lobby game as the player saw it."""

    game_id: str
    seat: int
    opponent: str | None
    opponent_account: int | None
    level: str | None
    """The AI level played against, if it was one."""
    rated: bool
    pool: str | None
    status: str
    result: str | None
    """``win``, ``loss``, ``draw``, ``aborted``, or ``None`` while it is played."""
    ended: str | None
    opponent_rating: float | None
    """The opponent's rating before a rated game (an AI level's: its fixed anchor)."""
    rating_before: float | None
    rating_after: float | None

    def public(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "seat": self.seat,
            "opponent": self.opponent,
            "rated": self.rated,
            "pool": self.pool,
            "status": self.status,
            "result": self.result,
            "ended": self.ended,
            "rating_before": None if self.rating_before is None else round(self.rating_before),
            "rating_after": None if self.rating_after is None else round(self.rating_after),
        }


def _outcome(result_text: str | None, seat: int) -> str | None:
    if not result_text:
        return None
    result = json.loads(result_text)
    if result.get("reason") == "aborted":
        return "aborted"
    winner = result.get("winner")
    return "draw" if winner is None else "win" if winner == seat else "loss"


def _changes(conn: Connection, game_ids: list[str]) -> dict[tuple[str, int], Any]:
    """The rating changes of these games, by (game, account): read by game id (indexed), in chunks."""
    found: dict[tuple[str, int], Any] = {}
    for start in range(0, len(game_ids), CHUNK):
        chunk = game_ids[start : start + CHUNK]
        query = select(rating_history).where(rating_history.c.game_id.in_(chunk), rating_history.c.kind == "game")
        for row in conn.execute(query):
            found[(row.game_id, row.account_id)] = row
    return found


def scan(conn: Connection, account_id: int, limit: int = SCAN_LIMIT) -> list[Played]:
    """The player's newest lobby games, newest first (at most ``limit``)."""
    rows = (
        conn.execute(
            select(
                game_accounts,
                games.c.name0,
                games.c.name1,
                games.c.kind0,
                games.c.kind1,
                games.c.result,
                games.c.status,
                games.c.updated,
            )
            .join(games, games.c.id == game_accounts.c.game_id)
            .where(or_(game_accounts.c.account0 == account_id, game_accounts.c.account1 == account_id))
            .order_by(games.c.created.desc(), games.c.id.desc())
            .limit(limit)
        )
        .mappings()
        .all()
    )
    changes = _changes(conn, [row["game_id"] for row in rows if row["rated"]])
    played = []
    for row in rows:
        seat = 0 if row["account0"] == account_id else 1
        other = 1 - seat
        kind = row[f"kind{other}"] or ""
        level = kind[len(AI_PREFIX) :] if kind.startswith(AI_PREFIX) else None
        mine = changes.get((row["game_id"], account_id))
        theirs = changes.get((row["game_id"], row[f"account{other}"]))
        their_rating = None if theirs is None else theirs.before
        if their_rating is None and level is not None and row["rated"]:
            their_rating = ratings.ANCHORS.get(level)
        played.append(
            Played(
                game_id=row["game_id"],
                seat=seat,
                opponent=row[f"name{other}"],
                opponent_account=row[f"account{other}"],
                level=level,
                rated=bool(row["rated"]),
                pool=row["pool"],
                status=row["status"],
                result=_outcome(row["result"], seat),
                ended=row["updated"] if row["status"] == "over" else None,
                opponent_rating=their_rating if row["rated"] else None,
                rating_before=None if mine is None else mine.before,
                rating_after=None if mine is None else mine.after,
            )
        )
    return played


def _mark(conn: Connection, account_id: int) -> tuple[int, int]:
    """What a scan of the player's games depends on: how many lobby games it has, and how many of
    them are over (a game enters the scan when it starts and changes once, when it ends, with its
    rating changes in the same transaction). One indexed count, not the scan."""
    mine = or_(game_accounts.c.account0 == account_id, game_accounts.c.account1 == account_id)
    over = func.count(case((games.c.status == "over", 1)))
    query = select(func.count(), over).select_from(game_accounts.join(games, games.c.id == game_accounts.c.game_id))
    total, ended = conn.execute(query.where(mine)).one()
    return int(total), int(ended)


class PlayedCache:
    """The latest scans, each kept with the :func:`_mark` it was made at: a player's profile and
    games list are read again without a scan until a game of the player starts or ends. Views of a
    busy player's profile then cost a count each, not a scan of up to ``SCAN_LIMIT`` games (issue
    45). Shared by the threads the scans run in; ``size`` players are kept, the least recently
    read dropped first."""

    def __init__(self, size: int = 256) -> None:
        self.size = size
        self._scans: OrderedDict[int, tuple[tuple[int, int], list[Played]]] = OrderedDict()
        self._lock = threading.Lock()

    def played(self, conn: Connection, account_id: int) -> list[Played]:
        """:func:`scan`'s answer, from the cache while the player's games are as they were."""
        mark = _mark(conn, account_id)  # before the scan: a game ending meanwhile makes it stale, not lost
        with self._lock:
            kept = self._scans.get(account_id)
            if kept is not None and kept[0] == mark:
                self._scans.move_to_end(account_id)
                return kept[1]
        played = scan(conn, account_id)
        with self._lock:
            self._scans[account_id] = (mark, played)
            self._scans.move_to_end(account_id)
            while len(self._scans) > self.size:
                self._scans.popitem(last=False)
        return played


def _tally() -> dict[str, int]:
    return {"games": 0, "wins": 0, "losses": 0, "draws": 0}


def stats(played: list[Played]) -> dict[str, Any]:
    """Wins, losses and draws per pool (``realtime``, ``correspondence``, ``untimed``) and against
    each AI level; the best win (the highest-rated opponent beaten in a rated game, rated by the
    rating before that game); the longest run of consecutive wins. Finished games only; an aborted
    game counts nowhere."""
    pools = {pool: _tally() for pool in ("realtime", "correspondence", UNTIMED)}
    levels: dict[str, dict[str, int]] = {}
    best: Played | None = None
    streak = longest = 0
    for game in reversed(played):  # oldest first, for the streak
        if game.result not in RESULTS:
            continue
        key = {"win": "wins", "loss": "losses", "draw": "draws"}[game.result]
        tallies = [pools[game.pool or UNTIMED]]
        if game.level is not None:
            tallies.append(levels.setdefault(game.level, _tally()))
        for tally in tallies:
            tally["games"] += 1
            tally[key] += 1
        if game.result == "win":
            streak += 1
            longest = max(longest, streak)
            rating = game.opponent_rating
            if rating is not None and (best is None or rating > (best.opponent_rating or 0.0)):
                best = game
        else:
            streak = 0
    best_win = (
        None
        if best is None
        else {"game_id": best.game_id, "opponent": best.opponent, "rating": round(best.opponent_rating or 0.0)}
    )
    return {"pools": pools, "ai": levels, "best_win": best_win, "longest_streak": longest, "scanned": len(played)}


def page_of(played: list[Played], result: str | None, opponent: int | None, page: int) -> dict[str, Any]:
    """One page of the games list, newest first: of one result (``win``, ``loss``, ``draw``) and
    against one account, if asked; ``{"games", "page", "pages", "total"}``."""
    chosen = [
        game
        for game in played
        if (result is None or game.result == result) and (opponent is None or game.opponent_account == opponent)
    ]
    start = (page - 1) * PAGE_SIZE
    return {
        "games": [game.public() for game in chosen[start : start + PAGE_SIZE]],
        "page": page,
        "pages": max(1, -(-len(chosen) // PAGE_SIZE)),
        "total": len(chosen),
    }
