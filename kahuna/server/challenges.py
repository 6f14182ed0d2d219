"""Challenges to one account, the AI levels as rated bot accounts, and turning an account into a bot.

Each AI level is a bot account named ``ai-<level>`` (``ai-easy`` … ``ai-expert``), created at
start-up: a challenge to it is accepted at once and the server's AI plays its seat, so the levels
get ratings on the same scale as people. A challenge to any other account (a person, or an online
bot run by ``kahuna bot``) waits for it to accept or decline (``/ws/lobby`` tells it at once).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from pydantic import Field
from sqlalchemy import Connection, exists, or_, select, update

from kahuna.server import accounts as db
from kahuna.server import ai as ai_seats
from kahuna.server import logs, ratings
from kahuna.server.accounts import Account
from kahuna.server.api import client_ip
from kahuna.server.auth import optional_account, require_account, require_session
from kahuna.server.lobby import Lobby
from kahuna.server.lobby_api import NewSeek, SeekId, SeekToken, offer_of
from kahuna.server.passwords import LEVEL_PREFIX
from kahuna.server.ratings import game_accounts
from kahuna.server.service import Rejected

MaybeAccount = Annotated[Account | None, Depends(optional_account)]
TheAccount = Annotated[Account, Depends(require_account)]

BOT_PREFIX = LEVEL_PREFIX
"""The AI levels' bot accounts are ``ai-<level>`` (a prefix people cannot sign up with)."""


def level_of(account: Account) -> str | None:
    """The AI level a bot account stands for, if it is one of the server's levels."""
    if not account.is_bot or not account.username.startswith(BOT_PREFIX):
        return None
    level = account.username[len(BOT_PREFIX) :]
    return level if ai_seats.available(level) else None


def ensure_level_bots(conn: Connection, levels: list[str]) -> None:
    """Create the bot account of every AI level the server offers (once, at start-up). A name
    already held by a person (a level added after someone signed up as ``ai-<level>``) is logged
    and that level has no account, rather than keeping the server from starting. A level's stored
    ratings are set to its fixed anchor (``ratings.ANCHORS``)."""
    for level in levels:
        try:
            bot = db.ensure_bot_account(conn, BOT_PREFIX + level)
        except ValueError:
            logs.event("bot_account_taken", username=BOT_PREFIX + level)
            continue
        ratings.pin_anchor(conn, bot.id)


def has_played(conn: Connection, account_id: int) -> bool:
    query = select(exists().where(or_(game_accounts.c.account0 == account_id, game_accounts.c.account1 == account_id)))
    return bool(conn.execute(query).scalar())


def make_bot(conn: Connection, account_id: int) -> bool:
    """Turn an account that has played no lobby game into a bot account; ``False`` if it has."""
    if has_played(conn, account_id):
        return False
    conn.execute(update(db.accounts).where(db.accounts.c.id == account_id).values(is_bot=True))
    return True


class NewChallenge(NewSeek):
    opponent: str = Field(min_length=2, max_length=20, description="the challenged account's username")


def router(lobby: Lobby) -> APIRouter:
    api = APIRouter(prefix="/api")
    writer = lobby.writer

    @api.post("/challenges", status_code=201)
    async def challenge(body: NewChallenge, request: Request, account: MaybeAccount) -> dict[str, Any]:
        """Challenge an account. An AI level (``ai-easy`` …) accepts at once: the seat links. Anyone
        else: ``{"seek_id", "token"}``, like a seek only the challenged account can accept."""
        opponent = await writer.read(lambda conn: db.account_by_name(conn, body.opponent))
        if opponent is None:
            raise Rejected("not_found", f"no account {body.opponent!r}", 404)
        if account is not None and opponent.id == account.id:
            raise Rejected("invalid", "you cannot challenge yourself", 422)
        level = level_of(opponent)
        offer = offer_of("challenge", body)
        if level is not None:
            return {"status": "accepted", **await lobby.play_bot_level(offer, account, opponent, level)}
        return {"status": "open", **await lobby.create(offer, account, client_ip(request), target=opponent)}

    @api.get("/challenges")
    async def my_challenges(account: TheAccount) -> dict[str, Any]:
        """The open challenges to the signed-in account."""
        return {"challenges": await lobby.challenges(account)}

    @api.get("/challenges/{seek_id}")
    async def challenge_status(seek_id: SeekId, token: SeekToken = None) -> dict[str, Any]:
        """As ``GET /api/seeks/<id>``: with the challenger's token, kept alive and, once accepted, its seat."""
        return await lobby.status(seek_id, token)

    @api.post("/challenges/{seek_id}/accept")
    async def accept(seek_id: SeekId, account: TheAccount) -> dict[str, Any]:
        """The challenged account takes its seat: the seat links."""
        return await lobby.accept(seek_id, account, account.username)

    @api.post("/challenges/{seek_id}/decline", status_code=204)
    async def decline(seek_id: SeekId, account: TheAccount) -> None:
        await lobby.decline(seek_id, account)

    @api.post("/me/bot")
    async def become_bot(account: Annotated[Account, Depends(require_session)]) -> dict[str, Any]:
        """Make the signed-in account a bot account (before it has played any lobby game): it then
        plays through programs with personal API tokens (``kahuna bot``), as lichess's bot accounts do.
        Needs a signed-in session (403 ``session_required`` for a token)."""
        if not await lobby.transact(lambda conn: make_bot(conn, account.id)):
            raise Rejected("too_late", "only an account that has played no game can become a bot", 409)
        return {"username": account.username, "is_bot": True}

    return api
