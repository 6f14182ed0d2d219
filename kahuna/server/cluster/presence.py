"""Who is online and which games are running, counted across instances (``GET /api/online``,
the following list's dots).

**Definitions** (docs/community.md, *Online*). An account is *online* while it has an open
``/ws/lobby`` connection or an open game connection (seat or spectator, after its ``hello``) on
any instance. It is *playing* a game while one of its connections holds a seat of that game and
the game is being played (both seats filled, not over). A guest counts as a player online while
one of its connections holds a seat of a game (a guest has no name to follow, and a guest that only
watches or browses the lobby is not counted). A game is *running* while a seat of it is held by an
open connection and the game is being played.

Each instance keeps its own connections in memory (:class:`Presence`, told by the sockets as they
open and close) and every :data:`SHARE_EVERY` seconds exchanges a snapshot with the other
instances through a :class:`Share`: with the embedded default the one process is everyone
(:class:`LocalShare`); with ``--broker`` each instance writes its snapshot into one Redis hash and
reads the others' (``redis_presence.py``), leaving out those not refreshed for :data:`STALE_AFTER`
seconds (an instance that died). Readers get the merged view of the last exchange: an answer costs
no scan and no database read, and is at most about two seconds old.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from kahuna.server.common import logs
from kahuna.server.common.tasks import cancel_and_wait

SHARE_EVERY = 1.0
"""Seconds between two exchanges of snapshots (and the age of the view, at most about twice this)."""
STALE_AFTER = 5.0
"""Seconds after which an instance that has not refreshed its snapshot is left out (it died)."""


@dataclass(frozen=True)
class Online:
    """The merged view: counts, and each online account's game (``None``: online, not playing)."""

    players: int = 0
    games: int = 0
    accounts: dict[int, str | None] = field(default_factory=dict)


class Share(Protocol):
    async def exchange(self, mine: dict[str, Any]) -> list[dict[str, Any]]:
        """Publish this instance's snapshot; every live instance's (this one's included)."""
        ...


class LocalShare:
    """One process is every instance."""

    async def exchange(self, mine: dict[str, Any]) -> list[dict[str, Any]]:
        return [mine]


@dataclass(eq=False)
class Entry:
    """One open connection: its account (``None``: a guest), and the seat it holds, if any."""

    account: int | None
    game_id: str | None = None
    seat: int | None = None
    playing: Callable[[], bool] | None = None
    """Whether the seat's game is being played now (asked at each snapshot)."""


def merge(snapshots: list[dict[str, Any]]) -> Online:
    """Several instances' snapshots as one view (an account on two instances counts once)."""
    accounts: dict[int, str | None] = {}
    guests: set[str] = set()
    games: set[str] = set()
    for snapshot in snapshots:
        for key, game in snapshot.get("accounts", {}).items():
            account = int(key)
            accounts[account] = accounts.get(account) or game
        guests.update(snapshot.get("guests", ()))
        games.update(snapshot.get("games", ()))
    return Online(players=len(accounts) + len(guests), games=len(games), accounts=accounts)


class Presence:
    """This instance's open connections, and the view of all instances' (:attr:`view`)."""

    def __init__(self, share: Share, every: float = SHARE_EVERY) -> None:
        self.share = share
        self.every = every
        self._entries: set[Entry] = set()
        self._view: Online | None = None
        self._task: asyncio.Task[None] | None = None

    def enter(
        self,
        account: int | None,
        game_id: str | None = None,
        seat: int | None = None,
        playing: Callable[[], bool] | None = None,
    ) -> Entry:
        entry = Entry(account, game_id, seat, playing)
        self._entries.add(entry)
        return entry

    def leave(self, entry: Entry) -> None:
        self._entries.discard(entry)

    def snapshot(self) -> dict[str, Any]:
        """This instance's part: ``{"accounts": {id: game | None}, "guests": [...], "games": [...]}``."""
        accounts: dict[str, str | None] = {}
        guests: set[str] = set()
        games: set[str] = set()
        for entry in self._entries:
            playing = (
                entry.game_id if entry.seat is not None and entry.playing is not None and entry.playing() else None
            )
            if playing is not None:
                games.add(playing)
            if entry.account is not None:
                key = str(entry.account)
                accounts[key] = accounts.get(key) or playing
            elif entry.seat is not None:
                guests.add(f"{entry.game_id}:{entry.seat}")
        return {"accounts": accounts, "guests": sorted(guests), "games": sorted(games)}

    @property
    def view(self) -> Online:
        """The view of the last exchange (before the first: this instance's own)."""
        if self._view is None:
            return merge([self.snapshot()])
        return self._view

    async def refresh(self) -> None:
        self._view = merge(await self.share.exchange(self.snapshot()))

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self.run())

    async def stop(self) -> None:
        if self._task is not None:
            await cancel_and_wait(self._task)

    async def run(self) -> None:
        while True:
            try:
                await self.refresh()
            except Exception as exc:  # the broker away: keep the last view, try again
                logs.event("presence_error", error=type(exc).__name__)
            await asyncio.sleep(self.every)
