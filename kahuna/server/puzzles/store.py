"""The puzzles' rows (``db/schema/puzzles.py``): loading the shipped set, choosing a puzzle, and
storing an account's counted answer with both ratings moved by Glicko-2. Plain functions on a
connection, run by :class:`kahuna.server.puzzles.service.Puzzles` through the writer."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass

from sqlalchemy import Connection, bindparam, func, insert, not_, select, update

from kahuna.ai.puzzles.puzzle import Puzzle
from kahuna.ai.puzzles.shipped import daily_index
from kahuna.server.community import glicko2
from kahuna.server.db.schema import puzzle_attempts, puzzle_ratings, puzzles

NEAREST = 20
"""``next`` picks among this many unanswered puzzles nearest the player's rating."""
PUZZLE_DEVIATION = 200.0
"""A new puzzle's deviation: its starting rating (from the AI levels) is an estimate, not a guess."""


@dataclass(frozen=True)
class Row:
    """A puzzle as stored: the puzzle and its current rating."""

    puzzle: Puzzle
    rating: float


def load(conn: Connection, shipped: list[Puzzle]) -> int:
    """Insert the shipped puzzles the database lacks; how many.

    A stored puzzle nobody has answered (``plays`` 0) takes the shipped starting rating and document
    when the ratings differ (a release that rates its set again reaches the databases of the releases
    before); one that has been answered keeps its rating, which the answers moved, and the
    document it was answered from. A stored puzzle the set no longer holds is retired (``retired``:
    never offered, never the daily puzzle; its row and answers stay), and one a later set holds
    again is offered again."""
    stored = {r.id: r for r in conn.execute(select(puzzles.c.id, puzzles.c.rating, puzzles.c.plays, puzzles.c.retired))}
    fresh = [p for p in shipped if p.puzzle_id not in stored]
    if fresh:
        conn.execute(insert(puzzles), [{"id": p.puzzle_id, **_shipped_row(p), "volatility": 0.06} for p in fresh])
    restart = [
        p
        for p in shipped
        if p.puzzle_id in stored and stored[p.puzzle_id].plays == 0 and stored[p.puzzle_id].rating != p.rating
    ]
    if restart:
        conn.execute(
            update(puzzles).where(puzzles.c.id == bindparam("puzzle_id"), puzzles.c.plays == 0),
            [{"puzzle_id": p.puzzle_id, **_shipped_row(p)} for p in restart],
        )
    held = {p.puzzle_id for p in shipped}
    turned = [{"puzzle_id": i, "retired": i not in held} for i, r in stored.items() if bool(r.retired) == (i in held)]
    if turned:
        conn.execute(update(puzzles).where(puzzles.c.id == bindparam("puzzle_id")), turned)
    return len(fresh)


def _shipped_row(puzzle: Puzzle) -> dict[str, object]:
    """A shipped puzzle's row as it starts: its document, themes and starting rating."""
    return {
        "document": json.dumps(puzzle.to_json(), separators=(",", ":")),
        "themes": ",".join(puzzle.themes)[:200],
        "rating": float(puzzle.rating),
        "deviation": PUZZLE_DEVIATION,
    }


def _row(document: str, rating: float) -> Row:
    return Row(Puzzle.from_json(json.loads(document)), rating)


def by_id(conn: Connection, puzzle_id: str) -> Row | None:
    found = conn.execute(select(puzzles.c.document, puzzles.c.rating).where(puzzles.c.id == puzzle_id)).first()
    return None if found is None else _row(found.document, found.rating)


def daily(conn: Connection, day: str) -> Row | None:
    """The puzzle of ``day`` (``YYYY-MM-DD``) among those of the shipped set (not retired): the
    same on every instance and in ``kahuna puzzle --daily``, from the date and the set alone."""
    count = conn.execute(select(func.count()).select_from(puzzles).where(not_(puzzles.c.retired))).scalar_one()
    if not count:
        return None
    index = daily_index(day, count)
    found = conn.execute(
        select(puzzles.c.document, puzzles.c.rating)
        .where(not_(puzzles.c.retired))
        .order_by(puzzles.c.id)
        .offset(index)
        .limit(1)
    ).one()
    return _row(found.document, found.rating)


