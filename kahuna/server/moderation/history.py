"""What the queue shows of a reported player beside its reports (docs/moderation.md, *The
moderators' API*): its account's age, how often it was reported, its sanctions and its latest
finished games, its latest rating changes, the other accounts seen on its browsers and addresses,
and its fair-play figures (docs/fair-play.md), read from the tables on each request (nothing is
stored for it)."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, func, or_, select

from kahuna.server.db.schema import (
    account_addresses,
    accounts,
    browser_accounts,
    game_accounts,
    games,
    rating_history,
    reports,
    sanctions,
)
from kahuna.server.fairplay.figures import Thresholds, player_figures

SANCTIONS = 20
"""A target's sanctions listed, the newest first."""
GAMES = 5
"""A target's finished lobby games listed, the latest first."""
RATING_CHANGES = 10
"""A target's latest rating changes listed, the newest first."""
ALTERNATES = 20
"""Other accounts seen on the target's browsers or addresses listed."""


def alternates(conn: Connection, target: int) -> list[dict[str, Any]]:
    """The other accounts seen on a browser (``browser_accounts``) or an address
    (``account_addresses``) the target was seen on, by name, each with ``via``: ``browser``,
    ``address`` or both. Hints of alternate accounts, for moderators only (a shared address may be
    a family's, a school's)."""
    via: dict[int, set[str]] = {}
    for table, column, what in (
        (browser_accounts, browser_accounts.c.browser, "browser"),
        (account_addresses, account_addresses.c.address, "address"),
    ):
        mine = select(column).where(table.c.account_id == target)
        for (other,) in conn.execute(
            select(table.c.account_id).where(column.in_(mine), table.c.account_id != target).distinct()
        ):
            via.setdefault(other, set()).add(what)
    rows = conn.execute(select(accounts.c.id, accounts.c.username).where(accounts.c.id.in_(list(via))))
    names = {row.id: row.username for row in rows}
    found = [{"username": names[other], "via": sorted(how)} for other, how in via.items() if other in names]
    return sorted(found, key=lambda entry: entry["username"].lower())[:ALTERNATES]


def target_history(conn: Connection, target: int) -> dict[str, Any]:
    """``created`` (the account's), ``reports`` (every report of it, any status, the open ones
    included), ``sanctions`` (kind, created, whether undone), ``games`` (ids) and ``fair_play``
    (its figures over its last screened rated games, the default window; no game screened: ``games`` 0)."""
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
    changes = conn.execute(
        select(rating_history)
        .where(rating_history.c.account_id == target)
        .order_by(rating_history.c.id.desc())
        .limit(RATING_CHANGES)
    )
    return {
        "created": created,
        "rating_history": [
            {
                "pool": row.pool,
                "game_id": row.game_id,
                "kind": row.kind,
                "before": round(row.before),
                "after": round(row.after),
                "at": row.at,
            }
            for row in changes
        ],
        "alternates": alternates(conn, target),
        "reports": count,
        "sanctions": [{"kind": s.kind, "created": s.created, "undone": s.undone is not None} for s in given],
        "games": [row.id for row in played],
        "fair_play": player_figures(conn, target, Thresholds()),
    }
