"""The HTTP API of docs/protocol.md: create, join, list and summarize games, and their records.

Every endpoint is rate limited per client address before a request gets here (``guard.py``).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Request
from fastapi.responses import JSONResponse, Response
from pydantic import AfterValidator, BaseModel, ConfigDict, Field, StrictBool, StrictInt, WithJsonSchema

from kahuna.ai.levels import LEVELS
from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.common.tokens import digest
from kahuna.server.games import ai_pool as ai_seats
from kahuna.server.games import outgoing
from kahuna.server.games.creating import NewGame
from kahuna.server.games.live import LiveGame
from kahuna.server.games.service import GameService
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.common import GameId, Name, Secret, client_ip

AI_LEVELS = (*LEVELS, "random")
"""What ``level`` may name: the levels of ``kahuna.ai.levels`` and the uniformly random baseline."""


def _known_level(level: str) -> str:
    if level not in AI_LEVELS:
        raise ValueError(f"unknown level {level!r} (levels: {', '.join(AI_LEVELS)})")
    return level


Level = Annotated[
    str, AfterValidator(_known_level), WithJsonSchema({"type": "string", "enum": list(AI_LEVELS), "default": "easy"})
]


class CreateGame(BaseModel):
    model_config = ConfigDict(extra="forbid")

    opponent: Literal["ai", "human", "hotseat", "tutorial"]
    level: Level = "easy"
    variant: list[Literal["no_build_at_enemy_stone", "replace_on_remove"]] = Field(default_factory=list, max_length=2)
    seat: Literal["first", "second", "random"] = "random"
    name: Name = "Player"
    clock: dict[str, StrictInt] | None = Field(
        default=None,
        max_length=2,
        description='{"initial": SECONDS, "increment": SECONDS} (real time), {"days": N} (correspondence), or null',
        examples=[{"initial": 300, "increment": 3}, {"days": 2}],
    )
    unlisted: StrictBool = Field(
        default=False,
        description="keep the game off the live list and the Watch page (hot-seat games always are)",
    )


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
    clock: dict[str, Any] | None = Field(
        description="timed games: the time control, each seat's seconds left now, and which clock runs"
    )
    rematch: str | None = Field(description="the id of the rematch the players agreed on")
    rematch_of: str | None = Field(description="the id of the game this one is the rematch of")
    rated: bool = Field(description="whether the game counts for ratings (a lobby game between two accounts)")
    casual_reason: str | None = Field(
        description="why a game asked for as rated was started casual: `pair_limit` (docs/community.md)"
    )


class Levels(BaseModel):
    levels: list[str]


class MyGame(Summary):
    seat: int
    token: str


def router(service: GameService, auth: Authenticator) -> APIRouter:
    """``auth``: a signed-in player's new seats become its account's."""
    api = APIRouter(prefix="/api")

    async def game_or_404(game_id: str) -> LiveGame:
        game = await service.get(game_id)
        if game is None:
            raise Rejected("not_found", f"no game {game_id!r}", 404)
        return game

    @api.post("/games", status_code=201, response_model=CreatedGame)
    async def create_game(
        body: CreateGame, request: Request, account: Account | None = auth.maybe_account
    ) -> dict[str, Any]:
        """Create a game against the AI, a friend (invite link) or hotseat; returns the creator's seat link.

        A signed-in creator's seats become its account's (its "my games" on any browser), and its
        seat bears the account's name: the game is on its profile (docs/community.md)."""
        name = body.name if account is None else account.username
        spec = NewGame(body.opponent, body.level, tuple(body.variant), body.seat, name, body.clock, body.unlisted)
        owner = digest(f"address:{client_ip(request)}")
        created = await service.create(spec, owner=owner, account=None if account is None else account.id)
        if account is not None:
            await auth.accounts.adopt(account, created["tokens"] or [created["token"]])
        return created

    @api.get("/levels", response_model=Levels)
    async def levels() -> dict[str, Any]:
        """The AI levels this server offers, weakest first (the lobby's list)."""
        return {"levels": [level for level in ("random", *LEVELS) if ai_seats.available(level)]}

    @api.post("/join/{invite}", response_model=SeatLinks)
    async def join_game(
        invite: Annotated[str, Path(max_length=64)],
        body: JoinGame,
        request: Request,
        account: Account | None = auth.maybe_account,
    ) -> dict[str, Any]:
        """Take the free seat of a human game (409 once taken); a signed-in player's seat becomes its
        account's and bears its name."""
        if account is None:
            joined = await service.join(invite, body.name)
        else:
            joined = await service.join(invite, account.username, account.id)
        if account is not None:
            await auth.accounts.adopt(account, [joined["token"]])
        return joined

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
        """A finished game's full kahuna-record/1; an unfinished game's public record only.

        A finished game's record is sent as a file to save (``kahuna-<game id>.json``, what the
        game page's "Download" button gets), which ``kahuna replay`` and ``kahuna show`` read."""
        game = await game_or_404(game_id)
        if not game.state.is_over:
            return JSONResponse(game.public_record())
        disposition = f'attachment; filename="kahuna-{game.game_id}.json"'
        return JSONResponse(game.full_record(), headers={"Content-Disposition": disposition})

    @api.get("/games/{game_id}/replay", response_class=Response)
    async def game_replay(game_id: GameId) -> Response:
        """A finished game step by step as a spectator saw it (409 ``not_over`` before the end).

        Its steps are computed once per game, in a worker thread, and sent as they were."""
        game = await game_or_404(game_id)
        if not game.state.is_over:
            raise Rejected("not_over", "the replay is available once the game is over", 409)
        summary = game.summary()
        head = {key: summary[key] for key in ("game_id", "players", "kinds", "variant", "result")}
        body = (
            json.dumps(head, ensure_ascii=False).encode()[:-1]
            + b', "steps": '
            + await outgoing.replay_json(game)
            + b"}"
        )
        return Response(body, media_type="application/json")

    return api
