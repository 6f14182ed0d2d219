"""Tournaments' HTTP endpoints (``/api/tournaments``, docs/community.md); the work is in
``community/tournaments.py``. The request and answer models are the OpenAPI schema."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel, ConfigDict, Field, StrictInt

from kahuna.server.accounts.store import Account
from kahuna.server.community.tournaments import NewEvent, Tournaments
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.common import Name, client_ip

TournamentId = Annotated[str, Path(min_length=1, max_length=32)]


class TournamentClock(BaseModel):
    model_config = ConfigDict(extra="forbid")

    initial: StrictInt = Field(description="seconds on each clock at the start")
    increment: StrictInt = Field(default=0, description="seconds added after each turn")


class NewTournament(BaseModel):
    model_config = ConfigDict(extra="forbid")

    kind: Literal["swiss", "arena"]
    name: Name = Field(description="the player-name rules (common/names.py): refused with the reason in `422 invalid`")
    clock: TournamentClock
    rounds: StrictInt | None = Field(default=None, description="a Swiss's rounds (1 to 20)")
    minutes: StrictInt | None = Field(default=None, description="an Arena's length (1 to 1440)")
    rated: bool = False
    starts_at: datetime | None = Field(default=None, description="ISO-8601; null: when its creator starts it")
    join: bool = Field(default=False, description="the creator plays in it: joined as it is created (the page: true)")


class TournamentCreated(BaseModel):
    tournament_id: str


class TournamentSummary(BaseModel):
    tournament_id: str
    kind: Literal["swiss", "arena"]
    name: str
    creator: str = Field(description="the username of the account that created it (and may start it)")
    status: Literal["created", "running", "finished"]
    clock: dict[str, int]
    planned_rounds: int | None = Field(description="a Swiss's number of rounds")
    minutes: int | None
    rated: bool
    starts_at: float | None = Field(description="seconds since the epoch")
    started: float | None
    ends_at: float | None = Field(description="an Arena's end (no game starts after it)")
    finished: float | None
    round: int = Field(description="a Swiss's rounds paired so far")
    now: float = Field(description="the server's time, for countdowns")


class TournamentList(BaseModel):
    upcoming: list[TournamentSummary]
    running: list[TournamentSummary]
    finished: list[TournamentSummary]


class TournamentStanding(BaseModel):
    username: str
    score: float = Field(description="Swiss: points (a win 1, a draw ½, a bye 1); Arena: lichess's points")
    games: int
    tiebreaks: dict[str, Any] = Field(
        description="Swiss: buchholz, sonneborn_berger; Arena: fire (on a streak), sheet (points of each game)"
    )


class TournamentBoard(BaseModel):
    game_id: str | None = Field(description="null: a bye")
    players: list[str | None] = Field(description="seat 0 then seat 1 (null: the bye)")
    result: str | None = Field(description='"0"/"1": the seat that won, "draw", "none" (aborted), "bye"; null: playing')
    berserk: list[bool]


class TournamentEntry(BaseModel):
    username: str
    active: bool = Field(description="false once the player left")


class TournamentView(TournamentSummary):
    players: list[TournamentEntry]
    standings: list[TournamentStanding]
    rounds: list[list[TournamentBoard]] = Field(description="the boards of each Swiss round, or of each Arena pairing")


class MyTournamentGame(BaseModel):
    status: Literal["created", "running", "finished"]
    joined: bool
    berserk: bool
    game_id: str | None = Field(description="the player's running game in this tournament (null: none now)")
    seat: int | None
    seat_url: str | None = Field(description="/play/<game>#seat:N: the seat of the signed-in account")


class TournamentLeave(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: str | None = Field(default=None, max_length=20, description="only oneself")


class TournamentInvite(BaseModel):
    model_config = ConfigDict(extra="forbid")

    username: str = Field(min_length=2, max_length=20, description="an AI level's bot account: ai-easy, ai-medium …")


class TournamentBerserk(BaseModel):
    model_config = ConfigDict(extra="forbid")

    berserk: bool


def router(tournaments: Tournaments, auth: Authenticator) -> APIRouter:
    api = APIRouter(prefix="/api/tournaments", tags=["tournaments"])

    @api.post("", status_code=201, response_model=TournamentCreated)
    async def create(body: NewTournament, request: Request, account: Account = auth.account) -> dict[str, Any]:
        """Create a Swiss (``rounds``) or an Arena (``minutes``); it starts at ``starts_at`` or when
        its creator starts it."""
        starts_at = None if body.starts_at is None else _epoch(body.starts_at)
        clock = body.clock.model_dump()
        new = NewEvent(body.kind, body.name, clock, body.rounds, body.minutes, body.rated, starts_at, body.join)
        return {"tournament_id": await tournaments.create(new, account, client_ip(request))}

    @api.get("", response_model=TournamentList)
    async def listing() -> dict[str, Any]:
        """Upcoming, running and finished tournaments (the 50 newest of each)."""
        return await tournaments.listing()

    @api.get("/{tournament_id}", response_model=TournamentView)
    async def get(tournament_id: TournamentId) -> dict[str, Any]:
        """A tournament with its standings and its rounds (an Arena: each pairing pass)."""
        return await tournaments.get(tournament_id)

    @api.get("/{tournament_id}/me", response_model=MyTournamentGame)
    async def me(tournament_id: TournamentId, account: Account = auth.account) -> dict[str, Any]:
        """The signed-in player's running game in the tournament."""
        return await tournaments.me(tournament_id, account)

    @api.post("/{tournament_id}/join", status_code=204)
    async def join(tournament_id: TournamentId, account: Account | None = auth.maybe_account) -> None:
        await tournaments.join(tournament_id, account)

    @api.post("/{tournament_id}/leave", status_code=204)
    async def leave(
        tournament_id: TournamentId, account: Account = auth.account, body: TournamentLeave | None = None
    ) -> None:
        await tournaments.leave(tournament_id, account, None if body is None else body.username)

    @api.post("/{tournament_id}/invite", status_code=204)
    async def invite(tournament_id: TournamentId, body: TournamentInvite, account: Account = auth.account) -> None:
        """The creator invites an AI level's bot account: it joins, and the server's AI plays its games."""
        await tournaments.invite(tournament_id, account, body.username)

    @api.post("/{tournament_id}/start", status_code=204)
    async def start(tournament_id: TournamentId, account: Account = auth.account) -> None:
        await tournaments.start_now(tournament_id, account)

    @api.post("/{tournament_id}/berserk", status_code=204)
    async def berserk(tournament_id: TournamentId, body: TournamentBerserk, account: Account = auth.account) -> None:
        """An Arena player's choice: its next games start with half its clock, a win earns a point more."""
        await tournaments.berserk(tournament_id, account, body.berserk)

    return api


def _epoch(moment: datetime) -> float:
    """Seconds since the epoch (a time without zone is UTC)."""
    return (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).timestamp()
