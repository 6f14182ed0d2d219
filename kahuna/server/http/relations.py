"""Following and blocking players, and who is online (issue 29; docs/community.md, *Follows,
blocks and who is online*).

``POST``/``DELETE /api/users/<name>/follow`` and ``.../block`` (a signed-in account: session with
CSRF, or a Bearer token with the ``play`` scope); ``GET /api/me/following`` (each followed player
online or not, and the game it is playing, to watch); ``GET /api/me/blocks``;
``GET /api/users/<name>/follows`` (public: both lists, bounded); ``GET /api/online`` (players and
games counted across instances, from ``cluster.presence``: no scan per request) and
``GET /api/online/users?names=`` (which of up to 50 players are online: the lobby's dots). The rows and
their rules are ``community.relations``, read and written by ``community.social``.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path, Query
from pydantic import BaseModel, Field

from kahuna.server.accounts.store import Account
from kahuna.server.common.errors import Rejected
from kahuna.server.community import relations
from kahuna.server.community.social import Social
from kahuna.server.http.auth import Authenticator

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


def router(social: Social, auth: Authenticator) -> APIRouter:
    """``social``: the rows of follows and blocks, who is online, and the per-account bounds."""
    api = APIRouter(prefix="/api", tags=["relations"])

    @api.post("/users/{username}/follow", status_code=204)
    async def follow(username: Username, account: Account = auth.account) -> None:
        """Follow a player. 422 ``own_account``, 404 ``not_found``, 409 ``already_following``,
        403 ``blocked`` (the player blocks you), 409 ``blocking`` (you block the player),
        409 ``too_many_follows`` (beyond ``follows_per_account``, 500)."""
        await social.follow(account, username)

    @api.delete("/users/{username}/follow", status_code=204)
    async def unfollow(username: Username, account: Account = auth.account) -> None:
        """Stop following a player; 409 ``not_following`` if you do not."""
        await social.unfollow(account, username)

    @api.post("/users/{username}/block", status_code=204)
    async def block(username: Username, account: Account = auth.account) -> None:
        """Block a player: no challenge or seek between you, none of their chat in your games, no
        follow of you (a follow either way ends). 422 ``own_account``, 409 ``already_blocked``,
        409 ``too_many_blocks`` (beyond ``blocks_per_account``, 1000)."""
        await social.block(account, username)

    @api.delete("/users/{username}/block", status_code=204)
    async def unblock(username: Username, account: Account = auth.account) -> None:
        """Stop blocking a player; 409 ``not_blocked`` if you do not."""
        await social.unblock(account, username)

    @api.get("/me/following", response_model=Following)
    async def following(account: Account = auth.account) -> dict[str, Any]:
        """The players the signed-in account follows: online or not, and the listed game each is
        playing (an unlisted or hot-seat game is not named)."""
        return {"users": await social.following(account), "limit": social.most_follows}

    @api.get("/me/blocks", response_model=Blocks)
    async def my_blocks(account: Account = auth.account) -> dict[str, Any]:
        """The players the signed-in account blocks (only it sees them), the newest first."""
        return {"users": await social.blocks(account), "limit": social.most_blocks}

    @api.get("/users/{username}/follows", response_model=Follows)
    async def follows(username: Username) -> dict[str, Any]:
        """Who follows a player and whom the player follows (public): the counts, and the newest
        100 of each with their online dots."""
        return await social.follows(username)

    @api.get("/online/users", response_model=OnlineUsers)
    async def online_users(
        names: Annotated[str, Query(min_length=1, max_length=ONLINE_NAMES * 21, description="usernames, by commas")],
    ) -> dict[str, Any]:
        """Which of these players are online (the lobby's dots): at most 50 names, 422 ``invalid``
        beyond; unknown names are simply not online."""
        wanted = [name for name in names.split(",") if name]
        if len(wanted) > ONLINE_NAMES or any(len(name) > 20 for name in wanted):
            raise Rejected("invalid", f"at most {ONLINE_NAMES} names of at most 20 characters", 422)
        return {"online": await social.online_of(wanted)}

    @api.get("/online", response_model=OnlineCounts)
    async def online() -> dict[str, Any]:
        """Players online and games running on every instance, as of the last exchange between
        instances (at most about two seconds old)."""
        view = social.online()
        return {"players": view.players, "games": view.games}

    return api
