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
resignation or timeout in the first turns), as lichess does not rate such games either; nor when a
moderator marked one of its players for cheating or rating manipulation while it was played
(``rating_marks.py``: a marked account is refused new rated games, and one already running takes
and gives no points when it ends).

**The AI levels are fixed anchors.** The bot account of an AI level (``ai-<level>``) plays at a
fixed strength, so its rating is fixed too (:data:`ANCHORS`): a rated game moves its opponent's
rating against the anchor and never the level's. Otherwise losing to ``ai-easy`` on purpose would
inflate it, and beating it afterwards would pay more than it should. The anchors are the arena's
Elo ladder of the levels (measured play, README and docs/ai.md) placed on the players' scale by one
offset, :data:`ANCHOR_OFFSET` (docs/community.md says how it was chosen).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select, update

from kahuna.rules import GameState
from kahuna.server.accounts.passwords import LEVEL_PREFIX
from kahuna.server.community import glicko2
from kahuna.server.community.rating_marks import marked
from kahuna.server.db.schema import accounts as account_rows
from kahuna.server.db.schema import game_accounts, rating_history, ratings
from kahuna.server.games.ended import GameEnded
from kahuna.server.games.factory import POOLS

TRUSTED_BELOW = 75.0
"""A rating whose deviation is below this is trusted: it is ranked on the leaderboard (lichess's rule)."""
PROVISIONAL_FROM = 110.0
"""A rating whose deviation is at least this is provisional: shown with a question mark (lichess's rule)."""
LADDER = {"random": 0, "easy": 661, "medium": 1056, "hard": 1357, "expert": 1482, "master": 1566, "grandmaster": 1772}
"""The arena's Elo ladder of the levels: ``kahuna arena random easy medium hard expert master
--games 100 --seed 9000 --jobs 2`` (a Bradley–Terry fit over 100 games per pairing, ``random`` at 0;
README and docs/ai.md). ``grandmaster`` is ``master`` + 206, its Elo difference over 400 games against
``master``: ``kahuna arena grandmaster master --clock 1+0 --games 200 --seed 7900 --jobs 2``
(154–45–1, 77.2 %, +212) and the same 100 held-out deals at ``--clock 3+2 --jobs 4`` (151–47–2,
76.0 %, +200), together 305–92–3, 76.6 %. Both ran on a clock, where the level spends a share of its
time left, as it does in people's rated real-time games (docs/ai.md)."""
ANCHOR_OFFSET = 1500 - LADDER["medium"]
"""Where the ladder sits on the players' scale: ``medium`` at 1500, the rating every account starts
with (the one free constant; the gaps between the levels are measured)."""
ANCHORS = {level: float(elo + ANCHOR_OFFSET) for level, elo in LADDER.items()}
"""The fixed rating of each AI level's bot account, in both pools."""
ANCHOR_DEVIATION = 50.0
"""The deviation an anchor plays with: about the width of the ladder's 95 % intervals (100 games
per pairing), so that a game against a level counts about as much as one against a trusted player."""


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


def anchor_of(conn: Connection, account_id: int) -> glicko2.Rating | None:
    """The fixed rating of an AI level's bot account (``None``: any other account)."""
    row = conn.execute(
        select(account_rows.c.username, account_rows.c.is_bot).where(account_rows.c.id == account_id)
    ).first()
    if row is None or not row.is_bot or not row.username.startswith(LEVEL_PREFIX):
        return None
    anchor = ANCHORS.get(row.username[len(LEVEL_PREFIX) :])
    return None if anchor is None else glicko2.Rating(anchor, ANCHOR_DEVIATION)


