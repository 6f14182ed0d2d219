"""Public profiles (``GET /api/users/<name>``) and the leaderboard (``GET /api/leaderboard``); what
they show is read by ``kahuna.server.community.profiles``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Path, Query

from kahuna.server.common.errors import Rejected
from kahuna.server.community.profiles import leaderboard, profile
from kahuna.server.db.writer import Writer


def router(writer: Writer) -> APIRouter:
    api = APIRouter(prefix="/api")

    @api.get("/users/{username}")
    async def user(username: Annotated[str, Path(min_length=1, max_length=20)]) -> dict[str, Any]:
        """A player's ratings in both pools, rating history and recent lobby games."""
        found = await writer.read(lambda conn: profile(conn, username))
        if found is None:
            raise Rejected("not_found", f"no player {username!r}", 404)
        return found

    @api.get("/leaderboard")
    async def board(pool: Annotated[Literal["realtime", "correspondence"], Query()] = "realtime") -> dict[str, Any]:
        """The top players of a pool whose rating is trusted (deviation < 75); the others apart, unranked."""
        return await writer.read(lambda conn: leaderboard(conn, pool))

    return api
