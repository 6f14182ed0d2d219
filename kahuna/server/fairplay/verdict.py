"""A player's fair-play figures over its last screened games, and the automatic report when they
cross the threshold (docs/fair-play.md).

The figures (``fairplay/figures.py``) add up the player's last screened games, with the interval of
their match rate; only the interval's *lower* end is compared with :attr:`Thresholds.match`, so a
player is reported when even the least suspicious reading of its games is beyond what honest
players reach, and a player with four games needs a far higher rate than one with forty.

The report is a ``cheating`` report in the moderators' queue (``moderation/reports.py``) from the
server's own account :data:`REPORTER` (a name nobody may sign up with), with the figures and the
window's games, the most suspicious first. While it is open, a later crossing updates it rather
than adding one; once a moderator closed it or acted on it, only games screened after it count
towards the next. Nothing of it reaches the player: the player's own lists show the reports it
made and the sanctions on it, never a report about it.
"""

from __future__ import annotations

import json
import time
from typing import Any

from sqlalchemy import Connection, func, select, update

from kahuna.server.accounts.passwords import SITE_ACCOUNT
from kahuna.server.accounts.store import ensure_bot_account
from kahuna.server.db.migrations import hold_startup_lock
from kahuna.server.db.schema import reports
from kahuna.server.fairplay.figures import Thresholds, player_figures

OPEN = "open"
"""A report's status while it waits in the queue (``moderation/reports.py``'s, the room above this one
that reads the same rows)."""
REPORTER = SITE_ACCOUNT
"""The account that files the automatic reports: the site's own (a reserved name, a bot account
without a password, so nobody signs in as it; nobody challenges it either: ``community/bots.py``)."""


def crosses(figures: dict[str, Any], thresholds: Thresholds) -> bool:
    """Whether the figures make a report: enough games, and the lower end of the match rate's
    interval at or above the threshold."""
    enough = int(figures["games"]) >= thresholds.min_games and int(figures["choices"]) > 0
    return enough and float(figures["interval"][0]) >= thresholds.match


def _since(conn: Connection, reporter: int, target: int) -> float:
    """When the player's last automatic report that is no longer open was made (0: none)."""
    query = select(func.max(reports.c.created)).where(
        reports.c.reporter == reporter, reports.c.target == target, reports.c.status != OPEN
    )
    return float(conn.execute(query).scalar() or 0.0)


def _note(figures: dict[str, Any]) -> str:
    low, high = figures["interval"]
    return (
        f"Fair-play screening: {figures['matched']} of {figures['choices']} real choices in {figures['games']} "
        f"rated games were the AI's first choice ({figures['match_rate']:.0%}, between {low:.0%} and {high:.0%}); "
        f"mean loss {figures['mean_loss']:.3f} win chance."
    )


def ensure_reporter(conn: Connection) -> int:
    """The reporting account's id (created at the first start; instances starting at once take
    turns, as for the AI levels' accounts)."""
    hold_startup_lock(conn)
    return ensure_bot_account(conn, REPORTER).id


def review(conn: Connection, account_ids: list[int], thresholds: Thresholds) -> list[int]:
    """After a game's figures are stored: for each of its players whose figures cross the
    threshold, file (or update the open) automatic report; the reports' ids."""
    reporter = ensure_bot_account(conn, REPORTER).id
    filed = []
    for account_id in account_ids:
        figures = player_figures(conn, account_id, thresholds, _since(conn, reporter, account_id))
        if not crosses(figures, thresholds):
            continue
        figures = {**figures, "threshold": thresholds.match}
        open_one = conn.execute(
            select(reports.c.id, reports.c.context).where(
                reports.c.reporter == reporter, reports.c.target == account_id, reports.c.status == OPEN
            )
        ).first()
        if open_one is not None:  # the figures now, and after how many games it was first filed
            first = json.loads(open_one.context).get("flagged_at_games", figures["games"])
            context = json.dumps({"fair_play": figures, "flagged_at_games": first})
            conn.execute(
                update(reports).where(reports.c.id == open_one.id).values(note=_note(figures), context=context)
            )
            filed.append(int(open_one.id))
            continue
        context = json.dumps({"fair_play": figures, "flagged_at_games": figures["games"]})
        values = {
            "reporter": reporter,
            "target": account_id,
            "reason": "cheating",
            "note": _note(figures),
            "context": context,
            "status": OPEN,
            "created": time.time(),
        }
        filed.append(int(conn.execute(reports.insert().values(**values).returning(reports.c.id)).scalar_one()))
    return filed
