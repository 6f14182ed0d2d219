"""The accounts seated in a game, read in batches: many connections asking at once share one read.

Every ``hello`` counts its connection as online under the seat's account (``presence``), which
is read from the database, since a guest's seat can be bound to an account in the middle of a game
(``store.adopt_seats``) and rematches carry seats over: a copy held in memory could be stale, and on
several instances it would be. When a thousand connections open at once (a server's restart, the
start of a tournament round, the bench's first second), a thousand reads each took a worker thread
and a connection while the event loop was answering the first moves. Here the requests made while
one read is under way wait for the next, which reads all of their games in one query pair
(:func:`store.games_players`): at most one read in flight, each at most :data:`MAX_BATCH` games.
A request is answered from a read that started after it was made, so it is as fresh as a read of
its own.
"""

from __future__ import annotations

import asyncio
from functools import partial

from kahuna.server.accounts import store
from kahuna.server.db.writer import Writer

MAX_BATCH = 500
"""Games per read: far below SQLite's limit on bound parameters, and one read stays short."""


class PlayersReader:
    """``await players(game_id)``: seat → account of the game, read together with whatever other
    games are asked for meanwhile."""

    def __init__(self, writer: Writer) -> None:
        self._writer = writer
        self._waiting: dict[str, list[asyncio.Future[dict[int, int]]]] = {}
        self._reading: asyncio.Task[None] | None = None

    async def players(self, game_id: str) -> dict[int, int]:
        future: asyncio.Future[dict[int, int]] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(game_id, []).append(future)
        if self._reading is None:
            self._reading = asyncio.create_task(self._read_all())
        return dict(await future)

    async def _read_all(self) -> None:
        """Read batch after batch until nobody waits; a failed read fails its own batch only."""
        batch: dict[str, list[asyncio.Future[dict[int, int]]]] = {}
        try:
            while self._waiting:
                game_ids = list(self._waiting)[:MAX_BATCH]
                batch = {game_id: self._waiting.pop(game_id) for game_id in game_ids}
                try:
                    found = await self._writer.read(partial(store.games_players, game_ids=game_ids))
                except Exception as exc:  # handed to each request of the batch
                    _settle(batch, error=exc)
                else:
                    _settle(batch, found=found)
        finally:  # cancelled (the server stops): nobody may wait for a read that will not come
            _settle(batch)
            _settle(self._waiting)
            self._waiting = {}
            self._reading = None


def _settle(
    batch: dict[str, list[asyncio.Future[dict[int, int]]]],
    found: dict[str, dict[int, int]] | None = None,
    error: BaseException | None = None,
) -> None:
    """Answer each request of ``batch`` not answered yet: its game's accounts, or ``error``; with
    neither, cancel it."""
    for game_id, futures in batch.items():
        for future in futures:
            if future.done():
                continue
            if error is not None:
                future.set_exception(error)
            elif found is not None:
                future.set_result(found.get(game_id, {}))
            else:
                future.cancel()
