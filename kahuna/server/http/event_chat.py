"""An event's chat over HTTP (``/api/tournaments/{id}/chat``, docs/community.md, *Tournaments*); the
work is in ``community/event_chat.py``, the live lines come over ``/ws/lobby`` (``watch``)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, ConfigDict, Field, StrictStr

from kahuna.server.accounts.store import Account
from kahuna.server.common.protocol import TournamentChatLine
from kahuna.server.community.event_chat import EventChat
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.tournaments import TournamentId


class EventLine(BaseModel):
    line_id: int
    username: str
    text: str
    at: float = Field(description="seconds since the epoch")


class EventLines(BaseModel):
    lines: list[EventLine] = Field(description="the newest 100 lines, oldest first")


class NewEventLine(BaseModel):
    model_config = ConfigDict(extra="forbid")

    text: StrictStr = Field(max_length=2000, description="the game chat's rules (common/names.py, clean_chat)")


def router(chat: EventChat, auth: Authenticator) -> APIRouter:
    api = APIRouter(prefix="/api/tournaments", tags=["tournaments"])

    @api.get("/{tournament_id}/chat", response_model=EventLines)
    async def lines(tournament_id: TournamentId, account: Account | None = auth.maybe_account) -> dict[str, Any]:
        """The event's chat: its newest 100 lines (anyone who can see the event)."""
        return {"lines": await chat.lines(tournament_id, None if account is None else account.id)}

    @api.post("/{tournament_id}/chat", status_code=201, response_model=EventLine)
    async def post(
        tournament_id: TournamentId, body: NewEventLine, account: Account = auth.account
    ) -> TournamentChatLine:
        """A line from one of the event's players (``403 not_entrant``, ``403 muted``, ``409 finished``,
        ``422 invalid``, ``429 rate_limited``)."""
        return await chat.post(tournament_id, account.id, body.text)

    return api
