"""Reports (issue 48; docs/moderation.md).

``POST /api/reports`` (a signed-in account: session with CSRF, or a Bearer token with the ``play``
scope) reports a player, from a profile, a game or a chat line; ``GET /api/me/reports`` lists the
account's reports with their status, never what was done. The rules are ``moderation.reports``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from kahuna.server.http.common import TheAccount, client_ip
from kahuna.server.moderation import reports
from kahuna.server.moderation.service import Moderation


class NewReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: str = Field(min_length=1, max_length=20)
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


def router(moderation: Moderation) -> APIRouter:
    api = APIRouter(prefix="/api", tags=["moderation"])

    @api.post("/reports", status_code=201, response_model=MadeReport)
    async def report(body: NewReport, account: TheAccount, request: Request) -> dict[str, Any]:
        """Report a player. 404 ``not_found``, 422 ``own_account``, 403 ``bot_account`` (a bot
        account does not report), 422 ``note_too_long``, 422 ``not_in_game`` (the player did not
        play ``game_id``), 404 ``no_such_line``, 422 ``not_their_line``, 409 ``already_reported``
        (your report of the player is still open), 429 ``rate_limited``."""
        made = await moderation.report(
            account, client_ip(request), body.username, body.reason, body.note, body.game_id, body.line_id
        )
        return {"report_id": made}

    @api.get("/me/reports", response_model=MyReports)
    async def my_reports(account: TheAccount) -> dict[str, Any]:
        """The signed-in account's reports, the newest first (at most 200), with their status."""
        return {"reports": await moderation.reports_by(account)}

    return api
