"""Puzzles (issue 52; docs/puzzles.md): ``GET /api/puzzles/daily``, ``GET /api/puzzles/next``,
``POST /api/puzzles/<id>/attempt`` and an account's puzzle history for its profile.

A puzzle is shown as ``{"puzzle_id", "view", "legal", "rating", "themes"}``: the seat's view and
its legal actions, nothing else of the position. An attempt's answer is ``{"correct", "solution",
"rating", "view", "events"}``: ``correct`` null while the actions are right so far and the turn not
closed (nothing counted, no solution; ``view`` the seat's view after them, with its ``legal`` actions
and the last action's ``events``, for the board to go on), else true or false with the best turn as
``solution``, ``view`` the position the answer reached and ``solution_view`` the solution's;
``rating`` is ``{"before", "after"}`` when a signed-in account's first answer moved its puzzle
rating, else null.
Guests play too (not rated). The rules are :class:`kahuna.server.puzzles.service.Puzzles`.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query, Request
from pydantic import BaseModel, ConfigDict, Field

from kahuna.server.accounts.store import Account
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.common import client_ip
from kahuna.server.puzzles.service import MAX_ACTIONS, Puzzles

PuzzleId = Annotated[str, Path(min_length=1, max_length=16, pattern=r"^[0-9a-f]+$")]
Token = Annotated[str, Field(min_length=1, max_length=20)]


class Attempt(BaseModel):
    model_config = ConfigDict(extra="forbid")

    actions: list[Token] = Field(
        min_length=1, max_length=MAX_ACTIONS, description="the actions from the puzzle's position, in notation"
    )


class Shown(BaseModel):
    puzzle_id: str
    view: dict[str, Any] = Field(description="the seat's view (docs/views.md): its own hand, never the opponent's")
    legal: list[str] = Field(description="the legal actions in notation")
    rating: int = Field(description="the puzzle's rating now")
    themes: list[str]
    foreseen: dict[str, Any] = Field(
        description="what the referee foresees from the view (the screen-reader mode's lists): "
        "`actions` (token: the events it causes beyond itself) and `close`, as a game's `foreseen`"
    )


class RatingChange(BaseModel):
    before: int
    after: int


class Answer(BaseModel):
    correct: bool | None = Field(description="null: right so far, the turn not closed yet (nothing counted)")
    solution: list[str] | None = Field(description="the best turn, once answered")
    rating: RatingChange | None = Field(description="the account's puzzle rating, when this answer counted")
    view: dict[str, Any] | None = Field(
        default=None, description="the seat's view after the actions (up to the miss, once answered)"
    )
    legal: list[str] | None = Field(default=None, description="right so far only: the legal actions then")
    events: list[dict[str, Any]] | None = Field(
        default=None, description="the last action's events, as the seat saw them"
    )
    solution_view: dict[str, Any] | None = Field(
        default=None, description="once answered: the seat's view after the solution"
    )
    foreseen: dict[str, Any] | None = Field(
        default=None, description="right so far only: what the referee foresees then, as in a puzzle shown"
    )


class Answered(BaseModel):
    puzzle_id: str
    correct: bool
    at: float
    before: int
    after: int
    themes: list[str]
    retired: bool = Field(
        description="the shipped set no longer holds the puzzle: it is never offered again (its answer still counts)"
    )


class History(BaseModel):
    username: str
    rating: int = Field(description="the account's puzzle rating (1500: never answered one)")
    answers: list[Answered] = Field(description="its counted answers, the newest first, at most 50")


def router(puzzles: Puzzles, auth: Authenticator) -> APIRouter:
    api = APIRouter(prefix="/api/puzzles", tags=["puzzles"])

    @api.get("/daily", response_model=Shown)
    async def daily() -> dict[str, Any]:
        """The puzzle of the day (UTC), the same on every instance."""
        return await puzzles.daily()

    @api.get("/next", response_model=Shown)
    async def next_puzzle(
        account: Account | None = auth.maybe_account,
        above: Annotated[float | None, Query(ge=0, le=5000, description="only puzzles rated above this")] = None,
    ) -> dict[str, Any]:
        """A puzzle near the player's puzzle rating that the account has not answered (guests:
        near 1500); ``above`` for a streak, each puzzle harder than the last. 404 when none is left."""
        return await puzzles.next(account, above)

    @api.post("/{puzzle_id}/attempt", response_model=Answer, response_model_exclude_unset=True)
    async def attempt(
        puzzle_id: PuzzleId, body: Attempt, request: Request, account: Account | None = auth.maybe_account
    ) -> dict[str, Any]:
        """Check an answer with the referee. 404 ``not_found``, 422 ``illegal`` (with the referee's
        ``reason`` and the ``step`` refused: nothing counted), 429 ``rate_limited``."""
        return await puzzles.attempt(puzzle_id, list(body.actions), account, client_ip(request))

    @api.get("/history/{username}", response_model=History)
    async def history(username: Annotated[str, Path(min_length=1, max_length=20)]) -> dict[str, Any]:
        """A player's puzzle rating and latest counted answers (its profile shows them)."""
        return await puzzles.history(username)

    return api
