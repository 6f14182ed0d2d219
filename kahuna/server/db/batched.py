"""Reads of one game each, made in batches: many requests at once share one query.

When a thousand connections open at once (a server's restart, the start of a tournament round, the
bench's first second), each asks the database something about its game: the accounts seated in it
(every ``hello``), and on a clustered instance how many actions are stored (a game entering memory
looks twice for actions stored while its subscription was reaching Redis). A thousand reads each
took a worker thread and a pooled connection (checked with a ping first) while the event loop was
answering the first moves. Here the requests made while one read is under way wait for the next,
which reads all of their games in one query: at most one read in flight, each of at most
:data:`MAX_BATCH` games. A request is answered from a read that started after it was made, so it
is as fresh as a read of its own.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from functools import partial
from typing import Generic, TypeVar

from sqlalchemy import Connection

from kahuna.server.db.writer import Writer

V = TypeVar("V")

MAX_BATCH = 500
"""Games per read: far below SQLite's limit on bound parameters, and one read stays short."""


class BatchedReader(Generic[V]):
    """``await reader.get(game_id)``: what ``read`` gives for the game, read together with whatever
    other games are asked for meanwhile.

    ``read(conn, game_ids)`` answers for many games at once and may leave out a game it has nothing
    for: that game's answer is ``missing()``. Requests for the same game in one batch get the same
    object: callers must not change it.
    """

    def __init__(
        self, writer: Writer, read: Callable[[Connection, list[str]], dict[str, V]], missing: Callable[[], V]
    ) -> None:
        self._writer = writer
        self._read = read
        self._missing = missing
        self._waiting: dict[str, list[asyncio.Future[V]]] = {}
        self._reading: asyncio.Task[None] | None = None

    async def get(self, game_id: str) -> V:
        future: asyncio.Future[V] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(game_id, []).append(future)
        if self._reading is None:
            self._reading = asyncio.create_task(self._read_all())
        return await future

    async def _read_all(self) -> None:
        """Read batch after batch until nobody waits; a failed read fails its own batch only."""
        batch: dict[str, list[asyncio.Future[V]]] = {}
        try:
            while self._waiting:
                game_ids = list(self._waiting)[:MAX_BATCH]
                batch = {game_id: self._waiting.pop(game_id) for game_id in game_ids}
                try:
                    found = await self._writer.read(partial(_call, self._read, game_ids))
                except Exception as exc:  # handed to each request of the batch
                    self._settle(batch, error=exc)
                else:
                    self._settle(batch, found=found)
        finally:  # cancelled (the server stops): nobody may wait for a read that will not come
            self._settle(batch)
            self._settle(self._waiting)
            self._waiting = {}
            self._reading = None

    def _settle(
        self,
        batch: dict[str, list[asyncio.Future[V]]],
        found: dict[str, V] | None = None,
        error: BaseException | None = None,
    ) -> None:
        """Answer each request of ``batch`` not answered yet: its game's answer, or ``error``; with
        neither, cancel it."""
        for game_id, futures in batch.items():
            for future in futures:
                if future.done():
                    continue
                if error is not None:
                    future.set_exception(error)
                elif found is not None:
                    future.set_result(found[game_id] if game_id in found else self._missing())
                else:
                    future.cancel()


def _call(read: Callable[[Connection, list[str]], dict[str, V]], game_ids: list[str], conn: Connection) -> dict[str, V]:
    return read(conn, game_ids)
