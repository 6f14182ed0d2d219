"""What the HTTP API and the game socket ask of moderation (``http/moderation.py``,
``http/game_socket.py``), built once by ``app.py``: reports with their budgets, the roles read on
every request that needs one, sanctions, the queue and the log, and whether an account is muted."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from sqlalchemy import Connection, select

from kahuna.server.accounts.store import Account, account_by_name
from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import Limiter
from kahuna.server.db.schema import appeals as appeals_table
from kahuna.server.db.schema import sanctions as sanctions_table
from kahuna.server.db.writer import Conflict, Writer
from kahuna.server.fairplay.figures import Thresholds, player_figures
from kahuna.server.moderation import account_sanctions, appeals, chat_sanctions, log, reports, roles, sanctions
from kahuna.server.moderation.closing import Enforcement


@dataclass(frozen=True)
class ReportBudgets:
    """Reports per account and per address (``Limits.reports_per_account_*``,
    ``Limits.reports_per_address_*``): a flood is refused ``429 rate_limited`` and stores nothing."""

    account: Limiter
    address: Limiter


class Games(Protocol):
    """What the games do once a sanction changed what they show (``GameService``)."""

    async def hide_line(self, game_id: str, line_id: int, hidden: bool) -> None:
        """A line was hidden, or shown again."""
        ...

    async def names_changed(self, game_ids: list[str]) -> None:
        """A player of these games was renamed: they show its new name."""
        ...

    @property
    def games(self) -> Mapping[str, object]:
        """The games this instance holds in memory, by id (a rename reloads the finished ones too)."""
        ...


class Moderation:
    def __init__(
        self,
        writer: Writer,
        budgets: ReportBudgets,
        games: Games | None = None,
        enforcement: Enforcement | None = None,
    ) -> None:
        self.writer = writer
        self.budgets = budgets
        self.games = games
        """What the games show once a line is hidden or a player renamed (none: nothing)."""
        self.enforcement = enforcement
        """What a close or a rating mark does outside the database (``closing``; none: nothing)."""

    async def report(
        self,
        reporter: Account,
        address: str,
        username: str | None,
        reason: str,
        note: str,
        game_id: str | None,
        line_id: int | None,
        seat: int | None = None,
    ) -> int:
        """File a report (``reports.file_report``: of ``username``, or of the account playing
        ``seat`` of ``game_id``); its id. A report beyond the reporter's or the address's budget is
        ``429 rate_limited``, whatever it says."""
        for limiter, key in ((self.budgets.account, f"account:{reporter.id}"), (self.budgets.address, address)):
            wait = await limiter.take(key)
            if wait:
                raise Rejected("rate_limited", f"too many reports: try again in {wait:.0f} s", 429, retry_after=wait)
        try:
            made = await self.writer.transact(
                lambda conn: reports.file_report(conn, reporter, username, reason, note, game_id, line_id, seat)
            )
        except Conflict:  # the same report made at the same moment through another instance
            whom = username if username is not None else "this player"
            raise Rejected("already_reported", f"your report of {whom} is still open", 409) from None
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

    async def fair_play(self, username: str) -> dict[str, Any]:
        """A player's fair-play figures over its last screened rated games (docs/fair-play.md)."""

        def read(conn: Connection) -> dict[str, Any] | None:
            account = account_by_name(conn, username)
            return None if account is None else player_figures(conn, account.id, Thresholds())

        found = await self.writer.read(read)
        if found is None:
            raise Rejected("not_found", f"no player {username!r}", 404)
        return found

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
        game_id: str | None = None,
        line_id: int | None = None,
    ) -> int:
        made = await self.writer.transact(
            lambda conn: sanctions.sanction(
                conn, moderator, moderator_roles, username, kind, reason, minutes, report_id, game_id, line_id
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
        if game_id is not None and line_id is not None and self.games is not None:
            await self.games.hide_line(game_id, line_id, True)
        if kind == "rename":
            await self._renamed(made)
        return made

    async def undo(self, moderator: Account, moderator_roles: frozenset[str], sanction_id: int) -> None:
        refusal = await self.writer.transact(lambda conn: sanctions.undo(conn, moderator, moderator_roles, sanction_id))
        if refusal is not None:
            raise refusal
        await self._undone(sanction_id)

    async def _undone(self, sanction_id: int) -> None:
        """A sanction was undone: a hidden line is shown again in the games that hold it, a
        renamed player's games show its name."""
        row = await self.writer.read(
            lambda conn: conn.execute(
                select(sanctions_table.c.kind, sanctions_table.c.game_id, sanctions_table.c.line_id).where(
                    sanctions_table.c.id == sanction_id, sanctions_table.c.undone.is_not(None)
                )
            ).first()
        )
        if row is None or self.games is None:
            return
        if row.kind == "hide_line":
            await self.games.hide_line(row.game_id, row.line_id, False)
        elif row.kind == "rename":
            await self._renamed(sanction_id)

    async def _renamed(self, sanction_id: int) -> None:
        """The sanction's target was renamed, or given its name back by an undo."""
        if self.games is not None:
            await self._show_name(await self.writer.read(lambda conn: account_sanctions.target_of(conn, sanction_id)))

    async def _show_name(self, account_id: int) -> None:
        """The games that show the account's name (``chat_sanctions.showing``: finished ones in
        memory here too) show it as it is now."""
        if self.games is not None:
            held = set(self.games.games)  # read here, on the event loop, not on the writer's thread
            await self.games.names_changed(
                await self.writer.read(lambda conn: chat_sanctions.showing(conn, account_id, held))
            )

    async def chat_standing(self, account_id: int) -> tuple[float | None, int | None]:
        """Seconds the account is still muted in chat for, and its shadow mute (``chat_sanctions``)."""
        return await self.writer.read(lambda conn: chat_sanctions.chat_standing(conn, account_id))

    async def choose_name(self, account: Account, name: str) -> None:
        try:
            refusal = await self.writer.transact(lambda conn: chat_sanctions.choose_name(conn, account, name))
        except Conflict:  # the unique key: another instance gave the name a moment ago
            raise Rejected("taken", "this username is taken", 409) from None
        if refusal is not None:
            raise refusal
        await self._show_name(account.id)

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
        if decision == "overturned":
            appealed = await self.writer.read(
                lambda conn: conn.execute(
                    select(appeals_table.c.sanction_id).where(appeals_table.c.id == appeal_id)
                ).scalar_one()
            )
            await self._undone(int(appealed))

    async def log(self) -> list[dict[str, Any]]:
        return await self.writer.read(log.entries)

    async def log_page(self, after: int) -> list[dict[str, Any]]:
        """The entries after the entry ``after``, oldest first, a page of ``log.PAGE``."""
        return await self.writer.read(lambda conn: log.page_after(conn, after))
