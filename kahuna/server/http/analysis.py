"""The analysis endpoints: ``POST /api/games/{id}/analysis`` (a player starts it) and ``GET``
(anyone follows it, then reads it); the work itself is ``kahuna.server.games.analysis``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict

from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.games.analysis import AnalysisJobs
from kahuna.server.games.live import LiveGame
from kahuna.server.games.service import GameService
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.common import GameId, Secret, client_ip


class AnalysisRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")

    token: Secret | None = None
    """A seat token of the game; none when the signed-in account holds a seat of it."""


def router(service: GameService, jobs: AnalysisJobs, auth: Authenticator) -> APIRouter:
    """``POST /api/games/{id}/analysis`` (a player: start it) and ``GET`` (anyone: follow it, read it)."""
    api = APIRouter(prefix="/api")

    async def game_or_404(game_id: str) -> LiveGame:
        game = await service.get(game_id)
        if game is None:
            raise Rejected("not_found", "no such game", 404)
        return game

    @api.post("/games/{game_id}/analysis")
    async def request_analysis(
        game_id: GameId,
        body: AnalysisRequest,
        request: Request,
        account: Account | None = auth.maybe_account,
    ) -> dict[str, Any]:
        """Start the analysis of a finished game (a player's seat token, or an account's seat; 409
        before the end, 403 for no seat, 429 when the address's quota is spent) and return where it is."""
        game = await game_or_404(game_id)
        tokens = [] if body.token is None else [body.token]
        if not await auth.held_seats(game, tokens, account):
            raise Rejected("not_a_player", "only a player of the game may ask for its analysis", 403)
        if not game.state.is_over:
            raise Rejected("not_over", "the analysis is available once the game is over", 409)
        await jobs.request(game, client_ip(request))
        return await jobs.status(game)

    @api.get("/games/{game_id}/analysis")
    async def public_analysis(game_id: GameId) -> dict[str, Any]:
        """Where a game's analysis is, and once done the analysis itself."""
        return await jobs.status(await game_or_404(game_id))

    return api
