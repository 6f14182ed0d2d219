"""Reports and the moderators' API (issue 48; docs/moderation.md).

``POST /api/reports`` (a signed-in account: session with CSRF, or a Bearer token with the ``play``
scope) reports a player, from a profile, a game or a chat line; ``GET /api/me/reports`` lists the
account's reports with their status, never what was done. The rules are ``moderation.reports``.
``/api/me/sanctions`` are the account's sanctions, their notices acknowledged (``seen``) and
appealed (``moderation.appeals``).

``/api/mod/...`` answers a moderator or an admin only, its role read from the database on each
request; anyone else gets the ``404 not_found`` of a path that does not exist, and the paths are
left out of ``/openapi.json``: the queue of open reports, sanctions and their undo
(``moderation.sanctions``), closing a report with no sanction, the open appeals and their decision,
and the moderation log (also the whole of it as JSON lines); an admin (only) grants and revokes
``moderator`` (``moderation.roles``), never ``admin``.
"""

# No ``from __future__ import annotations``: the moderators' endpoints declare a dependency built
# inside ``router`` (from the service it is given), which FastAPI can only see in an annotation
# evaluated where it is written.

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Path, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException

from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.common import client_ip
from kahuna.server.moderation import appeals, reports, roles, sanctions
from kahuna.server.moderation.service import Moderation

Reason = Annotated[str, Field(min_length=1, max_length=reports.MAX_NOTE)]
RowId = Annotated[int, Path(ge=1, le=2**62)]


class NewReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: str | None = Field(
        default=None, min_length=1, max_length=20, description="the player reported (or its seat: one of the two)"
    )
    seat: int | None = Field(
        default=None,
        ge=0,
        le=1,
        description="the seat of game_id whose account is reported, whatever name the game shows for it "
        "(a game's page sends it: the account may have been renamed since)",
    )
    reason: reports.Reason
    note: str = Field(default="", max_length=4 * reports.MAX_NOTE, description="at most 500 characters")
    game_id: str | None = Field(default=None, min_length=1, max_length=32, description="the game it is about")
    line_id: int | None = Field(default=None, ge=0, description="the chat line of that game it is about")


class MadeReport(BaseModel):
    report_id: int


class MyReport(BaseModel):
    report_id: int
    username: str
    reason: str
    status: Annotated[str, Field(description="open, acted_on or closed")]
    created: float = Field(description="seconds since the epoch")


class MyReports(BaseModel):
    reports: list[MyReport]


class PastSanction(BaseModel):
    kind: str
    created: float
    undone: bool


class TargetHistory(BaseModel):
    created: str = Field(description="when the account was made (ISO 8601)")
    reports: int = Field(description="every report of the player, any status, the open ones included")
    sanctions: list[PastSanction] = Field(description="its sanctions, the newest first, at most 20")
    games: list[str] = Field(description="the ids of its latest finished lobby games, at most 5")
    rating_history: list[dict[str, Any]] = Field(
        description="its latest rating changes, the newest first, at most 10: pool, game_id, kind, before, after, at"
    )
    alternates: list[dict[str, Any]] = Field(
        description="other accounts seen on its browsers or addresses: username, via (browser, address)"
    )
    fair_play: dict[str, Any] = Field(
        description="its fair-play figures over its last screened rated games (docs/fair-play.md): games, "
        "choices, matched, match_rate, interval, mean_loss, seconds_median, hard_easy_seconds, by_game"
    )


class QueuedReport(BaseModel):
    report_id: int
    username: str = Field(description="the player reported")
    reason: str
    reporter: str
    note: str
    created: float
    context: dict[str, Any] = Field(
        description="the game (game_id, seats), the chat line (line_id, lines around it), or an automatic "
        "report's fair_play figures (docs/fair-play.md)"
    )
    target: TargetHistory = Field(description="the player reported, read on this request")


class Queue(BaseModel):
    reports: list[QueuedReport] = Field(description="open reports, the most reported players first, at most 200")


class Closing(BaseModel):
    model_config = ConfigDict(extra="forbid")

    reason: Reason


