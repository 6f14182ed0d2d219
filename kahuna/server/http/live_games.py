"""The games being played now that anyone may watch: ``GET /api/games/live`` (what is listed, and
in which order: ``kahuna.server.community.live_games``). Spectator facts only: names, ratings,
the clock and how many actions were played; the board is watched at ``watch_url``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from kahuna.server.community.live_games import DEFAULT_LIMIT, MAX_LIMIT, LiveList


class LivePlayer(BaseModel):
    name: str | None
    account: bool = Field(description="whether the seat is an account's (else a guest's)")
    rating: int | None = Field(description="the account's rating in the game's pool; null: a guest or no pool")
    kind: str = Field(default="human", description='"human", or "ai:<level>" for an AI level\'s seat')


class LiveClock(BaseModel):
    control: dict[str, int]
    remaining: list[float] = Field(description="each seat's seconds left when the list was made")
    running: int | None = Field(description="whose clock runs (null: waiting for the first move)")


class LiveGameEntry(BaseModel):
    game_id: str
    players: list[LivePlayer]
    rated: bool
    pool: str | None
    clock: LiveClock | None
    moves: int = Field(description="actions played so far (the game's move number)")
    created: str
    watch_url: str


class LiveGames(BaseModel):
    games: list[LiveGameEntry]


def router(shared: LiveList) -> APIRouter:
    api = APIRouter(prefix="/api")

    @api.get("/games/live", response_model=LiveGames)
    async def running(limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT) -> dict[str, Any]:
        """The games being played now, rated first, best rated first (at most ``limit``, 1 to 50;
        422 ``invalid`` beyond), as read at most a second ago. Hot-seat games and games created
        unlisted are never listed (docs/community.md)."""
        return {"games": await shared.first(limit)}

    return api
