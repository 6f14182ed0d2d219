"""Notification mails for players whose tab is closed: their turn, a deadline, a challenge, a tournament.

Each instance runs :class:`Reminders`, a loop that every ``--limit notice_scan_seconds`` first
records which seats of correspondence games are connected to it (``seat_seen``), then looks in the
database for what is due, at most ``--limit notices_per_scan`` of each kind:

- ``your_turn``: a correspondence game whose running clock's seat has had no connection, on any
  instance, since its turn began at least ``--limit your_turn_after_seconds`` ago (an hour); a
  seat connected to the scanning instance is never reminded, however late its tick;
- ``deadline``: a correspondence turn with less than ``--limit deadline_warning_seconds`` (a day)
  left, once half of the turn's allowance has passed (so a one-day game is warned at 12 hours, not
  at its first second);
- ``challenge``: an open challenge to the account;
- ``tournament``: a tournament the account joined that starts within ``--limit
  tournament_notice_seconds``.

Only accounts with a verified address that have not turned the kind off (``accounts/notifications.py``)
are considered. Each notice is decided once: its row in ``notices`` (kind, subject, step, account)
is inserted in the transaction that queues the mail, so when instances scan at once exactly one
insert wins and the others' transactions roll back (``Conflict``), and a restart finds it decided.
A notice over its account's or mailbox's budget (``--limit notice_mails_per_*``; a mailbox as
the mail budgets count it, ``name+tag@`` is ``name@``) is recorded as ``dropped`` and not sent.
The mail itself goes through the queue (``mail/queue.py``): nothing here waits for a mail
server, and no move waits for this loop.
"""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, and_, case, delete, exists, func, insert, or_, select, update

from kahuna.server.accounts import notifications
from kahuna.server.common import logs
from kahuna.server.common.config import Limits, MailSettings
from kahuna.server.common.periodic import Periodic
from kahuna.server.common.tokens import digest
from kahuna.server.community.seeks import OPEN
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
    seeks,
    tournament_players,
    tournaments,
)
from kahuna.server.db.writer import Conflict, Writer
from kahuna.server.mail import addresses, notice_texts, queue, unsubscribe
from kahuna.server.mail.mailer import Budgets, message_domain
from kahuna.server.mail.templates import language

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


@dataclass(frozen=True)
class Notice:
    """One notification that is due: to whom, about what, and the words it needs."""

    kind: str
    subject: str
    step: int
    account_id: int
    username: str
    email: str
    lang: str | None
    other: str
    path: str
    expires: float
    left: float
    """Seconds until the deadline or the tournament's start (0 for the others)."""
    seat: int | None = None
    """The seat to move (turn and deadline notices)."""


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
        accounts.c.username,
        account_emails.c.email,
        account_emails.c.lang,
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
                    row.game_id,
                    int(row.ply),
                    int(row.id),
                    row.username,
                    row.email,
                    row.lang,
                    row.other or "?",
                    f"/play/{row.game_id}",
                    float(row.deadline),
                    float(row.deadline) - now,
                    int(row.running),
                )
            )
    return found


def _challenges(conn: Connection, now: float, timing: Timing) -> list[Notice]:
    query = (
        _to_whom(
            select(
                seeks.c.id,
                seeks.c.owner_name,
                seeks.c.alive_until,
                accounts.c.id.label("account"),
                accounts.c.username,
                account_emails.c.email,
                account_emails.c.lang,
            ).select_from(seeks),
            seeks.c.target_account,
        )
        .where(
            seeks.c.kind == "challenge",
            seeks.c.status == OPEN,
            seeks.c.alive_until > now,
            *_reachable("challenge", seeks.c.target_account),
            _not_yet("challenge", seeks.c.id, 0, seeks.c.target_account),
        )
        .order_by(seeks.c.created)
        .limit(timing.per_scan)
    )
    return [
        Notice(
            "challenge",
            row.id,
            0,
            int(row.account),
            row.username,
            row.email,
            row.lang,
            row.owner_name,
            "/lobby",
            float(row.alive_until),
            0.0,
        )
        for row in conn.execute(query)
    ]


