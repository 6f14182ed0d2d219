"""The server's own archiving and guest-game deletion: a pass every few minutes
(``kahuna serve --archive-after DAYS``, ``--delete-guest-games-after DAYS``; 0 turns either off).

Why in the server rather than only by hand: a server left alone keeps its database from growing
with every finished game's action rows. Why small batches through the writer: each batch is one
transaction of the single writer (``db/writer.py``) and the players' moves queue behind it, so a
batch is kept to a few milliseconds; the games this process holds in memory (being played,
watched, or just finished) are left out and folded on a later pass, once they left memory.
``kahuna admin archive`` does the same from outside (``db/archive.py``, ``db/guests.py``).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from functools import partial

from sqlalchemy import Connection

from kahuna.server.common import logs
from kahuna.server.common.periodic import Periodic
from kahuna.server.db import archive, guests
from kahuna.server.db.store import iso
from kahuna.server.db.writer import Writer

EVERY = 600.0
"""Seconds between two passes."""

BATCH = 20
"""Games per transaction of the writer, which the players' moves queue behind: 20 games of about
120 actions took a median of 42 ms on SQLite on the loaded development machine (docs/scaling.md,
"Storage")."""

DAY = 86_400.0


@dataclass(frozen=True)
class Ages:
    """After how many days a finished game is archived, and a guest's aborted or abandoned game is
    deleted (0: never)."""

    archive_after_days: float = 30.0
    guest_games_after_days: float = 7.0


def cut_off(days: float) -> str:
    """The time stamp ``days`` ago, as the database writes them."""
    return iso(time.time() - days * DAY)


class Housekeeping:
    """Archives old finished games and deletes guests' old aborted and abandoned games, every
    :data:`EVERY` seconds, leaving out the games ``held`` names (those in this process's memory)."""

    def __init__(self, writer: Writer, ages: Ages, held: Callable[[], Collection[str]]) -> None:
        self.writer = writer
        self.ages = ages
        self.held = held
        self._loop = Periodic(self._pass, EVERY, "housekeeping_error")

    def start(self) -> None:
        if self.ages.archive_after_days > 0 or self.ages.guest_games_after_days > 0:
            self._loop.start()

    async def stop(self) -> None:
        await self._loop.stop()

    async def _pass(self) -> None:
        await self.pass_once()

    async def pass_once(self) -> tuple[int, int]:
        """One pass: how many games it archived and how many it deleted."""
        archived = deleted = 0
        if self.ages.guest_games_after_days > 0:
            deleted = await self._guests(cut_off(self.ages.guest_games_after_days))
        if self.ages.archive_after_days > 0:
            archived = await self._archive(cut_off(self.ages.archive_after_days))
        if archived or deleted:
            logs.event("housekeeping", archived=archived, deleted=deleted)
        return archived, deleted

    async def _archive(self, before: str) -> int:
        due = partial(archive.due, ended_before=before, limit=BATCH)
        return await self._in_batches(due, lambda batch: partial(archive.archive_games, game_ids=batch))

    async def _guests(self, before: str) -> int:
        due = partial(guests.due, before=before, limit=BATCH)
        return await self._in_batches(due, lambda batch: partial(guests.delete_games, game_ids=batch, before=before))

    async def _in_batches(
        self, due: Callable[..., list[str]], act: Callable[[list[str]], Callable[[Connection], int]]
    ) -> int:
        """Read the next batch of due games (those held in memory left out) and act on it in one
        transaction, until none is due; how many games were acted on."""
        done = 0
        while True:
            batch = await self.writer.read(partial(due, skip=set(self.held())))
            if not batch:
                return done
            acted = await self.writer.transact(act(batch))
            if not acted:  # another pass took them meanwhile: the next pass looks again
                return done
            done += acted
            await asyncio.sleep(0)  # the event loop's other work between two batches
