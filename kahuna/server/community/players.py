"""What the players' pages read (``http/profiles.py``), built once at assembly: finding accounts by
the start of their name (``accounts.search``), public profiles (``profiles``), a player's games list
(``player_games``) and its finished games exported (``exports``), and the leaderboard.

A profile and a games list scan up to ``SCAN_LIMIT`` (10,000) games of the player. Those scans run
in a pool of their own (:data:`SCAN_THREADS` threads), never in the default pool where the games
encode their updates, and one address has at most :data:`SCANS_PER_ADDRESS` of them under way at
once (one more: ``429 rate_limited``): views of a busy player's profile cannot hold up anyone's game.
A scan is kept until a game of the player starts or ends (``player_games.PlayedCache``): views of an
unchanged profile cost a count, not a scan.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from sqlalchemy import Connection

from kahuna.server.accounts import store as accounts
from kahuna.server.accounts.passwords import Refused
from kahuna.server.accounts.search import accounts_starting, check_prefix
from kahuna.server.accounts.store import Account
from kahuna.server.cluster.presence import Presence
from kahuna.server.common.errors import Rejected
from kahuna.server.community.exports import After, finished_games_page
from kahuna.server.community.player_games import PlayedCache, page_of
from kahuna.server.community.profiles import leaderboard, profile
from kahuna.server.db.writer import Writer

T = TypeVar("T")

SCAN_THREADS = 2
"""Threads that scan players' games, for every address together."""
SCANS_PER_ADDRESS = 4
"""Scans one address may have under way at once."""


class Players:
    """The players' pages: search, profiles, games lists and exports, the leaderboard."""

    def __init__(self, writer: Writer, presence: Presence) -> None:
        self.writer = writer
        self.presence = presence
        self.played = PlayedCache()
        self.threads = ThreadPoolExecutor(max_workers=SCAN_THREADS, thread_name_prefix="kahuna-scans")
        self.under_way: Counter[str] = Counter()

    async def _scan(self, address: str, fn: Callable[[Connection], T]) -> T:
        """``fn`` in the scans' pool, counted against ``address``'s scans under way."""
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

    async def search(self, prefix: str) -> list[dict[str, object]]:
        """Accounts whose name starts like ``prefix``; ``422 invalid`` with the reason for a prefix
        no name can start with."""
        try:
            check_prefix(prefix)
        except Refused as exc:
            raise Rejected("invalid", str(exc), 422, reason=exc.reason()) from None
        return await self.writer.read(lambda conn: accounts_starting(conn, prefix))

    async def profile(self, address: str, username: str) -> dict[str, Any]:
        """A player's public profile, with its online dot; ``404 not_found``."""
        online = self.presence.view.accounts
        found = await self._scan(address, lambda conn: profile(conn, username, online, self.played))
        if found is None:
            raise Rejected("not_found", f"no player {username!r}", 404)
        return found

    async def games(
        self, address: str, username: str, result: str | None, opponent: str | None, page: int
    ) -> dict[str, Any]:
        """One page of a player's games list; ``404 not_found`` for an unknown player or opponent."""

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
            return page_of(self.played.played(conn, account.id), result, against, page)

        listed = await self._scan(address, read)
        if listed is None:
            raise Rejected("not_found", f"no player {username!r}", 404)
        return listed

    async def exported(self, username: str) -> tuple[Account, AsyncIterator[dict[str, Any]]]:
        """The account ``username`` (``404 not_found``) and its finished games' records, oldest
        first, read from the database a page at a time as they are consumed."""
        account = await self.writer.read(lambda conn: accounts.account_by_name(conn, username))
        if account is None:
            raise Rejected("not_found", f"no player {username!r}", 404)

        async def records() -> AsyncIterator[dict[str, Any]]:
            after: After | None = None
            while True:
                page = await self.writer.read(
                    functools.partial(finished_games_page, account_id=account.id, after=after)
                )
                for record in page.records:
                    yield record
                if page.next is None:
                    return
                after = page.next

        return account, records()

    async def leaderboard(self, pool: str) -> dict[str, Any]:
        return await self.writer.read(lambda conn: leaderboard(conn, pool))
