"""The games being played now that anyone may watch: ``GET /api/games/live`` (what is listed, and
in which order: ``kahuna.server.community.live_games``). Spectator facts only: names, ratings,
the clock and how many actions were played; the board is watched at ``watch_url``."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel, Field

from kahuna.server.community.live_games import DEFAULT_LIMIT, MAX_LIMIT, live_games
from kahuna.server.db.writer import Writer


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


FRESH_SECONDS = 1.0
"""How long one reading of the list serves every request: the list is the same for everyone, and
the Watch page, TV and the lobby of every visitor ask for it."""


class SharedList:
    """The live list read at most once per :data:`FRESH_SECONDS` (its :data:`MAX_LIMIT` entries; a
    smaller ``limit`` is their beginning), by one reading at a time however many requests come at
    once: under load a reading waits for the database's threads, and each request used to add
    one (``kahuna bench server --probe``, docs/community.md)."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self._read_at = float("-inf")
        self._games: list[dict[str, Any]] = []
        self._reading: asyncio.Task[list[dict[str, Any]]] | None = None

    async def first(self, limit: int) -> list[dict[str, Any]]:
        if time.monotonic() - self._read_at > FRESH_SECONDS:
            if self._reading is None:
                self._reading = asyncio.ensure_future(self.writer.read(lambda conn: live_games(conn, MAX_LIMIT)))
                try:
                    began = time.monotonic()
                    self._games = await asyncio.shield(self._reading)
                    self._read_at = began
                finally:
                    self._reading = None
            else:
                await asyncio.shield(self._reading)
        return self._games[:limit]


def router(writer: Writer) -> APIRouter:
    api = APIRouter(prefix="/api")
    shared = SharedList(writer)

    @api.get("/games/live", response_model=LiveGames)
    async def running(limit: Annotated[int, Query(ge=1, le=MAX_LIMIT)] = DEFAULT_LIMIT) -> dict[str, Any]:
        """The games being played now, rated first, best rated first (at most ``limit``, 1 to 50;
        422 ``invalid`` beyond), as read at most a second ago. Hot-seat games and games created
        unlisted are never listed (docs/community.md)."""
        return {"games": await shared.first(limit)}

    return api
