"""What the follows, blocks and who-is-online API asks (``http/relations.py``), built once at
assembly with the database, who is online (``cluster.presence``) and the per-account bounds.

The rows and their rules are :mod:`relations`'; this service finds the accounts named in a
request, runs each change in one transaction and turns its refusal, or the same row written at the
same moment by another instance, into a :class:`Rejected`. Who is online is read from the presence
view (no scan per request).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection

from kahuna.server.accounts import store as db
from kahuna.server.accounts.store import Account
from kahuna.server.cluster.presence import Online, Presence
from kahuna.server.common.errors import Rejected
from kahuna.server.community import live_games, relations
from kahuna.server.db.writer import Conflict, Writer

Change = Callable[[Connection, Account, Account], "Rejected | None"]
"""A change of one account's follows or blocks toward another (``relations.follow`` and the like)."""


class Social:
    """Follows and blocks of accounts, and who is online."""

    def __init__(self, writer: Writer, presence: Presence, most_follows: int, most_blocks: int) -> None:
        self.writer = writer
        self.presence = presence
        self.most_follows = most_follows
        """``Limits.follows_per_account``."""
        self.most_blocks = most_blocks
        """``Limits.blocks_per_account``."""

    async def other(self, username: str) -> Account:
        """The account ``username``; ``404 not_found`` if there is none."""
        found = await self.writer.read(lambda conn: db.account_by_name(conn, username))
        if found is None:
            raise Rejected("not_found", f"no player {username!r}", 404)
        return found

    async def _change(self, account: Account, username: str, how: Change, twice: str = "") -> None:
        """Apply ``how`` in one transaction; its refusal raised. ``twice``: the code of the same
        row written at the same moment by another instance (the primary key refuses the second)."""
        target = await self.other(username)
        try:
            refusal = await self.writer.transact(lambda conn: how(conn, account, target))
        except Conflict:
            raise Rejected(twice, f"{target.username}: done already", 409) from None
        if refusal is not None:
            raise refusal

    async def follow(self, account: Account, username: str) -> None:
        how = functools.partial(relations.follow, most=self.most_follows)
        await self._change(account, username, how, "already_following")

    async def unfollow(self, account: Account, username: str) -> None:
        await self._change(account, username, relations.unfollow)

    async def block(self, account: Account, username: str) -> None:
        await self._change(
            account, username, functools.partial(relations.block, most=self.most_blocks), "already_blocked"
        )

    async def unblock(self, account: Account, username: str) -> None:
        await self._change(account, username, relations.unblock)

    async def following(self, account: Account) -> list[dict[str, Any]]:
        """The accounts ``account`` follows: online or not, and the listed game each is playing (an
        unlisted or hot-seat game is not named)."""
        view = self.presence.view.accounts

        def read(conn: Connection) -> tuple[list[tuple[int, str]], set[str]]:
            found = relations.following_of(conn, account.id, self.most_follows)
            games = [game for account_id, _ in found if (game := view.get(account_id)) is not None]
            return found, live_games.listed_of(conn, games)

        found, listed = await self.writer.read(read)
        users = []
        for account_id, username in found:
            playing = view.get(account_id)
            playing = playing if playing in listed else None
            watch = None if playing is None else f"/watch/{playing}"
            users.append({"username": username, "online": account_id in view, "playing": playing, "watch_url": watch})
        return users

    async def blocks(self, account: Account) -> list[str]:
        """The accounts ``account`` blocks, the newest first."""
        return await self.writer.read(lambda conn: relations.blocked_by(conn, account.id, self.most_blocks))

    async def follows(self, username: str) -> dict[str, Any]:
        """Who follows ``username`` and whom it follows: the counts, and the newest of each with
        their online dots."""
        target = await self.other(username)
        view = self.presence.view.accounts

        def read(conn: Connection) -> dict[str, Any]:
            def listed(rows: list[tuple[int, str]]) -> list[dict[str, Any]]:
                return [{"username": name, "online": account_id in view} for account_id, name in rows]

            return {
                "username": target.username,
                **relations.follow_counts(conn, target.id),
                "followers_list": listed(relations.followers_of(conn, target.id)),
                "following_list": listed(relations.following_of(conn, target.id, relations.LISTED)),
            }

        return await self.writer.read(read)

    async def online_of(self, names: list[str]) -> list[str]:
        """Which of ``names`` are online accounts, sorted; unknown names are simply not online."""
        found = await self.writer.read(lambda conn: db.accounts_named(conn, names))
        view = self.presence.view.accounts
        return sorted(name for account_id, name in found.items() if account_id in view)

    def online(self) -> Online:
        """Players and games counted on every instance, as of the last exchange between them."""
        return self.presence.view