def _tournaments(conn: Connection, now: float, timing: Timing) -> list[Notice]:
    player = tournament_players.c.account_id
    query = (
        _to_whom(
            select(
                tournaments.c.id,
                tournaments.c.name,
                tournaments.c.starts_at,
                accounts.c.id.label("account"),
                accounts.c.username,
                account_emails.c.email,
                account_emails.c.lang,
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
            row.id,
            0,
            int(row.account),
            row.username,
            row.email,
            row.lang,
            row.name,
            f"/tournaments/{row.id}",
            float(row.starts_at) + 600,
            max(0.0, float(row.starts_at) - now),
        )
        for row in conn.execute(query)
    ]


def due(conn: Connection, now: float, timing: Timing) -> list[Notice]:
    """Every notice due now, at most ``timing.per_scan`` of each kind, each key once."""
    found = _turns(conn, now, timing) + _challenges(conn, now, timing) + _tournaments(conn, now, timing)
    unique = {(n.kind, n.subject, n.step, n.account_id): n for n in found}
    return list(unique.values())


def _mailbox(notice: Notice) -> str:
    """The budget key of the mailbox a notice goes to: its spellings share it, as the account mails'
    do (``mail/mailer.py``), and no other budget's key is the same."""
    return digest(f"notices:{addresses.mailbox_key(notice.email)}")


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
    """The loop of this instance that queues notification mails (see the module's docstring)."""

    def __init__(
        self,
        writer: Writer,
        settings: MailSettings,
        budgets: Budgets,
        timing: Timing,
        connected: ConnectedSeats,
        wake: Callable[[], None],
    ) -> None:
        self.writer = writer
        self.settings = settings
        self.budgets = budgets
        self.timing = timing
        self.connected = connected
        self.wake = wake
        self._loop = Periodic(self._pass, timing.scan_seconds, "reminders_error", first_at_once=True)
        self._pruned = -math.inf

    def start(self) -> None:
        self._loop.start()

    async def stop(self) -> None:
        await self._loop.stop()

    async def _pass(self) -> None:
        await self.scan()

    async def scan(self) -> int:
        """One tick: record this instance's connected seats, queue what is due; how many were queued."""
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
        queued = 0
        for notice in found:
            queued += await self._queue(notice)
        if queued:
            self.wake()
        return queued

    async def _take(self, notice: Notice) -> bool:
        address = _mailbox(notice)
        if await self.budgets.per_address.take(address):
            return False
        if await self.budgets.per_account.take(str(notice.account_id)):
            await self.budgets.per_address.refund(address)
            return False
        return True

    async def _refund(self, notice: Notice) -> None:
        await self.budgets.per_address.refund(_mailbox(notice))
        await self.budgets.per_account.refund(str(notice.account_id))

    async def _queue(self, notice: Notice) -> int:
        """Decide ``notice`` once (queue its mail, or drop it over budget); 1 if a mail was queued."""
        within = await self._take(notice)
        moment = time.time()

        def store(conn: Connection) -> str:
            wanted = within and notifications.wants(conn, notice.account_id, notice.kind, "mail")
            status = "queued" if wanted else ("dropped" if not within else "off")
            conn.execute(
                notices.insert().values(
                    kind=notice.kind,
                    subject=notice.subject,
                    step=notice.step,
                    account_id=notice.account_id,
                    status=status,
                    at=moment,
                )
            )
            if wanted:
                self._enqueue(conn, notice, moment)
            return status

        try:
            status = await self.writer.transact(store)
        except Conflict:  # another instance decided it first
            status = "taken"
        if within and status != "queued":
            await self._refund(notice)
        logs.event("notice", notice_kind=notice.kind, account_id=notice.account_id, status=status)
        return 1 if status == "queued" else 0

    def _enqueue(self, conn: Connection, notice: Notice, now: float) -> None:
        token = unsubscribe.token(conn, notice.account_id, notice.kind)
        stop = f"{self.settings.public_url}{unsubscribe.PATH}{token}"
        lang = language(notice.lang)
        subject, body = notice_texts.render(
            notice.kind,
            lang,
            username=notice.username,
            other=notice.other,
            link=f"{self.settings.public_url}{notice.path}",
            unsubscribe=stop,
            hours=max(1, math.ceil(notice.left / 3600)),
            minutes=max(1, math.ceil(notice.left / 60)),
        )
        queue.enqueue(
            conn,
            notice.kind,
            notice.account_id,
            notice.email,
            lang,
            subject,
            body,
            message_domain(self.settings),
            now,
            notice.expires,
            list_unsubscribe=stop,
        )
