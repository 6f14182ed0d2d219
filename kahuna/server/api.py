"""The HTTP API of docs/protocol.md: create, join, list and summarize games, and their records."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from kahuna.server.live import LiveGame
from kahuna.server.service import GameService, NewGame, Rejected

Name = Annotated[
    str, StringConstraints(strip_whitespace=True, min_length=1, max_length=40, pattern=r"^[^\x00-\x1f\x7f]+$")
]
"""A player's name: shown to others, so no control characters."""
Secret = Annotated[str, StringConstraints(min_length=1, max_length=64)]
GameId = Annotated[str, Path(min_length=1, max_length=32)]


class CreateGame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    opponent: Literal["ai", "human", "hotseat"]
    level: Literal["easy", "medium", "hard", "expert", "random"] = "easy"
    variant: list[Literal["no_build_at_enemy_stone", "replace_on_remove"]] = Field(default_factory=list, max_length=2)
    seat: Literal["first", "second", "random"] = "random"
    name: Name = "Player"


class JoinGame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name = "Player"


class MyGames(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tokens: list[Secret] = Field(max_length=200)


class SeatLinks(BaseModel):
    game_id: str
    seat: int
    token: str
    seat_url: str
    spectator_url: str


class CreatedGame(SeatLinks):
    invite_url: str | None
    tokens: list[str] | None


class Summary(BaseModel):
    game_id: str
    players: list[str | None]
    kinds: list[str]
    variant: dict[str, bool]
    status: Literal["waiting", "playing", "over"]
    version: int
    to_move: int | None
    result: dict[str, Any] | None
    created: str
    updated: str


class MyGame(Summary):
    seat: int
    token: str


def router(service: GameService) -> APIRouter:
    api = APIRouter(prefix="/api")

    async def game_or_404(game_id: str) -> LiveGame:
        game = await service.get(game_id)
        if game is None:
            raise Rejected("not_found", f"no game {game_id!r}", 404)
        return game

    @api.post("/games", status_code=201, response_model=CreatedGame)
    async def create_game(body: CreateGame) -> dict[str, Any]:
        """Create a game against the AI, a friend (invite link) or hotseat; returns the creator's seat link."""
        spec = NewGame(body.opponent, body.level, tuple(body.variant), body.seat, body.name)
        return await service.create(spec)

    @api.post("/join/{invite}", response_model=SeatLinks)
    async def join_game(invite: Annotated[str, Path(max_length=64)], body: JoinGame) -> dict[str, Any]:
        """Take the free seat of a human game (409 once taken)."""
        return await service.join(invite, body.name)

    @api.get("/games/{game_id}", response_model=Summary)
    async def game_summary(game_id: GameId) -> dict[str, Any]:
        """Public summary of a game."""
        return (await game_or_404(game_id)).summary()

    @api.post("/my-games", response_model=list[MyGame])
    async def my_games(body: MyGames) -> list[dict[str, Any]]:
        """The games of the seat tokens a browser holds (unknown tokens are skipped)."""
        return await service.my_games(body.tokens)

    @api.get("/games/{game_id}/record")
    async def game_record(game_id: GameId) -> JSONResponse:
        """A finished game's full kahuna-record/1; an unfinished game's public record only."""
        game = await game_or_404(game_id)
        return JSONResponse(game.full_record() if game.state.is_over else game.public_record())

    @api.get("/games/{game_id}/replay")
    async def game_replay(game_id: GameId) -> dict[str, Any]:
        """A finished game step by step as a spectator saw it (409 ``not_over`` before the end)."""
        game = await game_or_404(game_id)
        if not game.state.is_over:
            raise Rejected("not_over", "the replay is available once the game is over", 409)
        summary = game.summary()
        head = {key: summary[key] for key in ("game_id", "players", "kinds", "variant", "result")}
        return {**head, "steps": game.replay_steps()}

    return api


def rejected_response(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, Rejected)
    return JSONResponse({"error": exc.code, "message": exc.message}, status_code=exc.status)
