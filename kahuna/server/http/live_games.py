"""The games being played now that anyone may watch: ``GET /api/games/live`` (what is listed, and
in which order: ``kahuna.server.community.live_games``). Spectator facts only: names, ratings,
the clock and how many actions were played; the board is watched at ``watch_url``."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from kahuna.server.community.live_games import DEFAULT_LIMIT, MAX_LIMIT, live_games
from kahuna.server.db.writer import Writer


class LivePlayer(BaseModel):
    name: str | None
    account: bool = Field(description="whether the seat is an account's (else a guest's)")
    rating: int | None = Field(description="the account's rating in the game's pool; null: a guest or no pool")


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


def router(writer: Writer) -> APIRouter:
    api = APIRouter(prefix="/api")

    @api.get("/games/live", response_model=LiveGames)
    async def running(limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT) -> dict[str, Any]:
        """The lobby's games being played now, rated first, best rated first (at most ``limit``,
        1 to 50; 422 ``invalid`` beyond). Hot-seat games, games by invite link and games against
        the AI from the home page are private: never listed."""
        return {"games": await writer.read(lambda conn: live_games(conn, limit))}

    return api
