"""Group commit: every database write goes through one thread, batched into few transactions.

A write is an :class:`~kahuna.server.db.store.ActionRow` or a function of a SQLAlchemy ``Connection``;
:meth:`Writer.write` returns once the transaction holding it is committed. Writes that arrive
while a commit is in flight are committed together in the next one (the action rows in one
statement), so hundreds of concurrent games cost one ``fsync`` per batch rather than one per
move, and the event loop never waits on the disk. For SQLite, WAL checkpoints (which copy the log
into the database file and fsync it) run every few seconds on a thread and connection of their
own, so that no player's commit waits for one.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TypeVar

from sqlalchemy import Connection, Engine, bindparam, select
from sqlalchemy.exc import IntegrityError

from kahuna.server.common import logs
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.db.schema import games
from kahuna.server.db.store import ActionRow, insert_action_extras, insert_actions
from kahuna.server.ops import metrics

Write = Callable[[Connection], None] | ActionRow


class Conflict(Exception):
    """A write that lost a race with another instance: the row it inserts exists already (one
    action per game and version, one chat line per number) or a condition it checks no longer
    holds. The writer's caller catches the game up from the database; nothing was stored."""


T = TypeVar("T")

MAX_BATCH = 512
CHECKPOINT_EVERY = 2.0
"""Seconds between WAL checkpoints (SQLite only)."""


def insert_unfinished(conn: Connection, rows: list[ActionRow]) -> None:
    """Insert the action rows of a group commit on a database several instances write
    (PostgreSQL), share-locking the rows of their games in the same statement, and
    :class:`Conflict`, with nothing inserted, if one of those games is over or not stored. An end
    (``claims.claim_end``) updates the same row, so it waits for these actions to commit and then
    counts them, or these wait for it and see the game over: an action and an end by two instances
    cannot both be stored.

    One statement where a lock and then the insert took two (and their round trips): a commit of
    six rows cost the writer's thread 842-1,318 µs of CPU that way and 486-614 µs this way, measured
    alone (docs/scaling.md); the thread's Python shares one interpreter lock with the event loop."""
    params = {
        "ids": sorted({row.game_id for row in rows}),
        "game_id": [row.game_id for row in rows],
        "seq": [row.seq for row in rows],
        "seat": [row.seat for row in rows],
        "token": [row.token for row in rows],
        "at": [row.at for row in rows],
    }
    if conn.exec_driver_sql(_INSERT_UNFINISHED, params).scalar_one() != len(rows):
        raise Conflict()
    insert_action_extras(conn, rows)


_INSERT_UNFINISHED = """\
WITH locked AS (
    SELECT id FROM games WHERE id = ANY(%(ids)s::varchar[]) AND status <> 'over' FOR SHARE
), inserted AS (
    INSERT INTO actions (game_id, seq, seat, token, at)
    SELECT * FROM unnest(
        %(game_id)s::varchar[], %(seq)s::int[], %(seat)s::int[], %(token)s::varchar[], %(at)s::varchar[]
    )
    WHERE (SELECT count(*) FROM locked) = cardinality(%(ids)s::varchar[])
    RETURNING 1
)
SELECT count(*) FROM inserted"""
"""Nothing is inserted unless every game of the batch was locked unfinished; the count of rows
inserted says which happened."""


def lock_unfinished(conn: Connection, game_ids: list[str]) -> None:
    """Lock the rows of the games whose last action this transaction inserts, and :class:`Conflict`
    if one of them is over. The transaction updates the row too (the end), so it takes the lock it
    needs at once, before inserting anything: with a share lock first, two instances deadlock (this
    one waits to update the row another instance share-locked, that one waits for this one's action
    of the same version), and PostgreSQL fails one of them after a second (``deadlock_timeout``), a
    ``server_error`` instead of ``stale_version``."""
    ids = sorted(set(game_ids))
    if len(conn.execute(_LOCK, {"ids": ids}).all()) != len(ids):
        raise Conflict()


_LOCK = (
    select(games.c.id)
    .where(games.c.id.in_(bindparam("ids", expanding=True)), games.c.status != "over")
    .with_for_update()
)
"""The query of :func:`lock_unfinished`, built once: building one for each commit cost the
writer's thread the statement's construction and its cache key, and left a reference cycle (its
bound parameters) for the cyclic collector, whose pauses stop the event loop (docs/scaling.md)."""


