"""Following and blocking players, and who is online (issue 29; docs/community.md, *Follows,
blocks and who is online*).

``POST``/``DELETE /api/users/<name>/follow`` and ``.../block`` (a signed-in account: session with
CSRF, or a Bearer token with the ``play`` scope); ``GET /api/me/following`` (each followed player
online or not, and the game it is playing, to watch); ``GET /api/me/blocks``;
``GET /api/users/<name>/follows`` (public: both lists, bounded); ``GET /api/online`` (players and
games counted across instances, from ``cluster.presence``: no scan per request) and
``GET /api/online/users?names=`` (which of up to 50 players are online: the lobby's dots). The rows and
their rules are ``community.relations``.
"""

from __future__ import annotations

import functools
from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field
from sqlalchemy import Connection

from kahuna.server.accounts import store as db
from kahuna.server.accounts.store import Account
from kahuna.server.cluster.presence import Presence
from kahuna.server.common.config import Limits
from kahuna.server.common.errors import Rejected
from kahuna.server.community import live_games, relations
from kahuna.server.db.writer import Conflict, Writer
from kahuna.server.http.common import TheAccount

Username = Annotated[str, Path(min_length=1, max_length=20)]
ONLINE_NAMES = 50
"""Names one ``GET /api/online/users`` may ask about."""


class OnlineCounts(BaseModel):
    players: int = Field(description="accounts with an open lobby or game connection, and guests holding a seat")
    games: int = Field(description="games being played with a seat held by an open connection")


class FollowedUser(BaseModel):
    username: str
    online: bool
    playing: str | None = Field(description="the game it plays now (watch it at /watch/<id>), or null")
    watch_url: str | None


class Following(BaseModel):
    users: list[FollowedUser] = Field(description="at most ``limit`` (500), the newest follow first")
    limit: int


class ListedUser(BaseModel):
    username: str
    online: bool


class Follows(BaseModel):
    username: str
    followers: int
    following: int
    followers_list: list[ListedUser] = Field(description=f"the newest {relations.LISTED} followers")
    following_list: list[ListedUser] = Field(description=f"the newest {relations.LISTED} followed")


class OnlineUsers(BaseModel):
    online: list[str] = Field(description="the names asked for whose accounts are online, as asked")


class Blocks(BaseModel):
    users: list[str]
    limit: int


