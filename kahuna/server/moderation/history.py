"""What the queue shows of a reported player beside its reports (docs/moderation.md, *The
moderators' API*): its account's age, how often it was reported, its sanctions and its latest
finished games, read from the tables on each request (nothing is stored for it)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, or_, select

from kahuna.server.db.schema import accounts, game_accounts, games, reports, sanctions

SANCTIONS = 20
"""A target's sanctions listed, the newest first."""
GAMES = 5
"""A target's finished lobby games listed, the latest first."""


def target_history(conn: Connection, target: int) -> dict[str, Any]:
    """``created`` (the account's), ``reports`` (every report of it, any status, the open ones
    included), ``sanctions`` (kind, created, whether undone) and ``games`` (ids)."""
    created = conn.execute(select(accounts.c.created).where(accounts.c.id == target)).scalar_one()
    count = conn.execute(select(func.count()).select_from(reports).where(reports.c.target == target)).scalar_one()
    given = conn.execute(
        select(sanctions.c.kind, sanctions.c.created, sanctions.c.undone)
        .where(sanctions.c.target == target)
        .order_by(sanctions.c.id.desc())
        .limit(SANCTIONS)
    )
    played = conn.execute(
        select(games.c.id)
        .join(game_accounts, game_accounts.c.game_id == games.c.id)
        .where(or_(game_accounts.c.account0 == target, game_accounts.c.account1 == target), games.c.status == "over")
        .order_by(games.c.updated.desc(), games.c.id.desc())
        .limit(GAMES)
    )
    return {
        "created": created,
        "reports": count,
        "sanctions": [{"kind": s.kind, "created": s.created, "undone": s.undone is not None} for s in given],
        "games": [row.id for row in played],
    }
