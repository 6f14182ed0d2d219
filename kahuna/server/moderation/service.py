"""What the HTTP API and the game socket ask of moderation (``http/moderation.py``,
``http/game_socket.py``), built once by ``app.py``: reports with their budgets, the roles read on
every request that needs one, sanctions, the queue and the log, and whether an account is muted."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import Limiter
from kahuna.server.db.writer import Conflict, Writer
from kahuna.server.moderation import account_sanctions, appeals, log, reports, roles, sanctions
from kahuna.server.moderation.closing import Enforcement


@dataclass(frozen=True)
class ReportBudgets:
    """Reports per account and per address (``Limits.reports_per_account_*``,
    ``Limits.reports_per_address_*``): a flood is refused ``429 rate_limited`` and stores nothing."""

    account: Limiter
    address: Limiter


class Moderation:
    def __init__(self, writer: Writer, budgets: ReportBudgets, enforcement: Enforcement | None = None) -> None:
        self.writer = writer
        self.budgets = budgets
        self.enforcement = enforcement
        """What a close or a rating mark does outside the database (``closing``; none: nothing)."""

    async def report(
        self,
        reporter: Account,
        address: str,
        username: str,
        reason: str,
        note: str,
        game_id: str | None,
        line_id: int | None,
    ) -> int:
        """File a report (``reports.file_report``); its id. A report beyond the reporter's or the
        address's budget is ``429 rate_limited``, whatever it says."""
        for limiter, key in ((self.budgets.account, f"account:{reporter.id}"), (self.budgets.address, address)):
            wait = await limiter.take(key)
            if wait:
                raise Rejected("rate_limited", f"too many reports: try again in {wait:.0f} s", 429, retry_after=wait)
        try:
            made = await self.writer.transact(
                lambda conn: reports.file_report(conn, reporter, username, reason, note, game_id, line_id)
            )
        except Conflict:  # the same report made at the same moment through another instance
            raise Rejected("already_reported", f"your report of {username} is still open", 409) from None
        if isinstance(made, Rejected):
            raise made
        return made

    async def reports_by(self, reporter: Account) -> list[dict[str, Any]]:
        return await self.writer.read(lambda conn: reports.reports_by(conn, reporter.id))

    async def roles_of(self, account: Account) -> frozenset[str]:
        """The account's roles as the database holds them now (a revoke holds on the next request)."""
        return await self.writer.read(lambda conn: roles.roles_of(conn, account.id))

    async def moderators(self) -> list[dict[str, Any]]:
        return await self.writer.read(roles.moderators)

    async def grant_moderator(self, admin: Account, username: str) -> None:
        try:
            refusal = await self.writer.transact(lambda conn: roles.grant_moderator(conn, admin, username))
        except Conflict:  # granted at the same moment through another instance
            raise Rejected("already_held", f"{username} is a moderator already", 409) from None
        if refusal is not None:
            raise refusal

    async def revoke_moderator(self, admin: Account, username: str) -> None:
        refusal = await self.writer.transact(lambda conn: roles.revoke_moderator(conn, admin, username))
        if refusal is not None:
            raise refusal

    async def queue(self) -> list[dict[str, Any]]:
        return await self.writer.read(reports.open_reports)

    async def close_report(self, moderator: Account, report_id: int, reason: str) -> None:
        refusal = await self.writer.transact(lambda conn: reports.close_report(conn, moderator.id, report_id, reason))
        if refusal is not None:
            raise refusal

    async def sanction(
        self,
        moderator: Account,
        moderator_roles: frozenset[str],
        username: str,
        kind: sanctions.Kind,
        reason: str,
        minutes: int | None,
        report_id: int | None,
    ) -> int:
        made = await self.writer.transact(
            lambda conn: sanctions.sanction(
                conn, moderator, moderator_roles, username, kind, reason, minutes, report_id
            )
        )
        if isinstance(made, Rejected):
            raise made
        if self.enforcement is not None and kind in (*account_sanctions.MARKS, account_sanctions.CLOSE):
            sanction_id = made
            target = await self.writer.read(lambda conn: account_sanctions.target_of(conn, sanction_id))
            if kind == account_sanctions.CLOSE:
                await self.enforcement.closed(self.writer, target)
            else:
                await self.enforcement.unlisted(target)
        return made

    async def undo(self, moderator: Account, moderator_roles: frozenset[str], sanction_id: int) -> None:
        refusal = await self.writer.transact(lambda conn: sanctions.undo(conn, moderator, moderator_roles, sanction_id))
        if refusal is not None:
            raise refusal

    async def sanctions_of(self, account: Account) -> list[dict[str, Any]]:
        return await self.writer.read(lambda conn: appeals.sanctions_of(conn, account.id))

    async def seen(self, account: Account, sanction_id: int) -> None:
        refusal = await self.writer.transact(lambda conn: appeals.mark_seen(conn, account.id, sanction_id))
        if refusal is not None:
            raise refusal

    async def appeal(self, account: Account, sanction_id: int, note: str) -> int:
        try:
            made = await self.writer.transact(lambda conn: appeals.appeal(conn, account, sanction_id, note))
        except Conflict:  # the same appeal sent through two instances at once (the unique sanction_id)
            raise Rejected("already_appealed", f"you appealed the sanction {sanction_id} already", 409) from None
        if isinstance(made, Rejected):
            raise made
        return made

    async def open_appeals(self) -> list[dict[str, Any]]:
        return await self.writer.read(appeals.open_appeals)

    async def decide(
        self,
        moderator: Account,
        moderator_roles: frozenset[str],
        appeal_id: int,
        decision: appeals.Decision,
        reason: str,
    ) -> None:
        refusal = await self.writer.transact(
            lambda conn: appeals.decide(conn, moderator, moderator_roles, appeal_id, decision, reason)
        )
        if refusal is not None:
            raise refusal

    async def log(self) -> list[dict[str, Any]]:
        return await self.writer.read(log.entries)

    async def log_page(self, after: int) -> list[dict[str, Any]]:
        """The entries after the entry ``after``, oldest first, a page of ``log.PAGE``."""
        return await self.writer.read(lambda conn: log.page_after(conn, after))

    async def chat_muted(self, account_id: int) -> float | None:
        """Seconds the account is still muted in chat for (``None``: not muted)."""
        return await self.writer.read(lambda conn: sanctions.chat_mute_left(conn, account_id))