def pin_anchor(conn: Connection, account_id: int) -> None:
    """Set the stored ratings of an AI level's bot account to its anchor (at start-up: the
    leaderboard reads the rows, which may predate the anchors or an anchor's change)."""
    anchor = anchor_of(conn, account_id)
    if anchor is not None:
        conn.execute(
            update(ratings)
            .where(ratings.c.account_id == account_id)
            .values(rating=anchor.rating, deviation=anchor.deviation, volatility=anchor.volatility)
        )


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
    if marked(conn, row["account0"]) or marked(conn, row["account1"]):
        return False  # a player marked while the game was played: it takes and gives no points
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
    # The rows are locked in account order, not seat order: two games of the same two people
    # ending at once (on two instances) would otherwise each hold one row and wait for the other.
    held = {account: current(conn, account, pool) for account in sorted(accounts)}
    (first, games0), (second, games1) = held[accounts[0]], held[accounts[1]]
    anchors = anchor_of(conn, accounts[0]), anchor_of(conn, accounts[1])
    first, second = anchors[0] or first, anchors[1] or second
    moved = glicko2.game(first, second, score)
    after = [anchor or new for anchor, new in zip(anchors, moved, strict=True)]  # an anchor never moves
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
    anchor = anchor_of(conn, account_id)
    out = {}
    for pool in POOLS:
        row = rows.get(pool)
        rating = glicko2.Rating() if row is None else glicko2.Rating(row["rating"], row["deviation"], row["volatility"])
        out[pool] = shown(anchor or rating, 0 if row is None else row["games"])
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


GAME, REFUND = "game", "refund"
"""``rating_history.kind``: a rated game's change, or points given back (:func:`refund_opponents`)."""


def refund_opponents(conn: Connection, marked: int, since: str, at: str) -> list[dict[str, Any]]:
    """Give back to each opponent of ``marked`` the rating points it lost to ``marked`` in the rated
    games rated since ``since`` (a database time stamp; ``""``: the whole account's history).

    Each game's loss is the opponent's own ``rating_history`` row (``before - after`` where it went
    down); it is added to the opponent's rating in the game's pool now (its deviation and volatility
    stay) and recorded as a ``refund`` row naming the game, once per opponent and game: a second
    mark gives nothing back twice. An AI level's anchor never lost anything. What was given back:
    ``[{"account_id", "pool", "game_id", "points", "before", "after"}]``, in game order."""
    games = conn.execute(
        select(game_accounts.c.game_id, game_accounts.c.pool, game_accounts.c.account0, game_accounts.c.account1)
        .where(
            (game_accounts.c.account0 == marked) | (game_accounts.c.account1 == marked),
            game_accounts.c.rated_at.is_not(None),
            game_accounts.c.rated_at >= since,
        )
        .order_by(game_accounts.c.rated_at, game_accounts.c.game_id)
    ).all()
    given: list[dict[str, Any]] = []
    for game in games:
        opponent = game.account1 if game.account0 == marked else game.account0
        if opponent is None or opponent == marked or anchor_of(conn, opponent) is not None:
            continue
        rows = conn.execute(
            select(rating_history.c.kind, rating_history.c.before, rating_history.c.after).where(
                rating_history.c.game_id == game.game_id, rating_history.c.account_id == opponent
            )
        ).all()
        if any(row.kind == REFUND for row in rows):
            continue
        lost = sum(row.before - row.after for row in rows if row.kind == GAME)
        if lost <= 0:
            continue
        now, count = current(conn, opponent, game.pool)
        if count == 0:  # no rating row: nothing was lost in this pool after all
            continue
        after = glicko2.Rating(now.rating + lost, now.deviation, now.volatility)
        conn.execute(
            update(ratings)
            .where(ratings.c.account_id == opponent, ratings.c.pool == game.pool)
            .values(rating=after.rating)
        )
        conn.execute(
            rating_history.insert().values(
                account_id=opponent,
                pool=game.pool,
                game_id=game.game_id,
                before=now.rating,
                after=after.rating,
                deviation=now.deviation,
                at=at,
                kind=REFUND,
            )
        )
        given.append(
            {
                "account_id": opponent,
                "pool": game.pool,
                "game_id": game.game_id,
                "points": round(lost, 1),
                "before": round(now.rating),
                "after": round(after.rating),
            }
        )
    return given
