"""Finding players (``GET /api/users?prefix=``), public profiles (``GET /api/users/<name>``), a
player's finished games as JSON lines (``GET /api/users/<name>/games.jsonl``) and the leaderboard
(``GET /api/leaderboard``); what they show is read by ``community.players`` (which bounds the scans
of a player's games per address).
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field

from kahuna.server.accounts.search import MAX_RESULTS
from kahuna.server.community.player_games import PAGE_SIZE, SCAN_LIMIT
from kahuna.server.community.players import Players
from kahuna.server.http.common import client_ip

MAX_PAGE = SCAN_LIMIT // PAGE_SIZE
"""The last page the games list can have (it is made from the newest ``SCAN_LIMIT`` games)."""


class FoundUser(BaseModel):
    username: str
    is_bot: bool


class FoundUsers(BaseModel):
    users: list[FoundUser] = Field(description=f"at most {MAX_RESULTS}, an exact match first, then by name, case aside")


class PlayerGames(BaseModel):
    games: list[dict[str, Any]] = Field(description=f"at most {PAGE_SIZE}, the newest first")
    page: int
    pages: int
    total: int


def router(players: Players) -> APIRouter:
    api = APIRouter(prefix="/api")

    @api.get("/users", response_model=FoundUsers)
    async def search(
        prefix: Annotated[str, Query(description="the start of a username, 1 to 20 of its characters")],
    ) -> dict[str, Any]:
        """Accounts whose name starts like ``prefix``, compared as sign-up compares names (without
        regard to case, ASCII look-alikes merged); deleted accounts are not found. 422 ``invalid``
        with the ``reason`` (``prefix_length``, ``username_chars``) for a prefix no name can start with."""
        return {"users": await players.search(prefix)}

    @api.get("/users/{username}")
    async def user(request: Request, username: Annotated[str, Path(min_length=1, max_length=20)]) -> dict[str, Any]:
        """A player's ratings in both pools, rating history, recent lobby games, statistics, follow
        counts and whether the player is online."""
        return await players.profile(client_ip(request), username)

    @api.get("/users/{username}/games", response_model=PlayerGames)
    async def games_list(
        request: Request,
        username: Annotated[str, Path(min_length=1, max_length=20)],
        result: Annotated[Literal["win", "loss", "draw"] | None, Query()] = None,
        opponent: Annotated[str | None, Query(min_length=1, max_length=20)] = None,
        page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1,
    ) -> dict[str, Any]:
        """A player's lobby games, newest first, 20 a page: of one ``result`` and against one
        ``opponent`` (a username) if asked. 404 ``not_found`` for an unknown player or opponent."""
        return await players.games(client_ip(request), username, result, opponent, page)

    @api.get(
        "/users/{username}/games.jsonl",
        response_class=StreamingResponse,
        responses={200: {"content": {"application/x-ndjson": {}}, "description": "one kahuna-record/1 per line"}},
    )
    async def games_jsonl(username: Annotated[str, Path(min_length=1, max_length=20)]) -> StreamingResponse:
        """Every finished game a player's profile lists, one ``kahuna-record/1`` per line, oldest
        first, streamed as it is read from the database a page at a time."""
        account, records = await players.exported(username)

        async def lines() -> AsyncIterator[bytes]:
            async for record in records:
                yield json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"

        filename = f"kahuna-{account.username}-games.jsonl"
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        return StreamingResponse(lines(), media_type="application/x-ndjson", headers=headers)

    @api.get("/leaderboard")
    async def board(pool: Annotated[Literal["realtime", "correspondence"], Query()] = "realtime") -> dict[str, Any]:
        """The top players of a pool whose rating is trusted (deviation < 75); the others apart, unranked."""
        return await players.leaderboard(pool)

    return api