def player_rating(conn: Connection, account_id: int | None) -> glicko2.Rating:
    """An account's puzzle rating (a guest, or an account that never answered: a new rating)."""
    if account_id is None:
        return glicko2.Rating()
    found = conn.execute(select(puzzle_ratings).where(puzzle_ratings.c.account_id == account_id)).first()
    if found is None:
        return glicko2.Rating()
    return glicko2.Rating(found.rating, found.deviation, found.volatility)


def nearest(conn: Connection, account_id: int | None, rating: float, above: float | None) -> list[str]:
    """Ids of up to :data:`NEAREST` puzzles of the shipped set (not retired) nearest ``rating``
    (above ``above`` when given) that the account has not answered, the nearest first."""
    query = select(puzzles.c.id).where(not_(puzzles.c.retired))
    if account_id is not None:
        answered = select(puzzle_attempts.c.puzzle_id).where(puzzle_attempts.c.account_id == account_id)
        query = query.where(puzzles.c.id.not_in(answered))
    if above is not None:
        query = query.where(puzzles.c.rating > above)
    query = query.order_by(func.abs(puzzles.c.rating - rating), puzzles.c.id).limit(NEAREST)
    return list(conn.execute(query).scalars())


@dataclass(frozen=True)
class Counted:
    """What an account's answer did: ``None`` ratings when it had answered the puzzle before."""

    before: float | None
    after: float | None


def record(conn: Connection, account_id: int, puzzle_id: str, correct: bool) -> Counted:
    """Count the account's first answer to the puzzle: both ratings move (Glicko-2, the player's
    score 1 for a solution, 0 for a miss); a later answer counts nothing."""
    seen = conn.execute(
        select(puzzle_attempts.c.correct).where(
            puzzle_attempts.c.puzzle_id == puzzle_id, puzzle_attempts.c.account_id == account_id
        )
    ).first()
    if seen is not None:
        return Counted(None, None)
    row = conn.execute(select(puzzles).where(puzzles.c.id == puzzle_id)).one()
    player = player_rating(conn, account_id)
    puzzle = glicko2.Rating(row.rating, row.deviation, row.volatility)
    new_player, new_puzzle = glicko2.game(player, puzzle, 1.0 if correct else 0.0)
    conn.execute(
        insert(puzzle_attempts).values(
            puzzle_id=puzzle_id,
            account_id=account_id,
            correct=correct,
            at=time.time(),
            before=player.rating,
            after=new_player.rating,
        )
    )
    values = {"rating": new_player.rating, "deviation": new_player.deviation, "volatility": new_player.volatility}
    changed = conn.execute(
        update(puzzle_ratings)
        .where(puzzle_ratings.c.account_id == account_id)
        .values(attempts=puzzle_ratings.c.attempts + 1, **values)
    )
    if not changed.rowcount:
        conn.execute(insert(puzzle_ratings).values(account_id=account_id, attempts=1, **values))
    conn.execute(
        update(puzzles)
        .where(puzzles.c.id == puzzle_id)
        .values(
            rating=new_puzzle.rating,
            deviation=new_puzzle.deviation,
            volatility=new_puzzle.volatility,
            plays=puzzles.c.plays + 1,
            solved=puzzles.c.solved + int(correct),
        )
    )
    return Counted(player.rating, new_player.rating)


def history(conn: Connection, account_id: int, limit: int) -> list[dict[str, object]]:
    """The account's counted answers, the newest first; ``retired`` when the shipped set no longer
    holds the puzzle (:func:`load`), so that a profile says why it is not offered any more."""
    rows = conn.execute(
        select(puzzle_attempts, puzzles.c.themes, puzzles.c.retired)
        .join(puzzles, puzzles.c.id == puzzle_attempts.c.puzzle_id)
        .where(puzzle_attempts.c.account_id == account_id)
        .order_by(puzzle_attempts.c.at.desc(), puzzle_attempts.c.puzzle_id)
        .limit(limit)
    )
    return [
        {
            "puzzle_id": r.puzzle_id,
            "correct": bool(r.correct),
            "at": r.at,
            "before": round(r.before),
            "after": round(r.after),
            "themes": [t for t in r.themes.split(",") if t],
            "retired": bool(r.retired),
        }
        for r in rows
    ]
