"""Rated games between the same two people: at most :data:`RATED_PER_PAIR` in
:data:`WINDOW_SECONDS` change ratings (issue 27: rating farming against one's own second account).

The game factory asks :func:`limit_reached` in the transaction that stores every paired game, so
whatever starts a rated game (an accepted seek, quick pairing, a challenge, a tournament to come)
meets the rule in one place; from the fourth game on, the game still starts, as casual, with the
reason ``pair_limit`` kept in its ``game_accounts`` row, and both seats are told before the first
move (the lobby's answers, the game's ``sync``). The lobby page asks :func:`limited_opponents`
beforehand, to mark the seeks that would start casual.

What counts: the pair's games that were started rated in the window, except those that ended
without changing ratings (an abort, an end before both finished a turn); a game still being played
counts, so that starting many at once does not get around the rule. A seat the server's AI plays
(an AI level's account, a fixed rating anchor) is not a person whose rating can be farmed: the rule
does not apply to it.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, Connection, and_, func, or_, select

from kahuna.server.db import store
from kahuna.server.db.schema import accounts, game_accounts, games

RATED_PER_PAIR = 3
"""Rated games between the same two accounts that change ratings in a window."""
WINDOW_SECONDS = 24 * 3600
"""The window: the 24 hours before a game starts."""
PAIR_LIMIT = "pair_limit"
"""The reason a game asked for as rated was started casual."""


def _counted(since: str) -> ColumnElement[bool]:
    """The condition of a counted game: rated, started since ``since``, and not ended unrated."""
    return and_(
        game_accounts.c.rated.is_(True),
        games.c.created >= since,
        or_(game_accounts.c.rated_at.is_not(None), games.c.status != "over"),
    )


def _epoch(stamp: str) -> float:
    """A time stamp as the database writes it (``store.iso``), in seconds since the epoch."""
    return datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()


def _since(moment: float) -> str:
    return store.iso(moment - WINDOW_SECONDS)


def limit_reached(conn: Connection, first: int, second: int, moment: float | None = None, lock: bool = True) -> bool:
    """Whether ``first`` and ``second`` have played their rated games of the window against each
    other. ``lock``: the two accounts' rows are locked first (in id order) where the database can,
    so that two games of the pair started at once on two instances are counted one after the other
    (the factory's check; a preview for the lobby's answers does not lock). ``FOR NO KEY UPDATE``:
    rows that refer to an account (a session, a token) can still be written meanwhile."""
    moment = time.time() if moment is None else moment
    if lock:
        pair = sorted((first, second))
        conn.execute(
            select(accounts.c.id).where(accounts.c.id.in_(pair)).order_by(accounts.c.id).with_for_update(key_share=True)
        )
    between = or_(
        and_(game_accounts.c.account0 == first, game_accounts.c.account1 == second),
        and_(game_accounts.c.account0 == second, game_accounts.c.account1 == first),
    )
    query = (
        select(func.count())
        .select_from(game_accounts.join(games, games.c.id == game_accounts.c.game_id))
        .where(between, _counted(_since(moment)))
    )
    return int(conn.execute(query).scalar() or 0) >= RATED_PER_PAIR


@dataclass(frozen=True)
class Limited:
    """An opponent with whom ``account`` has played its rated games of the window."""

    username: str
    games: int
    until: str
    """When the oldest of them leaves the window, and a rated game counts again."""


def limited_opponents(conn: Connection, account: int, moment: float | None = None) -> list[Limited]:
    """The opponents with whom ``account`` has reached the limit, now."""
    moment = time.time() if moment is None else moment
    since = _since(moment)
    found: dict[int, list[str]] = {}
    query = (
        select(game_accounts.c.account0, game_accounts.c.account1, games.c.created)
        .select_from(game_accounts.join(games, games.c.id == game_accounts.c.game_id))
        .where(or_(game_accounts.c.account0 == account, game_accounts.c.account1 == account), _counted(since))
    )
    for first, second, created in conn.execute(query):
        opponent = second if first == account else first
        if opponent is not None:
            found.setdefault(opponent, []).append(created)
    reached = {opponent: sorted(starts) for opponent, starts in found.items() if len(starts) >= RATED_PER_PAIR}
    if not reached:
        return []
    names = dict(conn.execute(select(accounts.c.id, accounts.c.username).where(accounts.c.id.in_(reached))).all())
    out = []
    for opponent, starts in reached.items():
        # The limit holds until enough of the counted games have left the window.
        oldest = starts[len(starts) - RATED_PER_PAIR]
        until = store.iso(_epoch(oldest) + WINDOW_SECONDS)
        out.append(Limited(names.get(opponent, ""), len(starts), until))
    return sorted(out, key=lambda limited: limited.username)
