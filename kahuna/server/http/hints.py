"""Hints while learning: ``POST /api/games/{id}/hint`` gives the seat to move the AI's move and
why (:mod:`kahuna.ai.review.hints`), computed in the AI worker pool from that seat's own view.

Hints are for learning, never against a person: the seat to move must be one the client holds a
token of, or one of the signed-in account's seats (session cookie with the CSRF header, or Bearer:
the same authority that plays the seat over the WebSocket without its token), and the other seat
must be an AI or be held by the same client (hot-seat: both tokens, or both seats the account's).
The server has no rated games yet; when it does, they get no hints either.
Each address may ask ``hints_per_minute`` (with a burst), since a hint is an expert's search.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict, Field

from kahuna.ai.review.hints import hint
from kahuna.rules import view_of
from kahuna.server.accounts.store import Account
from kahuna.server.common.draws import random_seed
from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import LimiterFactory, memory_limiter
from kahuna.server.games.ai_pool import AiPool
from kahuna.server.games.service import GameService
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.common import GameId, Secret, client_ip


class HintRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    tokens: Annotated[list[Secret], Field(max_length=2)] = []
    """The seat tokens this client holds for the game (both in hot-seat); none for a signed-in
    account's own seats."""


def router(
    service: GameService,
    ai: AiPool,
    auth: Authenticator,
    per_minute: float,
    burst: int,
    limiters: LimiterFactory = memory_limiter,
) -> APIRouter:
    api = APIRouter(prefix="/api")
    quota = limiters("hints", per_minute / 60.0, burst)

    @api.post("/games/{game_id}/hint")
    async def give_hint(
        game_id: GameId,
        body: HintRequest,
        request: Request,
        account: Account | None = auth.maybe_account,
    ) -> dict[str, Any]:
        """The move the expert AI would play now for the seat to move, and one line on why (403 in a
        game against a person, 409 when it is not a held seat's turn, 429 over the quota)."""
        game = await service.get(game_id)
        if game is None:
            raise Rejected("not_found", "no such game", 404)
        held = await auth.held_seats(game, body.tokens, account)
        if not held:
            raise Rejected("forbidden", "hints are for the players of the game", 403)
        state = game.state
        mover = state.to_move
        if state.is_over or mover not in held:
            raise Rejected("not_your_turn", "a hint is for the seat to move", 409)
        other = 1 - mover
        if game.ai_spec(other) is None and other not in held:
            raise Rejected("no_hints", "no hints in a game against another person", 403)
        wait = await quota.take(client_ip(request))
        if wait:
            raise Rejected("rate_limited", "too many hints: try again soon", 429, retry_after=wait)
        version = game.version
        given = await ai.run(f"hint:{client_ip(request)}", hint, view_of(state, mover), random_seed())
        return {"version": version, **given.to_json()}

    return api
