"""The notices that are due only after a while, found for the mail channel (``mail/channel.py``):
a correspondence turn left unplayed, a deadline near, a tournament starting soon.

The mail channel runs :class:`Reminders`, a loop that every ``--limit notice_scan_seconds`` first
records which seats of correspondence games are connected to this instance (``seat_seen``), then
looks in the database for what is due, at most ``--limit notices_per_scan`` of each kind:

- ``your_turn``: a correspondence game whose running clock's seat has had no connection, on any
  instance, since its turn began at least ``--limit your_turn_after_seconds`` ago (an hour); a
  seat connected to the scanning instance is never reminded, however late its tick;
- ``deadline``: a correspondence turn with less than ``--limit deadline_warning_seconds`` (a day)
  left, once half of the turn's allowance has passed (so a one-day game is warned at 12 hours, not
  at its first second);
- ``tournament``: a tournament the account joined that starts within ``--limit
  tournament_notice_seconds``.

Only accounts with a verified address that have not turned the kind off by mail, and that were not
given the notice yet (``notices``), are found; each is handed to the channel, which decides it once.
No move waits for this loop.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, case, delete, exists, func, insert, or_, select, update

from kahuna.server.accounts.notifications import Notice
from kahuna.server.common.config import Limits
from kahuna.server.common.periodic import Periodic
from kahuna.server.community.tournament_rows import CREATED
from kahuna.server.db.schema import (
    account_emails,
    accounts,
    actions,
    clocks,
    games,
    notices,
    notification_settings,
    seat_seen,
    seats,
    tournament_players,
    tournaments,
)
from kahuna.server.db.writer import Conflict, Writer

KEEP_SECONDS = 30 * 86400.0
"""How long a decided notice and a seat's last connection are kept: longer than a correspondence
turn may last (14 days), after which neither can matter (a turn reminder needs a turn that has not
run out; a connection that old is as good as none)."""
PRUNE_EVERY = 3600.0
"""Seconds between two prunings of those rows (each instance; deleting twice is harmless)."""

ConnectedSeats = Callable[[], Iterable[tuple[str, int]]]
"""The seats of correspondence games that have a connection to this instance now."""


@dataclass(frozen=True)
class Timing:
    """The thresholds of the notices (``--limit``; tests shorten them to seconds)."""

    your_turn_after: float
    deadline_warning: float
    tournament_notice: float
    scan_seconds: float
    per_scan: int

    @classmethod
    def of(cls, limits: Limits) -> Timing:
        return cls(
            limits.your_turn_after_seconds,
            limits.deadline_warning_seconds,
            limits.tournament_notice_seconds,
            limits.notice_scan_seconds,
            limits.notices_per_scan,
        )


def _reachable(kind: str, account: Any) -> list[Any]:
    """The conditions that ``account`` (a column) has a verified address, is not deleted, did not
    turn ``kind`` off by mail, and was not given this notice yet (the caller adds the key)."""
    off = notification_settings.c.off
    return [
        accounts.c.id == account,
        account_emails.c.account_id == account,
        account_emails.c.email.is_not(None),
        accounts.c.deleted.is_(None),
        or_(off.is_(None), ~off.contains(f"{kind}:mail", autoescape=True)),
    ]


def _not_yet(kind: str, subject: Any, step: Any, account: Any) -> Any:
    return ~exists().where(
        notices.c.kind == kind, notices.c.subject == subject, notices.c.step == step, notices.c.account_id == account
    )


def _to_whom(query: Any, account: Any) -> Any:
    return (
        query.join(accounts, accounts.c.id == account)
        .join(account_emails, account_emails.c.account_id == account)
        .outerjoin(notification_settings, notification_settings.c.account_id == account)
    )


def _turns(conn: Connection, now: float, timing: Timing) -> list[Notice]:
    """``your_turn`` and ``deadline`` notices of correspondence games."""
    ply = select(func.count()).select_from(actions).where(actions.c.game_id == clocks.c.game_id).scalar_subquery()
    remaining = case((clocks.c.running == 0, clocks.c.remaining0), else_=clocks.c.remaining1)
    deadline = clocks.c.since + remaining
    other = case((clocks.c.running == 0, games.c.name1), else_=games.c.name0)
    columns = (
        clocks.c.game_id,
        clocks.c.running,
        ply.label("ply"),
        deadline.label("deadline"),
        other.label("other"),
        accounts.c.id,
    )
    base = (
        select(*columns)
        .select_from(clocks)
        .join(games, games.c.id == clocks.c.game_id)
        .join(seats, and_(seats.c.game_id == clocks.c.game_id, seats.c.seat == clocks.c.running))
    )
    playing = (
        games.c.status == "playing",
        clocks.c.control.contains('"days"'),
        clocks.c.running.is_not(None),
        clocks.c.since.is_not(None),
    )
    found: list[Notice] = []
    seen = seat_seen.c.seen
    turn = (
        _to_whom(base, seats.c.account_id)
        .outerjoin(seat_seen, and_(seat_seen.c.game_id == clocks.c.game_id, seat_seen.c.seat == clocks.c.running))
        .where(
            *playing,
            clocks.c.since <= now - timing.your_turn_after,
            or_(seen.is_(None), seen <= now - timing.your_turn_after),
            deadline > now,
            *_reachable("your_turn", seats.c.account_id),
            _not_yet("your_turn", clocks.c.game_id, ply, seats.c.account_id),
        )
        .order_by(clocks.c.since)
        .limit(timing.per_scan)
    )
    warn = (
        _to_whom(base, seats.c.account_id)
        .where(
            *playing,
            deadline > now,
            deadline < now + timing.deadline_warning,
            clocks.c.since + remaining / 2 <= now,
            *_reachable("deadline", seats.c.account_id),
            _not_yet("deadline", clocks.c.game_id, ply, seats.c.account_id),
        )
        .order_by(deadline)
        .limit(timing.per_scan)
    )
    for kind, query in (("your_turn", turn), ("deadline", warn)):
        for row in conn.execute(query):
            found.append(
                Notice(
                    kind,
                    int(row.id),
                    row.game_id,
                    int(row.ply),
                    row.other,
                    f"/play/{row.game_id}",
                    float(row.deadline),
                    seat=int(row.running),
                    left=float(row.deadline) - now,
                )
            )
    return found


def _tournaments(conn: Connection, now: float, timing: Timing) -> list[Notice]:
    player = tournament_players.c.account_id
    query = (
        _to_whom(
            select(
                tournaments.c.id,
                tournaments.c.name,
                tournaments.c.starts_at,
                accounts.c.id.label("account"),
            )
            .select_from(tournaments)
            .join(tournament_players, tournament_players.c.tournament_id == tournaments.c.id),
            player,
        )
        .where(
            tournaments.c.status == CREATED,
            tournaments.c.starts_at.is_not(None),
            tournaments.c.starts_at <= now + timing.tournament_notice,
            tournament_players.c.active.is_(True),
            tournament_players.c.ai_level.is_(None),
            *_reachable("tournament", player),
            _not_yet("tournament", tournaments.c.id, 0, player),
        )
        .order_by(tournaments.c.starts_at)
        .limit(timing.per_scan)
    )
    return [
        Notice(
            "tournament",
            int(row.account),
            row.id,
            None,
            row.name,
            f"/tournaments/{row.id}",
            float(row.starts_at) + 600,
            left=max(0.0, float(row.starts_at) - now),
        )
        for row in conn.execute(query)
    ]


def due(conn: Connection, now: float, timing: Timing) -> list[Notice]:
    """Every notice due now, at most ``timing.per_scan`` of each kind, each key once."""
    found = _turns(conn, now, timing) + _tournaments(conn, now, timing)
    unique = {(n.key, n.account_id): n for n in found}
    return list(unique.values())


def mark_seen(conn: Connection, seen: list[tuple[str, int]], now: float) -> None:
    """These seats have a connection now (an update, or an insert for a seat not seen before)."""
    for game_id, seat in seen:
        where = (seat_seen.c.game_id == game_id, seat_seen.c.seat == seat)
        if conn.execute(update(seat_seen).where(*where).values(seen=now)).rowcount == 0:
            conn.execute(insert(seat_seen).values(game_id=game_id, seat=seat, seen=now))


def prune(conn: Connection, now: float) -> None:
    """Forget the notices and seat connections older than :data:`KEEP_SECONDS`."""
    conn.execute(delete(notices).where(notices.c.at < now - KEEP_SECONDS))
    conn.execute(delete(seat_seen).where(seat_seen.c.seen < now - KEEP_SECONDS))


class Reminders:
    """The loop that finds the notices due after a while (see the module's docstring) and hands each
    to ``deliver`` (the mail channel's)."""

    def __init__(
        self, writer: Writer, timing: Timing, connected: ConnectedSeats, deliver: Callable[[Notice], Awaitable[None]]
    ) -> None:
        self.writer = writer
        self.timing = timing
        self.connected = connected
        self.deliver = deliver
        self._loop = Periodic(self._pass, timing.scan_seconds, "reminders_error", first_at_once=True)
        self._pruned = -math.inf

    def start(self) -> None:
        self._loop.start()

    async def stop(self) -> None:
        await self._loop.stop()

    async def _pass(self) -> None:
        await self.scan()

    async def scan(self) -> int:
        """One tick: record this instance's connected seats, hand on what is due; how many."""
        seen = sorted(set(self.connected()))
        if seen:
            moment = time.time()
            with contextlib.suppress(Conflict):  # another instance inserted the seat at once: next tick
                await self.writer.write(lambda conn: mark_seen(conn, seen, moment))
        now = time.time()
        if time.monotonic() - self._pruned >= PRUNE_EVERY:
            await self.writer.write(lambda conn: prune(conn, now))
            self._pruned = time.monotonic()
        found = await self.writer.read(lambda conn: due(conn, now, self.timing))
        here = set(seen)  # connected to this instance now, whatever seat_seen says (a late tick)
        found = [n for n in found if not (n.kind == "your_turn" and (n.subject, n.seat) in here)]
        for notice in found:
            await self.deliver(notice)
        return len(found)
