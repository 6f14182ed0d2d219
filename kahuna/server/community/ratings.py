"""Rated games: the accounts' Glicko-2 ratings per pool, and their history.

A game paired by the community (a seek accepted, a quick pairing, a challenge) has a row of
``game_accounts`` naming the account of each seat and whether it is rated (written by the game
factory). :func:`rate_game` subscribes to the games' end hook (``games/ended.py``): when a rated
game ends (on the board, by resignation or by timeout) it runs inside the transaction that stores
the end, claims the row with a conditional update (so it counts once, whichever instance stores
the end) and updates both players' ratings of the game's pool: ``realtime`` or
``correspondence`` (a correspondence clock counts days). Every update is a row of
``rating_history`` for the profile's graph and each game's rating change.

A game is not rated when it ends before both players have finished a turn (an abort, or a
resignation or timeout in the first turns), as lichess does not rate such games either.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select, update

from kahuna.rules import GameState
from kahuna.server.community import glicko2
from kahuna.server.db.schema import game_accounts, rating_history, ratings
from kahuna.server.games.ended import GameEnded
from kahuna.server.games.factory import POOLS

TRUSTED_BELOW = 75.0
"""A rating whose deviation is below this is trusted: it is ranked on the leaderboard (lichess's rule)."""
PROVISIONAL_FROM = 110.0
"""A rating whose deviation is at least this is provisional: shown with a question mark (lichess's rule)."""


def both_finished_a_turn(state: GameState) -> bool:
    return {seat for seat, action in state.history if action.ends_turn} == {0, 1}


def current(conn: Connection, account_id: int, pool: str) -> tuple[glicko2.Rating, int]:
    """An account's rating in ``pool`` and its number of rated games there (locked until commit
    where the database can: two games of one player ending at once on two instances)."""
    query = select(ratings).where(ratings.c.account_id == account_id, ratings.c.pool == pool).with_for_update()
    row = conn.execute(query).mappings().first()
    if row is None:
        return glicko2.Rating(), 0
    return glicko2.Rating(row["rating"], row["deviation"], row["volatility"]), row["games"]


def rate_game(conn: Connection, ended: GameEnded) -> bool:
    """Update the ratings of a rated game that has just ended, once; ``True`` if it did.

    Called in the transaction that stores the end (the end hook), so the result and the ratings
    are committed together or not at all."""
    game_id, state, at = ended.game_id, ended.state, ended.at
    row = conn.execute(select(game_accounts).where(game_accounts.c.game_id == game_id)).mappings().first()
    if row is None or not row["rated"] or row["rated_at"] is not None or state.outcome is None:
        return False
    if state.outcome.reason == "aborted" or not both_finished_a_turn(state):
        return False
    claim = (
        update(game_accounts)
        .where(game_accounts.c.game_id == game_id, game_accounts.c.rated_at.is_(None))
        .values(rated_at=at)
    )
    if conn.execute(claim).rowcount != 1:
        return False
    pool = row["pool"]
    accounts = (row["account0"], row["account1"])
    assert accounts[0] is not None and accounts[1] is not None and pool in POOLS
    winner = state.outcome.winner
    score = 0.5 if winner is None else 1.0 if winner == 0 else 0.0
    (first, games0), (second, games1) = current(conn, accounts[0], pool), current(conn, accounts[1], pool)
    after = glicko2.game(first, second, score)
    for account, before, new, games in zip(accounts, (first, second), after, (games0, games1), strict=True):
        values = {"rating": new.rating, "deviation": new.deviation, "volatility": new.volatility, "games": games + 1}
        if games == 0:  # a row exists once a game was rated in the pool
            conn.execute(ratings.insert().values(account_id=account, pool=pool, **values))
        else:
            conn.execute(
                update(ratings).where(ratings.c.account_id == account, ratings.c.pool == pool).values(**values)
            )
        conn.execute(
            rating_history.insert().values(
                account_id=account,
                pool=pool,
                game_id=game_id,
                before=before.rating,
                after=new.rating,
                deviation=new.deviation,
                at=at,
            )
        )
    return True


def ratings_of(conn: Connection, account_id: int) -> dict[str, dict[str, Any]]:
    """An account's ratings in both pools, as the API shows them."""
    rows = {
        row["pool"]: row for row in conn.execute(select(ratings).where(ratings.c.account_id == account_id)).mappings()
    }
    out = {}
    for pool in POOLS:
        row = rows.get(pool)
        rating = glicko2.Rating() if row is None else glicko2.Rating(row["rating"], row["deviation"], row["volatility"])
        out[pool] = shown(rating, 0 if row is None else row["games"])
    return out


def shown(rating: glicko2.Rating, games: int) -> dict[str, Any]:
    return {
        "rating": round(rating.rating),
        "deviation": round(rating.deviation),
        "games": games,
        "provisional": rating.deviation >= PROVISIONAL_FROM,
    }


def rating_for_seek(conn: Connection, account_id: int | None, pool: str | None) -> int | None:
    """The rating shown beside a seek (``None`` for a guest or an untimed seek)."""
    if account_id is None or pool is None:
        return None
    row = conn.execute(
        select(ratings.c.rating).where(ratings.c.account_id == account_id, ratings.c.pool == pool)
    ).scalar()
    return round(glicko2.Rating().rating if row is None else row)
