"""Challenges to one account, and turning an account into a bot (``/api/challenges``, ``/api/me/bot``).

A challenge to an AI level's bot account (``ai-easy`` … ``ai-expert``, ``community/bots.py``) is
accepted at once and the server's AI plays its seat. A challenge to any other account (a person,
or an online bot run by ``kahuna bot``) waits for it to accept or decline (``/ws/lobby`` tells it
at once); one to the site's own account (``kahuna``), which nothing answers, is refused. ``GET
/api/me/pair-limits`` lists the opponents against whom a rated game would start casual today (at
most three rated games between the same two people in 24 hours).
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from pydantic import Field

from kahuna.server.accounts import store as db
from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.community import relations
from kahuna.server.community.bots import level_of, make_bot, refuse_unplayable
from kahuna.server.community.lobby import Lobby
from kahuna.server.games import rated_pairs
from kahuna.server.http.auth import Authenticator
from kahuna.server.http.common import NewSeek, SeekId, SeekToken, client_ip, offer_of


class NewChallenge(NewSeek):
    opponent: str = Field(min_length=2, max_length=20, description="the challenged account's username")


def router(lobby: Lobby, auth: Authenticator) -> APIRouter:
    api = APIRouter(prefix="/api")
    writer = lobby.writer

    @api.post("/challenges", status_code=201)
    async def challenge(
        body: NewChallenge, request: Request, account: Account | None = auth.maybe_account
    ) -> dict[str, Any]:
        """Challenge an account. An AI level (``ai-easy`` …) accepts at once: the seat links. Anyone
        else: ``{"seek_id", "token"}``, like a seek only the challenged account can accept; but not
        the site's own account (422 ``site_account``)."""
        opponent = await writer.read(lambda conn: db.account_by_name(conn, body.opponent))
        if opponent is None:
            raise Rejected("not_found", f"no account {body.opponent!r}", 404)
        if account is not None and opponent.id == account.id:
            raise Rejected("invalid", "you cannot challenge yourself", 422)
        refuse_unplayable(opponent)
        level = level_of(opponent)
        offer = offer_of("challenge", body)
        await relations.refuse_blocked(writer, relations.Someone.of(account), opponent.id)
        if level is not None:
            return {"status": "accepted", **await lobby.play_bot_level(offer, account, opponent, level)}
        return {"status": "open", **await lobby.create(offer, account, client_ip(request), target=opponent)}

    @api.get("/challenges")
    async def my_challenges(account: Account = auth.account) -> dict[str, Any]:
        """The open challenges to the signed-in account."""
        return {"challenges": await lobby.challenges(account)}

    @api.get("/challenges/{seek_id}")
    async def challenge_status(seek_id: SeekId, token: SeekToken = None) -> dict[str, Any]:
        """As ``GET /api/seeks/<id>``: with the challenger's token, kept alive and, once accepted, its seat."""
        return await lobby.status(seek_id, token)

    @api.post("/challenges/{seek_id}/accept")
    async def accept(seek_id: SeekId, account: Account = auth.account) -> dict[str, Any]:
        """The challenged account takes its seat: the seat links."""
        return await lobby.accept(seek_id, account, account.username)

    @api.post("/challenges/{seek_id}/decline", status_code=204)
    async def decline(seek_id: SeekId, account: Account = auth.account) -> None:
        await lobby.decline(seek_id, account)

    @api.get("/me/pair-limits")
    async def pair_limits(account: Account = auth.account) -> dict[str, Any]:
        """The opponents with whom the signed-in account has played its rated games of the last
        24 hours: a rated game against them starts casual (``games/rated_pairs.py``). The lobby page
        marks their rated seeks before anyone accepts them."""
        limited = await writer.read(lambda conn: rated_pairs.limited_opponents(conn, account.id))
        return {
            "limit": rated_pairs.RATED_PER_PAIR,
            "hours": rated_pairs.WINDOW_SECONDS // 3600,
            "opponents": [{"username": o.username, "games": o.games, "until": o.until} for o in limited],
        }

    @api.post("/me/bot")
    async def become_bot(account: Account = auth.session_account) -> dict[str, Any]:
        """Make the signed-in account a bot account (before it has played any lobby game): it then
        plays through programs with personal API tokens (``kahuna bot``), as lichess's bot accounts do.
        Needs a signed-in session (403 ``session_required`` for a token)."""
        if not await lobby.transact(lambda conn: make_bot(conn, account.id)):
            raise Rejected("too_late", "only an account that has played no game can become a bot", 409)
        return {"username": account.username, "is_bot": True}

    return api
