"""What the HTTP API asks of moderation (``http/moderation.py``), built once by ``app.py``:
reports with their budgets."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import Limiter
from kahuna.server.db.writer import Conflict, Writer
from kahuna.server.moderation import reports


@dataclass(frozen=True)
class ReportBudgets:
    """Reports per account and per address (``Limits.reports_per_account_*``,
    ``Limits.reports_per_address_*``): a flood is refused ``429 rate_limited`` and stores nothing."""

    account: Limiter
    address: Limiter


class Moderation:
    def __init__(self, writer: Writer, budgets: ReportBudgets) -> None:
        self.writer = writer
        self.budgets = budgets

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
