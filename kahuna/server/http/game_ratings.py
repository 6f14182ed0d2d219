"""``GET /api/games/<id>/ratings``: the players' ratings of one game and a rated game's rating
change, for the game page (``kahuna.server.community.game_ratings`` says what and why)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter
from pydantic import BaseModel, Field

from kahuna.server.common.errors import Rejected
from kahuna.server.community.game_ratings import GameRatingService


class SeatRating(BaseModel):
    rating: int | None = Field(description="the account's rating in the game's pool now; null: a guest or no pool")
    before: int | None = Field(description="its rating before this game, once the game was rated")
    after: int | None = Field(description="its rating after this game, once the game was rated")
    account: bool = Field(description="an account plays the seat (a report may name it); false: a guest's seat")


class GameRatings(BaseModel):
    rated: bool
    paired: bool = Field(description="the game has its players' accounts (it is on their profiles): Rated or Casual")
    pool: str | None = Field(description="realtime or correspondence; null: a game not made in the lobby")
    players: list[SeatRating]


def router(ratings: GameRatingService) -> APIRouter:
    api = APIRouter(prefix="/api")

    @api.get("/games/{game_id}/ratings", response_model=GameRatings)
    async def ratings_of_game(game_id: str) -> dict[str, Any]:
        """Each seat's rating in the game's pool, and for a rated game that has ended its rating
        before and after (the end summary's change). 404 ``not_found``: no such game."""
        found = await ratings.of(game_id)
        if found is None:
            raise Rejected("not_found", f"no game {game_id!r}", 404)
        return found

    return api