def router(writer: Writer, presence: Presence, limits: Limits) -> APIRouter:
    """``limits``: ``follows_per_account``, ``blocks_per_account``."""
    api = APIRouter(prefix="/api", tags=["relations"])
    most_follows, most_blocks = limits.follows_per_account, limits.blocks_per_account

    async def other(username: str) -> Account:
        found = await writer.read(lambda conn: db.account_by_name(conn, username))
        if found is None:
            raise Rejected("not_found", f"no player {username!r}", 404)
        return found

    async def change(account: Account, username: str, how: Any, twice: str = "") -> None:
        """Apply ``how`` in one transaction; its refusal raised. ``twice``: the code of the same
        row written at the same moment by another instance (the primary key refuses the second)."""
        target = await other(username)
        try:
            refusal = await writer.transact(lambda conn: how(conn, account, target))
        except Conflict:
            raise Rejected(twice, f"{target.username}: done already", 409) from None
        if refusal is not None:
            raise refusal

    @api.post("/users/{username}/follow", status_code=204)
    async def follow(username: Username, account: TheAccount) -> None:
        """Follow a player. 422 ``own_account``, 404 ``not_found``, 409 ``already_following``,
        403 ``blocked`` (the player blocks you), 409 ``blocking`` (you block the player),
        409 ``too_many_follows`` (beyond ``follows_per_account``, 500)."""
        await change(account, username, functools.partial(relations.follow, most=most_follows), "already_following")

    @api.delete("/users/{username}/follow", status_code=204)
    async def unfollow(username: Username, account: TheAccount) -> None:
        """Stop following a player; 409 ``not_following`` if you do not."""
        await change(account, username, relations.unfollow)

    @api.post("/users/{username}/block", status_code=204)
    async def block(username: Username, account: TheAccount) -> None:
        """Block a player: no challenge or seek between you, none of their chat in your games, no
        follow of you (a follow either way ends). 422 ``own_account``, 409 ``already_blocked``,
        409 ``too_many_blocks`` (beyond ``blocks_per_account``, 1000)."""
        await change(account, username, functools.partial(relations.block, most=most_blocks), "already_blocked")

    @api.delete("/users/{username}/block", status_code=204)
    async def unblock(username: Username, account: TheAccount) -> None:
        """Stop blocking a player; 409 ``not_blocked`` if you do not."""
        await change(account, username, relations.unblock)

    @api.get("/me/following", response_model=Following)
    async def following(account: TheAccount) -> dict[str, Any]:
        """The players the signed-in account follows: online or not, and the listed game each is
        playing (an unlisted or hot-seat game is not named)."""
        view = presence.view.accounts

        def read(conn: Connection) -> tuple[list[tuple[int, str]], set[str]]:
            found = relations.following_of(conn, account.id, most_follows)
            games = [game for account_id, _ in found if (game := view.get(account_id)) is not None]
            return found, live_games.listed_of(conn, games)

        found, listed = await writer.read(read)
        users = []
        for account_id, username in found:
            playing = view.get(account_id)
            playing = playing if playing in listed else None
            watch = None if playing is None else f"/watch/{playing}"
            users.append({"username": username, "online": account_id in view, "playing": playing, "watch_url": watch})
        return {"users": users, "limit": most_follows}

    @api.get("/me/blocks", response_model=Blocks)
    async def my_blocks(account: TheAccount) -> dict[str, Any]:
        """The players the signed-in account blocks (only it sees them), the newest first."""
        blocked = await writer.read(lambda conn: relations.blocked_by(conn, account.id, most_blocks))
        return {"users": blocked, "limit": most_blocks}

    @api.get("/users/{username}/follows", response_model=Follows)
    async def follows(username: Username) -> dict[str, Any]:
        """Who follows a player and whom the player follows (public): the counts, and the newest
        100 of each with their online dots."""
        target = await other(username)
        view = presence.view.accounts

        def read(conn: Connection) -> dict[str, Any]:
            def listed(rows: list[tuple[int, str]]) -> list[dict[str, Any]]:
                return [{"username": name, "online": account_id in view} for account_id, name in rows]

            return {
                "username": target.username,
                **relations.follow_counts(conn, target.id),
                "followers_list": listed(relations.followers_of(conn, target.id)),
                "following_list": listed(relations.following_of(conn, target.id, relations.LISTED)),
            }

        return await writer.read(read)

    @api.get("/online/users", response_model=OnlineUsers)
    async def online_users(
        names: Annotated[str, Query(min_length=1, max_length=ONLINE_NAMES * 21, description="usernames, by commas")],
    ) -> dict[str, Any]:
        """Which of these players are online (the lobby's dots): at most 50 names, 422 ``invalid``
        beyond; unknown names are simply not online."""
        wanted = [name for name in names.split(",") if name]
        if len(wanted) > ONLINE_NAMES or any(len(name) > 20 for name in wanted):
            raise Rejected("invalid", f"at most {ONLINE_NAMES} names of at most 20 characters", 422)
        found = await writer.read(lambda conn: db.accounts_named(conn, wanted))
        view = presence.view.accounts
        return {"online": sorted(name for account_id, name in found.items() if account_id in view)}

    @api.get("/online", response_model=OnlineCounts)
    async def online() -> dict[str, Any]:
        """Players online and games running on every instance, as of the last exchange between
        instances (at most about two seconds old)."""
        view = presence.view
        return {"players": view.players, "games": view.games}

    return api
