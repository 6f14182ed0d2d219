"""Finding players (``GET /api/users?prefix=``), public profiles (``GET /api/users/<name>``), a
player's finished games as JSON lines (``GET /api/users/<name>/games.jsonl``) and the leaderboard
(``GET /api/leaderboard``); what they show is read by ``accounts.search``,
``community.profiles`` and ``community.exports``.

A profile and a games list scan up to ``SCAN_LIMIT`` (10,000) games of the player. Those scans run
in a pool of their own (:data:`SCAN_THREADS` threads), never in the default pool where the games
encode their updates, and one address has at most :data:`SCANS_PER_ADDRESS` of them under way at
once (one more: ``429 rate_limited``): views of a busy player's profile cannot hold up anyone's game.
A scan is kept until a game of the player starts or ends (``player_games.PlayedCache``): views of an
unchanged profile cost a count, not a scan.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Annotated, Any, Literal, TypeVar

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, Field
from sqlalchemy import Connection

from kahuna.server.accounts import store as accounts
from kahuna.server.accounts.passwords import Refused
from kahuna.server.accounts.search import MAX_RESULTS, accounts_starting, check_prefix
from kahuna.server.cluster.presence import Presence
from kahuna.server.common.errors import Rejected
from kahuna.server.community.exports import After, finished_games_page
from kahuna.server.community.player_games import PAGE_SIZE, SCAN_LIMIT, PlayedCache, page_of
from kahuna.server.community.profiles import leaderboard, profile
from kahuna.server.db.writer import Writer
from kahuna.server.http.common import client_ip

T = TypeVar("T")

MAX_PAGE = SCAN_LIMIT // PAGE_SIZE
"""The last page the games list can have (it is made from the newest ``SCAN_LIMIT`` games)."""


SCAN_THREADS = 2
"""Threads that scan players' games, for every address together."""
SCANS_PER_ADDRESS = 4
"""Scans one address may have under way at once."""


class Scans:
    """The pool the scans run in, and how many each address has under way."""

    def __init__(self, writer: Writer) -> None:
        self.writer = writer
        self.played = PlayedCache()
        self.threads = ThreadPoolExecutor(max_workers=SCAN_THREADS, thread_name_prefix="kahuna-scans")
        self.under_way: Counter[str] = Counter()

    async def read(self, request: Request, fn: Callable[[Connection], T]) -> T:
        address = client_ip(request)
        if self.under_way[address] >= SCANS_PER_ADDRESS:
            raise Rejected(
                "rate_limited", "a profile is being read for you already: try again in 1 s", 429, retry_after=1
            )
        self.under_way[address] += 1
        try:
            return await self.writer.read(fn, self.threads)
        finally:
            self.under_way[address] -= 1
            if not self.under_way[address]:
                del self.under_way[address]


class FoundUser(BaseModel):
    username: str
    is_bot: bool


class FoundUsers(BaseModel):
    users: list[FoundUser] = Field(description=f"at most {MAX_RESULTS}, an exact match first, then by name, case aside")


class PlayerGames(BaseModel):
    games: list[dict[str, Any]] = Field(description=f"at most {PAGE_SIZE}, the newest first")
    page: int
    pages: int
    total: int


def router(writer: Writer, presence: Presence) -> APIRouter:
    api = APIRouter(prefix="/api")
    scans = Scans(writer)

    @api.get("/users", response_model=FoundUsers)
    async def search(
        prefix: Annotated[str, Query(description="the start of a username, 1 to 20 of its characters")],
    ) -> dict[str, Any]:
        """Accounts whose name starts like ``prefix``, compared as sign-up compares names (without
        regard to case, ASCII look-alikes merged); deleted accounts are not found. 422 ``invalid``
        with the ``reason`` (``prefix_length``, ``username_chars``) for a prefix no name can start with."""
        try:
            check_prefix(prefix)
        except Refused as exc:
            raise Rejected("invalid", str(exc), 422, reason=exc.reason()) from None
        return {"users": await writer.read(lambda conn: accounts_starting(conn, prefix))}

    @api.get("/users/{username}")
    async def user(request: Request, username: Annotated[str, Path(min_length=1, max_length=20)]) -> dict[str, Any]:
        """A player's ratings in both pools, rating history, recent lobby games, statistics, follow
        counts and whether the player is online."""
        online = presence.view.accounts
        found = await scans.read(request, lambda conn: profile(conn, username, online, scans.played))
        if found is None:
            raise Rejected("not_found", f"no player {username!r}", 404)
        return found

    @api.get("/users/{username}/games", response_model=PlayerGames)
    async def games_list(
        request: Request,
        username: Annotated[str, Path(min_length=1, max_length=20)],
        result: Annotated[Literal["win", "loss", "draw"] | None, Query()] = None,
        opponent: Annotated[str | None, Query(min_length=1, max_length=20)] = None,
        page: Annotated[int, Query(ge=1, le=MAX_PAGE)] = 1,
    ) -> dict[str, Any]:
        """A player's lobby games, newest first, 20 a page: of one ``result`` and against one
        ``opponent`` (a username) if asked. 404 ``not_found`` for an unknown player or opponent."""

        def read(conn: Connection) -> dict[str, Any] | None:
            account = accounts.account_by_name(conn, username)
            if account is None:
                return None
            against = None
            if opponent is not None:
                found = accounts.account_by_name(conn, opponent)
                if found is None:
                    raise Rejected("not_found", f"no player {opponent!r}", 404, reason="opponent")
                against = found.id
            return page_of(scans.played.played(conn, account.id), result, against, page)

        listed = await scans.read(request, read)
        if listed is None:
            raise Rejected("not_found", f"no player {username!r}", 404)
        return listed

    @api.get(
        "/users/{username}/games.jsonl",
        response_class=StreamingResponse,
        responses={200: {"content": {"application/x-ndjson": {}}, "description": "one kahuna-record/1 per line"}},
    )
    async def games_jsonl(username: Annotated[str, Path(min_length=1, max_length=20)]) -> StreamingResponse:
        """Every finished game a player's profile lists, one ``kahuna-record/1`` per line, oldest
        first, streamed as it is read from the database a page at a time."""
        account = await writer.read(lambda conn: accounts.account_by_name(conn, username))
        if account is None:
            raise Rejected("not_found", f"no player {username!r}", 404)

        async def lines() -> AsyncIterator[bytes]:
            after: After | None = None
            while True:
                page = await writer.read(functools.partial(finished_games_page, account_id=account.id, after=after))
                for record in page.records:
                    yield json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
                if page.next is None:
                    return
                after = page.next

        filename = f"kahuna-{account.username}-games.jsonl"
        headers = {"Content-Disposition": f'attachment; filename="{filename}"'}
        return StreamingResponse(lines(), media_type="application/x-ndjson", headers=headers)

    @api.get("/leaderboard")
    async def board(pool: Annotated[Literal["realtime", "correspondence"], Query()] = "realtime") -> dict[str, Any]:
        """The top players of a pool whose rating is trusted (deviation < 75); the others apart, unranked."""
        return await writer.read(lambda conn: leaderboard(conn, pool))

    return api