class Writer:
    """The single database writer of a server (start it inside the running event loop)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._queue: asyncio.Queue[tuple[Write, asyncio.Future[None]]] = asyncio.Queue()
        self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="kahuna-db")
        self._task: asyncio.Task[None] | None = None
        self._conn: Connection | None = None
        """The writer thread's own connection, kept open (a pool checkout per commit costs more)."""
        self._checkpoints: asyncio.Task[None] | None = None
        self._shared = engine.dialect.name != "sqlite"
        """A database several instances may write: actions take their games' row locks."""

    def start(self) -> None:
        loop = asyncio.get_running_loop()
        self._task = loop.create_task(self._run())
        if self.engine.dialect.name == "sqlite":
            self._checkpoints = loop.create_task(self._checkpoint_loop())

    async def _checkpoint_loop(self) -> None:
        while True:
            await asyncio.sleep(CHECKPOINT_EVERY)
            try:
                await asyncio.to_thread(self._checkpoint, "PASSIVE")
            except Exception as exc:  # a failed checkpoint is retried next time; the WAL keeps the data
                logs.event("db_checkpoint_error", error=type(exc).__name__)

    def _checkpoint(self, mode: str) -> None:
        with self.engine.connect() as conn:
            conn.exec_driver_sql(f"PRAGMA wal_checkpoint({mode})")

    async def write(self, fn: Write) -> None:
        """Commit ``fn`` (a row, or a function run in the transaction); raises if the commit failed."""
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        await self._queue.put((fn, future))
        await future

    async def transact(self, fn: Callable[[Connection], T]) -> T:
        """Commit ``fn`` like :meth:`write` and return what it returned (from its last run: a batch
        that failed is run again write by write)."""
        box: list[T] = []
        await self.write(lambda conn: box.append(fn(conn)))
        return box[-1]

    async def read(self, fn: Callable[[Connection], T], threads: Executor | None = None) -> T:
        """Run a read in a worker thread (SQLite in WAL mode reads alongside the writer): one of
        ``threads`` (a pool of its own for long reads a client can ask for, so that they never
        hold up the games' work in the default pool), or of the event loop's default pool."""

        def run() -> T:
            with self.engine.connect() as conn:
                return fn(conn)

        if threads is None:
            return await asyncio.to_thread(run)
        return await asyncio.get_running_loop().run_in_executor(threads, run)

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            batch = [await self._queue.get()]
            while not self._queue.empty() and len(batch) < MAX_BATCH:
                batch.append(self._queue.get_nowait())
            errors = await loop.run_in_executor(self._thread, self._commit, [fn for fn, _ in batch])
            for (_, future), error in zip(batch, errors, strict=True):
                if future.done():
                    continue
                if error is None:
                    future.set_result(None)
                else:
                    future.set_exception(error)

    def _commit(self, batch: list[Write]) -> list[BaseException | None]:
        """One transaction for the batch; if it fails, each write alone, so one bad write fails alone.

        A database that cannot be reached (PostgreSQL stopped) fails the writes, never the writer:
        connecting is inside the ``try``, and the next batch connects again."""
        conn: Connection | None = None
        try:
            if self._conn is None:
                self._conn = self.engine.connect()
            conn = self._conn
            clock = metrics.Stopwatch()
            with conn.begin():
                rows = [w for w in batch if isinstance(w, ActionRow)]
                if rows:
                    if self._shared:
                        insert_unfinished(conn, rows)
                    else:
                        insert_actions(conn, rows)
                for fn in batch:
                    if not isinstance(fn, ActionRow):
                        fn(conn)
            metrics.COMMIT_SECONDS.observe(clock.seconds())
            metrics.ACTIONS.inc(len(rows))
            return [None] * len(batch)
        except Exception as exc:
            if conn is None or conn.invalidated:
                self._conn = None
            if len(batch) == 1:
                if isinstance(exc, Conflict | IntegrityError):
                    return [Conflict()]
                # Only the type: the message of a database error quotes the row (a face-down card).
                logs.event("db_error", error=type(exc).__name__)
                return [RuntimeError("the database refused the write")]
        return [self._commit([fn])[0] for fn in batch]

    async def close(self) -> None:
        """Commit what is queued, then stop."""
        while not self._queue.empty():
            await asyncio.sleep(0.01)
        for task in (self._task, self._checkpoints):
            if task is not None:
                await cancel_and_wait(task)
        self._thread.submit(self._close_connection).result()
        self._thread.shutdown(wait=True)
        if self.engine.dialect.name == "sqlite":
            self._checkpoint("TRUNCATE")

    def _close_connection(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None
