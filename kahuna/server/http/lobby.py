"""The lobby's HTTP endpoints: seeks, quick pairing (docs/community.md); its WebSocket ``/ws/lobby``
is ``http/lobby_socket.py``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import BaseModel, ConfigDict

from kahuna.server.community.lobby import Lobby
from kahuna.server.http.common import MaybeAccount, Name, NewSeek, SeekId, SeekToken, client_ip, offer_of


class AcceptSeek(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name = "Player"


def router(lobby: Lobby) -> APIRouter:
    api = APIRouter(prefix="/api")

    @api.post("/seeks", status_code=201)
    async def create_seek(body: NewSeek, request: Request, account: MaybeAccount) -> dict[str, Any]:
        """Open a seek in the lobby: ``{"seek_id", "token"}``; keep the token, it is your seat.

        Guests may seek unrated games; rated ones need an account and a clock."""
        return await lobby.create(offer_of("seek", body), account, client_ip(request))

    @api.get("/seeks")
    async def list_seeks() -> dict[str, Any]:
        """The open seeks, oldest first."""
        return {"seeks": await lobby.open_seeks()}

    @api.get("/seeks/{seek_id}")
    async def seek_status(seek_id: SeekId, token: SeekToken = None) -> dict[str, Any]:
        """An offer; with its ``X-Seek-Token`` it is kept alive, and once accepted its owner's seat."""
        return await lobby.status(seek_id, token)

    @api.post("/seeks/{seek_id}/accept")
    async def accept_seek(seek_id: SeekId, account: MaybeAccount, body: AcceptSeek | None = None) -> dict[str, Any]:
        """Take the other seat (drawn at random): ``{"game_id", "seat", "token", "seat_url"}``; 409 once taken."""
        return await lobby.accept(seek_id, account, "Player" if body is None else body.name)

    @api.delete("/seeks/{seek_id}", status_code=204)
    async def cancel_seek(seek_id: SeekId, account: MaybeAccount, token: SeekToken = None) -> None:
        """Withdraw an offer (its token, or the account that made it)."""
        await lobby.cancel(seek_id, token, account)

    @api.post("/pairing", status_code=201)
    async def play_now(body: NewSeek, request: Request, account: MaybeAccount) -> dict[str, Any]:
        """Quick pairing: ``{"seek_id", "token"}`` plus the seat links if an opponent was waiting;
        else wait (``/ws/lobby`` or polling ``GET /api/seeks/<id>``) for the matcher."""
        return await lobby.create(offer_of("pool", body), account, client_ip(request))

    return api
