"""The lobby's HTTP endpoints: seeks, quick pairing (docs/community.md); its WebSocket ``/ws/lobby``
is ``http/lobby_socket.py``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query, Request, Response
from pydantic import BaseModel, ConfigDict, Field

from kahuna.server.accounts.store import Account
from kahuna.server.common import protocol
from kahuna.server.community.lobby import Lobby
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.browsers import BROWSER_COOKIE, browser_id
from kahuna.server.http.common import Name, NewSeek, SeekId, SeekToken, client_ip, offer_of


class PublicSeek(BaseModel):
    seek_id: str
    kind: str
    status: str
    username: str
    account: bool = Field(description="whether an account made it (else a guest)")
    rating: int | None
    clock: dict[str, int] | None
    variant: list[str]
    rated: bool


class SeekPage(BaseModel):
    seeks: list[PublicSeek]
    page: int
    pages: int = Field(description="pages in all (at least 1)")
    total: int = Field(description="seeks listed in all")


class AcceptSeek(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name = "Player"


def router(lobby: Lobby, auth: Authenticator) -> APIRouter:
    api = APIRouter(prefix="/api")

    @api.post("/seeks", status_code=201)
    async def create_seek(
        body: NewSeek, request: Request, response: Response, account: Account | None = auth.maybe_account
    ) -> dict[str, Any]:
        """Open a seek in the lobby: ``{"seek_id", "token"}``; keep the token, it is your seat.

        Guests may seek unrated games; rated ones need an account and a clock."""
        browser = browser_id(request, response)
        return await lobby.create(offer_of("seek", body), account, client_ip(request), browser=browser)

    @api.get("/seeks", response_model=SeekPage)
    async def list_seeks(page: Annotated[int, Query(ge=1, le=1000)] = 1) -> protocol.SeekPage:
        """One page of the open seeks, fairly ordered: at most two per address, every address's
        first before anyone's second, the newest first within each round (docs/community.md)."""
        return await lobby.open_seeks(page)

    @api.get("/seeks/{seek_id}")
    async def seek_status(seek_id: SeekId, token: SeekToken = None) -> dict[str, Any]:
        """An offer; with its ``X-Seek-Token`` it is kept alive, and once accepted its owner's seat."""
        return await lobby.status(seek_id, token)

    @api.post("/seeks/{seek_id}/accept")
    async def accept_seek(
        seek_id: SeekId, request: Request, account: Account | None = auth.maybe_account, body: AcceptSeek | None = None
    ) -> dict[str, Any]:
        """Take the other seat (drawn at random): ``{"game_id", "seat", "token", "seat_url"}``; 409
        once taken, and ``own_seek`` for one's own offer (a guest's: from the browser that made it)."""
        name = "Player" if body is None else body.name
        return await lobby.accept(seek_id, account, name, request.cookies.get(BROWSER_COOKIE))

    @api.delete("/seeks/{seek_id}", status_code=204)
    async def cancel_seek(
        seek_id: SeekId, account: Account | None = auth.maybe_account, token: SeekToken = None
    ) -> None:
        """Withdraw an offer (its token, or the account that made it)."""
        await lobby.cancel(seek_id, token, account)

    @api.post("/pairing", status_code=201)
    async def play_now(
        body: NewSeek, request: Request, response: Response, account: Account | None = auth.maybe_account
    ) -> dict[str, Any]:
        """Quick pairing: ``{"seek_id", "token"}`` plus the seat links if an opponent was waiting;
        else wait (``/ws/lobby`` or polling ``GET /api/seeks/<id>``) for the matcher."""
        browser = browser_id(request, response)
        return await lobby.create(offer_of("pool", body), account, client_ip(request), browser=browser)

    return api
