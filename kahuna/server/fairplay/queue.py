"""The rated games between people waiting for their fair-play screening, and who screens each.

A game enters the queue in the transaction that rates it (:func:`enqueue`, a subscriber of the
game-ended hook after ``ratings.rate_game``), so every game that changed two people's ratings is
queued once and no other game is: not a game against an AI level or an online bot (a bot account),
not a casual or hot-seat game, not a game that ended unrated (an abort, an end before both players
finished a turn, a marked player's).

A screener (one per instance) takes the oldest pending game with a claim, one conditional
``UPDATE`` as the tournaments' pairing claims are (``db/claims.py``): of several instances asking at
once one gets it. A claim lasts :data:`LEASE_SECONDS`; an instance killed while screening leaves a
claim that lapses, and another takes the game over. The figures are stored by the claim's holder
only (:func:`finish`, in the transaction that marks the game ``done``), so a game is screened
into the figures once, however many instances and restarts it meets; a game that failed
:data:`MAX_ATTEMPTS` claims is set aside (``failed``) rather than retried for ever.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, func, insert, or_, select, update

from kahuna.server.community.exports import record_of
from kahuna.server.db import store
from kahuna.server.db.schema import accounts, fair_play_figures, fair_play_games, game_accounts
from kahuna.server.db.store import TAKEBACK
from kahuna.server.games.ended import GameEnded

PENDING, DONE, FAILED = "pending", "done", "failed"
LEASE_SECONDS = 300.0
"""How long a claim holds before another screener may take the game over (a game's screening
takes well under a second; the lease covers a backlog in the pool's lowest lane)."""
MAX_ATTEMPTS = 3
"""Claims of one game before it is set aside as ``failed``."""


def enqueue(conn: Connection, ended: GameEnded) -> None:
    """End-hook subscriber: queue the game if it was rated at this end between two people."""
    row = conn.execute(select(game_accounts).where(game_accounts.c.game_id == ended.game_id)).first()
    if row is None or not row.rated or row.rated_at != ended.at or row.account0 is None or row.account1 is None:
        return
    bots = conn.execute(select(accounts.c.is_bot).where(accounts.c.id.in_([row.account0, row.account1]))).scalars()
    if any(bots):
        return
    conn.execute(insert(fair_play_games).values(game_id=ended.game_id, status=PENDING, queued=time.time()))


def _claimable(now: float) -> Any:
    return and_(
        fair_play_games.c.status == PENDING,
        or_(fair_play_games.c.claimed_until.is_(None), fair_play_games.c.claimed_until < now),
    )


def claim(conn: Connection, screener: str, now: float, lease: float = LEASE_SECONDS) -> str | None:
    """The oldest pending game no live claim holds, now claimed by ``screener``; ``None`` when
    there is none (or another screener took it first: the next pass asks again)."""
    row = conn.execute(
        select(fair_play_games.c.game_id, fair_play_games.c.attempts)
        .where(_claimable(now))
        .order_by(fair_play_games.c.queued, fair_play_games.c.game_id)
        .limit(1)
    ).first()
    if row is None:
        return None
    if row.attempts >= MAX_ATTEMPTS:
        conn.execute(
            update(fair_play_games)
            .where(fair_play_games.c.game_id == row.game_id, _claimable(now))
            .values(status=FAILED, claimed_by=None)
        )
        return None
    taken = conn.execute(
        update(fair_play_games)
        .where(fair_play_games.c.game_id == row.game_id, _claimable(now))
        .values(claimed_by=screener, claimed_until=now + lease, attempts=fair_play_games.c.attempts + 1)
    )
    return str(row.game_id) if taken.rowcount == 1 else None


@dataclass(frozen=True)
class Inputs:
    """What a game's screening reads: its record, when each action was stored, its accounts."""

    record: dict[str, Any]
    times: list[float]
    accounts: tuple[int, int]


def _epoch(stamp: str) -> float:
    return datetime.fromisoformat(stamp.replace("Z", "+00:00")).timestamp()


def inputs(conn: Connection, game_id: str) -> Inputs | None:
    """The game's record and action times (an archived game's too); ``None`` if it is gone."""
    stored = store.load_game(conn, game_id)
    players = conn.execute(
        select(game_accounts.c.account0, game_accounts.c.account1).where(game_accounts.c.game_id == game_id)
    ).first()
    if stored is None or players is None or players.account0 is None or players.account1 is None:
        return None
    rows = store.archived_rows(conn, game_id) or store.per_action_rows(conn, game_id)
    times: list[float] = []
    for _seat, token, at in rows.actions:  # as ``as_played``: a take-back removes the action before it
        if token == TAKEBACK:
            times.pop()
        else:
            times.append(_epoch(at))
    return Inputs(record_of(stored), times, (int(players.account0), int(players.account1)))


def finish(
    conn: Connection, game_id: str, screener: str, figures: dict[int, tuple[int, dict[str, Any], float]], now: float
) -> bool:
    """Store the figures of a claimed game (account → seat, figures, suspicion) and mark it
    done, if ``screener`` still holds its claim; ``False`` (nothing stored) if another took it
    over or it was done already."""
    done = conn.execute(
        update(fair_play_games)
        .where(
            fair_play_games.c.game_id == game_id,
            fair_play_games.c.status == PENDING,
            fair_play_games.c.claimed_by == screener,
        )
        .values(status=DONE, screened=now, claimed_until=None)
    )
    if done.rowcount != 1:
        return False
    for account_id, (seat, found, suspicion) in figures.items():
        conn.execute(
            insert(fair_play_figures).values(
                game_id=game_id,
                account_id=account_id,
                seat=seat,
                at=now,
                figures=json.dumps(found),
                suspicion=suspicion,
            )
        )
    return True


def backlog(conn: Connection) -> int:
    """Games waiting for their screening."""
    query = select(func.count()).select_from(fair_play_games).where(fair_play_games.c.status == PENDING)
    return int(conn.execute(query).scalar_one())


def drop(conn: Connection, game_id: str) -> None:
    """Set aside a queued game whose record is gone."""
    conn.execute(update(fair_play_games).where(fair_play_games.c.game_id == game_id).values(status=FAILED))
