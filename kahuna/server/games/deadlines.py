"""When each timed game's running clock runs out, so that the server ends it then, exactly once (and
when a clock waiting for its players starts at the latest: ``Clock.due``).

:class:`Deadlines` knows the deadline of every timed game held in memory (the engine tells it after
each change) and of games whose deadline was read from the database (:class:`StoredDeadlines`, for
an instance that does not load every game at start); ``games/timeouts.py`` sleeps until the
earliest one. A deadline that passed while the server was down fires at start, dated when it passed.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import time
from functools import partial

from kahuna.server.common import logs
from kahuna.server.db import store
from kahuna.server.db.writer import Writer
from kahuna.server.games.live import LiveGame

POLL_EVERY = 2.0
"""Seconds between two looks in the database for clocks running out soon (in games that other
instances changed or created, or whose instance died)."""
RETRY_SECONDS = 1.0
"""Seconds after which a deadline whose game could not be ended (the database refused) fires again."""


class Deadlines:
    def __init__(self) -> None:
        self.due: dict[str, float] = {}
        """When the running clock of each timed game runs out (seconds since the epoch), for games
        in memory or not: the timeout loop ends the game then, exactly once."""
        self._changed = asyncio.Event()

    def track(self, game: LiveGame) -> None:
        """Keep ``game``'s deadline up to date (call after any change to it)."""
        deadline = None if game.clock is None or game.state.is_over else game.clock.due()
        if deadline is None:
            if self.due.pop(game.game_id, None) is None:
                return
        elif self.due.get(game.game_id) == deadline:
            return
        else:
            self.due[game.game_id] = deadline
        self._changed.set()

    def add(self, found: dict[str, float]) -> None:
        """Deadlines read from the database (set by any instance): the earlier of the known and the
        found one is kept (firing early only looks at the clock and waits again)."""
        changed = False
        for game_id, deadline in found.items():
            if deadline < self.due.get(game_id, math.inf):
                self.due[game_id] = deadline
                changed = True
        if changed:
            self._changed.set()

    def retry_soon(self, game_id: str) -> None:
        """Fire again shortly (the game could not be ended now), unless a deadline is known."""
        self.due.setdefault(game_id, time.time() + RETRY_SECONDS)

    def forget(self, game_id: str) -> None:
        self.due.pop(game_id, None)

    async def next_due(self) -> str:
        """Wait until the earliest deadline has passed; that game's id (its deadline is dropped:
        tracking the game again puts it back if its clock still runs)."""
        while True:
            self._changed.clear()
            due = min(self.due.items(), key=lambda item: item[1], default=None)
            wait = None if due is None else due[1] - time.time()
            if wait is None or wait > 0:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._changed.wait(), wait)
                continue
            assert due is not None
            self.due.pop(due[0], None)
            return due[0]


class StoredDeadlines:
    """The deadlines of games this instance does not hold, read from the database: at start, then
    every :data:`POLL_EVERY` seconds those due soon. An instance fires a deadline of a game it does
    not hold (loading it then), whichever instance set it, and ``claims.claim_end`` keeps it once."""

    def __init__(self, writer: Writer, deadlines: Deadlines) -> None:
        self.writer = writer
        self.deadlines = deadlines
        self._poll: asyncio.Task[None] | None = None

    async def start(self) -> int:
        """Take every running clock's deadline and start polling; how many were found at start."""
        found = await self.writer.read(lambda conn: store.due_deadlines(conn, math.inf))
        self.deadlines.add(found)
        self._poll = asyncio.get_running_loop().create_task(self._poll_loop())
        return len(found)

    async def _poll_loop(self) -> None:
        while True:
            await asyncio.sleep(POLL_EVERY)
            before = time.time() + 2 * POLL_EVERY
            try:
                self.deadlines.add(await self.writer.read(partial(store.due_deadlines, before=before)))
            except Exception as exc:  # the database is away: the next look tries again
                logs.event("deadline_poll_error", error=type(exc).__name__)

    def stop(self) -> None:
        if self._poll is not None:
            self._poll.cancel()