class NewSanction(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: str = Field(min_length=1, max_length=20)
    kind: sanctions.Kind
    reason: Reason
    minutes: int | None = Field(
        default=None,
        ge=1,
        le=sanctions.MAX_MINUTES,
        description="a mute's or a block_signups's length; a mark's period looking back (none: all)",
    )
    report_id: int | None = Field(default=None, ge=1, le=2**62, description="the report acted on")
    game_id: str | None = Field(default=None, min_length=1, max_length=32, description="a hide_line's game")
    line_id: int | None = Field(default=None, ge=0, le=2**31, description="a hide_line's line in that game")


class MadeSanction(BaseModel):
    sanction_id: int


class MyAppeal(BaseModel):
    note: str
    created: float
    decision: str | None = Field(description="upheld, overturned, or null: not decided yet")
    decided: float | None
    reason: str | None = Field(description="the moderator's reason for the decision")


class MySanction(BaseModel):
    sanction_id: int
    kind: str = Field(
        description="a sanction's kind: warn, chat_mute, shadow_mute, mark_cheating, … (docs/moderation.md)"
    )
    reason: str = Field(description="the moderator's words: what was done and why")
    created: float
    expires: float | None = Field(description="a chat_mute's end (seconds since the epoch)")
    seconds_left: float | None = Field(description="until a chat_mute ends (null: a warning, or undone)")
    undone: bool
    seen: bool = Field(description="its notice acknowledged (POST .../seen)")
    appeal: MyAppeal | None


class MySanctions(BaseModel):
    sanctions: list[MySanction] = Field(description="the newest first, at most 200")


class NewAppeal(BaseModel):
    model_config = ConfigDict(extra="forbid")

    note: str = Field(min_length=1, max_length=4 * appeals.MAX_NOTE, description="1 to 500 characters")


class MadeAppeal(BaseModel):
    appeal_id: int


class AppealedSanction(BaseModel):
    sanction_id: int
    kind: str
    reason: str
    moderator: str
    created: float
    expires: float | None


class OpenAppeal(BaseModel):
    appeal_id: int
    username: str = Field(description="the player who appealed")
    note: str
    created: float
    sanction: AppealedSanction


class OpenAppeals(BaseModel):
    appeals: list[OpenAppeal] = Field(description="appeals not decided yet, the oldest first, at most 200")


class Deciding(BaseModel):
    model_config = ConfigDict(extra="forbid")

    decision: appeals.Decision
    reason: Reason


class LogEntry(BaseModel):
    entry_id: int
    at: float
    actor: str | None = Field(description="the moderator (null: kahuna admin, on the command line)")
    action: str = Field(description="grant, revoke, sanction, undo, close_report, appeal, decide_appeal, choose_name")
    target: str | None
    reason: str
    detail: dict[str, Any]


class NewRole(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: str = Field(min_length=1, max_length=20)
    role: str = Field(min_length=1, max_length=16, description="moderator (admin: only kahuna admin grant)")


class HeldRole(BaseModel):
    username: str
    granted: float = Field(description="seconds since the epoch")


class Moderators(BaseModel):
    moderators: list[HeldRole] = Field(description="the accounts holding moderator, by name")


class Log(BaseModel):
    entries: list[LogEntry] = Field(description="the newest 200, the newest first")


@dataclass(frozen=True)
class Moderator:
    """The account making a moderator's request, with its roles as read for this request."""

    account: Account
    roles: frozenset[str]


def router(moderation: Moderation, auth: Authenticator) -> APIRouter:
    api = APIRouter(prefix="/api", tags=["moderation"])

    @api.post("/reports", status_code=201, response_model=MadeReport)
    async def report(body: NewReport, request: Request, account: Account = auth.account) -> dict[str, Any]:
        """Report a player, by ``username`` or by its ``seat`` of ``game_id`` (the account playing it
        now, renamed or not). 404 ``not_found`` (no such player, or no account plays the seat), 422
        ``own_account``, 422 ``server_account`` (the site's own account or an AI level's: the server
        runs them), 403 ``bot_account`` (a bot account does not report), 422 ``note_too_long``, 422
        ``not_in_game`` (the player did not play ``game_id``), 404 ``no_such_line``, 422
        ``not_their_line``, 409 ``already_reported`` (your report of the player is still open), 422
        ``invalid`` (both ``username`` and ``seat``, or neither, or a seat without its game), 429
        ``rate_limited``."""
        made = await moderation.report(
            account,
            client_ip(request),
            body.username,
            body.reason,
            body.note,
            body.game_id,
            body.line_id,
            body.seat,
        )
        return {"report_id": made}

    @api.get("/me/reports", response_model=MyReports)
    async def my_reports(account: Account = auth.account) -> dict[str, Any]:
        """The signed-in account's reports, the newest first (at most 200), with their status."""
        return {"reports": await moderation.reports_by(account)}

    @api.get("/me/sanctions", response_model=MySanctions)
    async def my_sanctions(account: Account = auth.account) -> dict[str, Any]:
        """The signed-in account's sanctions: what was done and why, whether undone, its notice
        seen, its appeal and the decision; never who sanctioned nor who reported."""
        return {"sanctions": await moderation.sanctions_of(account)}

    @api.post("/me/sanctions/{sanction_id}/seen", status_code=204)
    async def seen(sanction_id: RowId, account: Account = auth.account) -> None:
        """Acknowledge a sanction's notice: the page shows it no more. 404 ``no_such_sanction``."""
        await moderation.seen(account, sanction_id)

    @api.post("/me/sanctions/{sanction_id}/appeal", status_code=201, response_model=MadeAppeal)
    async def appeal(sanction_id: RowId, body: NewAppeal, account: Account = auth.account) -> dict[str, Any]:
        """Appeal a sanction, once. 404 ``no_such_sanction`` (unknown, or not yours),
        409 ``already_undone``, 409 ``already_appealed``, 422 ``note_too_long``."""
        return {"appeal_id": await moderation.appeal(account, sanction_id, body.note)}

    async def moderator(request: Request) -> Moderator:
        """The moderator or admin making the request; for anyone else the 404 of a path that does
        not exist (a guest, a bad token or a missing CSRF header included)."""
        try:
            account = await auth.of_request(request)
        except Rejected:
            account = None
        if account is not None:
            held = await moderation.roles_of(account)
            if roles.moderates(held):
                return Moderator(account, held)
        raise HTTPException(404)

    TheModerator = Annotated[Moderator, Depends(moderator)]
    mod = APIRouter(prefix="/mod", include_in_schema=False)

    @mod.get("/reports", response_model=Queue)
    async def queue(_moderator: TheModerator) -> dict[str, Any]:
        """The open reports with their context."""
        return {"reports": await moderation.queue()}

    @mod.get("/players/{username}/fair-play")
    async def fair_play(
        username: Annotated[str, Path(min_length=1, max_length=20)], _moderator: TheModerator
    ) -> dict[str, Any]:
        """A player's fair-play figures over its last screened rated games (docs/fair-play.md):
        moderators only, never the player. 404 ``not_found``."""
        return await moderation.fair_play(username)

    @mod.post("/reports/{report_id}/close", status_code=204)
    async def close_report(report_id: RowId, body: Closing, moderator: TheModerator) -> None:
        """Close a report with no sanction (logged). 404 ``no_such_report``, 409 ``report_not_open``."""
        await moderation.close_report(moderator.account, report_id, body.reason)

    @mod.post("/sanctions", status_code=201, response_model=MadeSanction)
    async def sanction(body: NewSanction, moderator: TheModerator) -> dict[str, Any]:
        """Sanction a player (docs/moderation.md), on a report or not (logged; an open report
        becomes ``acted_on``): a mute or a shadow mute has ``minutes``, a hidden chat line its
        ``game_id`` and ``line_id``. 404 ``not_found``, 422 ``own_account``, 403
        ``target_is_admin``, 422 ``invalid`` (minutes or a line where the kind has none, or
        missing), 404 ``no_such_report``, 422 ``not_that_report`` (a report about someone else), 404
        ``no_such_line``, 422 ``not_their_line``, 409 ``already_hidden``, 409 ``already_marked``,
        409 ``already_closed``, 409 ``already_renamed``, 422 ``ai_level``."""
        made = await moderation.sanction(
            moderator.account,
            moderator.roles,
            body.username,
            body.kind,
            body.reason,
            body.minutes,
            body.report_id,
            body.game_id,
            body.line_id,
        )
        return {"sanction_id": made}

    @mod.delete("/sanctions/{sanction_id}", status_code=204)
    async def undo(sanction_id: RowId, moderator: TheModerator) -> None:
        """Undo a sanction (logged). 404 ``no_such_sanction``, 409 ``already_undone``,
        403 ``target_is_admin``."""
        await moderation.undo(moderator.account, moderator.roles, sanction_id)

    @mod.get("/appeals", response_model=OpenAppeals)
    async def open_appeals(_moderator: TheModerator) -> dict[str, Any]:
        """The appeals not decided yet, with their sanctions."""
        return {"appeals": await moderation.open_appeals()}

    @mod.post("/appeals/{appeal_id}", status_code=204)
    async def decide(appeal_id: RowId, body: Deciding, moderator: TheModerator) -> None:
        """Uphold or overturn an appeal (logged; overturned undoes the sanction). 404
        ``no_such_appeal``, 409 ``appeal_decided``, 403 ``own_sanction`` (another moderator
        decides), 422 ``own_account``, 403 ``target_is_admin``."""
        await moderation.decide(moderator.account, moderator.roles, appeal_id, body.decision, body.reason)

    @mod.get("/log", response_model=Log)
    async def moderation_log(_moderator: TheModerator) -> dict[str, Any]:
        """The moderation log, the newest first: read only (no request changes it)."""
        return {"entries": await moderation.log()}

    @mod.get("/log.jsonl", response_class=StreamingResponse)
    async def moderation_log_lines(_moderator: TheModerator) -> StreamingResponse:
        """The whole moderation log, oldest first, one entry (as ``/api/mod/log``'s) per line,
        streamed as it is read from the database a page at a time."""

        async def lines() -> AsyncIterator[bytes]:
            after = 0
            while page := await moderation.log_page(after):
                for entry in page:
                    yield json.dumps(entry, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
                after = page[-1]["entry_id"]

        headers = {"Content-Disposition": 'attachment; filename="kahuna-moderation-log.jsonl"'}
        return StreamingResponse(lines(), media_type="application/x-ndjson", headers=headers)

    async def admin(moderator: TheModerator) -> Moderator:  # async: a plain function runs in a worker thread
        """An admin making the request; a moderator is refused 403 ``admin_only``, anyone else the
        404 of a path that does not exist."""
        if roles.ADMIN not in moderator.roles:
            raise Rejected("admin_only", "only an admin gives and takes the moderator role", 403)
        return moderator

    TheAdmin = Annotated[Moderator, Depends(admin)]

    def web_role(role: str) -> None:
        if role == roles.ADMIN:
            raise Rejected("command_line_only", "admin is granted and revoked with kahuna admin only", 422)
        if role != roles.MODERATOR:
            raise Rejected("invalid", f"no role {role!r}: moderator only", 422)

    @mod.get("/roles", response_model=Moderators)
    async def moderators(_admin: TheAdmin) -> dict[str, Any]:
        """The moderators (admins only; 403 ``admin_only``)."""
        return {"moderators": await moderation.moderators()}

    @mod.post("/roles", status_code=204)
    async def grant(body: NewRole, admin: TheAdmin) -> None:
        """Make a player a moderator (admins only, logged). 403 ``admin_only``, 422
        ``command_line_only`` (admin), 404 ``not_found``, 409 ``already_held``."""
        web_role(body.role)
        await moderation.grant_moderator(admin.account, body.username)

    @mod.delete("/roles/{username}/{role}", status_code=204)
    async def revoke(
        username: Annotated[str, Path(min_length=1, max_length=20)],
        role: Annotated[str, Path(min_length=1, max_length=16)],
        admin: TheAdmin,
    ) -> None:
        """Take moderator from a player (admins only, logged); it holds on the player's next
        request. 403 ``admin_only``, 422 ``command_line_only``, 404 ``not_found``, 409 ``not_held``."""
        web_role(role)
        await moderation.revoke_moderator(admin.account, username)

    api.include_router(mod)
    return api
