"""``kahuna worker``: take AI moves from the job queue and play them, on any machine, any number of them.

With ``kahuna serve --broker redis://…`` the server instances compute no AI move: they queue a job
(:mod:`kahuna.server.cluster.jobs`) naming the game and its version. A worker reads it, loads the game
from the database (never from a cache: another worker or instance may have moved it), lets the
agent choose in its own process pool (``--jobs`` processes, the same :class:`~kahuna.server.games.ai_pool.AiPool`
as a server's, so an agent sees only the AI seat's view), and plays the action through the same
engine as an instance does (``games.ai_turns.ai_move``): stored first, under the
database's one-action-per-version key, then announced to the instances. It queues the next move
if the AI is still to move, and only then acknowledges the job.

A worker killed in the middle of a move never acknowledges its job; another one claims it after
``--claim-after`` seconds and plays it. If the first one had stored the move already, the job is
*past* (the game's version is beyond it): acknowledged and dropped, after queuing the move that
is now due. So each move is played exactly once, whoever dies when.

When the database refuses (it is down), the job stays with the worker, which tries again with a
growing pause; when Redis restarts (and, without persistence, forgets every job), the worker
reconnects, notices the new server (its ``run_id``) and queues again every AI move the database
says is due.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy import Connection, or_, select
from sqlalchemy.exc import SQLAlchemyError

from kahuna.ai.review.analysis import Budget, decisions
from kahuna.ai.review.wingraph import turn_starts
from kahuna.rules import GameRecord
from kahuna.server.cluster.ai_jobs import ai_job
from kahuna.server.cluster.jobs import RETRY_FIRST, RETRY_MOST, Job, JobQueue
from kahuna.server.common import logs
from kahuna.server.common.config import Limits
from kahuna.server.common.errors import Rejected
from kahuna.server.db import schema, store
from kahuna.server.db.writer import Conflict
from kahuna.server.games import messages
from kahuna.server.games.ai_pool import AiPool
from kahuna.server.games.ai_turns import ai_move, ai_to_move
from kahuna.server.games.analysis import compute, store_result
from kahuna.server.games.engine import GameEngine
from kahuna.server.games.live import AI_PREFIX, LiveGame, rebuild

WATCH_EVERY = 2.0
"""Seconds between two looks at the Redis server's identity (a restart loses the queue)."""
LONG_JOBS_PER_LANE = 4
"""``ai-long`` jobs a worker holds beside its other jobs, per process of its pool's long lane
(they wait there in turn, owners taking turns); beyond that a job loop plays one itself."""


class Worker:
    """``jobs`` loops that take a job, play it and acknowledge it, plus one that watches Redis."""

    def __init__(self, engine: GameEngine, pool: AiPool, queue: JobQueue, consumer: str, jobs: int = 1) -> None:
        self.engine = engine
        self.pool = pool
        self.queue = queue
        self.consumer = consumer
        self.jobs = jobs
        self._run_id: str | None = None
        self._long: set[asyncio.Task[None]] = set()
        """``ai-long`` jobs being played beside the job loops."""
        self.played = 0
        """Moves this worker stored."""

    async def run(self, stop: asyncio.Event) -> None:
        tasks = [asyncio.create_task(self._take_jobs(stop)) for _ in range(self.jobs)]
        tasks.append(asyncio.create_task(self._watch(stop)))
        await stop.wait()
        await asyncio.gather(*tasks)
        await asyncio.gather(*self._long)

    # ----------------------------------------------------------------- Redis

    async def _watch(self, stop: asyncio.Event) -> None:
        """Notice a Redis server that is new (restarted: its jobs may be gone) and queue again the
        AI moves the database says are due; at start too, for moves queued while no worker ran."""
        from redis.exceptions import RedisError

        while not stop.is_set():
            try:
                run_id = await self.queue.run_id()
                if run_id != self._run_id:
                    await self.queue.ensure_group()
                    queued = await self.requeue_due()
                    logs.event(
                        "worker_redis", consumer=self.consumer, new_server=self._run_id is not None, queued=queued
                    )
                    self._run_id = run_id
            except (RedisError, OSError, SQLAlchemyError) as exc:
                logs.event("worker_watch_error", error=type(exc).__name__)
            await sleep_unless(stop, WATCH_EVERY)

    async def requeue_due(self) -> int:
        """Queue the move of every unfinished game whose AI seat is to move (duplicates are left out
        by the queue; a game the queue still holds is not queued twice)."""
        ids = await self.engine.writer.read(_games_with_ai)
        queued = 0
        for game_id in ids:
            game = await self._load(game_id)
            if game is not None and ai_to_move(game):
                queued += await self.queue.submit(ai_job(game))
        return queued

    async def _take_jobs(self, stop: asyncio.Event) -> None:
        from redis.exceptions import RedisError

        pause = RETRY_FIRST
        while not stop.is_set():
            try:
                job = await self.queue.take(self.consumer)
            except (RedisError, OSError) as exc:
                logs.event("worker_redis_error", consumer=self.consumer, error=type(exc).__name__)
                await sleep_unless(stop, pause)
                pause = min(2 * pause, RETRY_MOST)
                continue
            pause = RETRY_FIRST
            if job is not None and job.kind == "ai-long" and len(self._long) < self._long_room():
                # A move of a level by time takes seconds: played beside the loops, which go on
                # taking the other games' quick moves meanwhile.
                task = asyncio.create_task(self._finish(job, stop))
                self._long.add(task)
                task.add_done_callback(self._long.discard)
            elif job is not None:
                await self._finish(job, stop)

    def _long_room(self) -> int:
        return LONG_JOBS_PER_LANE * self.pool.long_workers

    async def _finish(self, job: Job, stop: asyncio.Event) -> None:
        """Play ``job`` until it is done or past, then acknowledge it; while the database or Redis
        refuses, keep it (unacknowledged: if this worker dies, another takes it) and try again."""
        from redis.exceptions import RedisError

        pause = RETRY_FIRST
        while True:
            try:
                await self.play(job)
                await self.queue.done(job)
                return
            except (SQLAlchemyError, Rejected, RedisError, OSError) as exc:
                logs.event("job_error", game_id=job.game_id, version=job.version, error=type(exc).__name__)
                if stop.is_set():
                    return  # left pending: another worker claims it
                await sleep_unless(stop, pause)
                pause = min(2 * pause, RETRY_MOST)
            finally:
                self.engine.deadlines.forget(job.game_id)

    # ----------------------------------------------------------------- one job

    async def play(self, job: Job) -> str:
        """Play one AI job; what became of it: ``played``, ``past`` (its version was played
        already: the move now due, if any, is queued), ``over`` or ``gone`` (no such game). An
        analysis job: ``played`` (stored), ``past`` (stored already), ``failed`` or ``gone``."""
        if job.kind == "analysis":
            return await self.analyse(job)
        start = time.perf_counter()
        game = await self._load(job.game_id)
        if game is None:
            outcome = "gone"
        elif game.status != messages.PLAYING:
            outcome = "over"
        elif game.version != job.version or not ai_to_move(game):
            # The worker that stored this version may have died before it told the instances:
            # they reload the game (a past job is rare: a worker died, or a job came twice).
            self.engine.replication.changed(game)
            await self._queue_next(game)
            outcome = "past"
        else:
            seat = game.state.to_move
            spec = game.ai_spec(seat)
            assert spec is not None
            try:
                played = await ai_move(self.engine, self.pool, game, seat, spec)
            except Rejected:
                stored = await self._load(job.game_id)
                if stored is None or stored.version <= job.version:
                    raise  # not stored by anyone: the database refused; try again
                played, game = False, stored  # another worker stored this version first (and told)
            outcome = "played" if played else "past"
            self.played += played
            await self._queue_next(game)
        ms = round((time.perf_counter() - start) * 1000, 1)
        logs.event(
            "job_done",
            game_id=job.game_id,
            version=job.version,
            outcome=outcome,
            deliveries=job.deliveries,
            consumer=self.consumer,
            ms=ms,
        )
        return outcome

    async def analyse(self, job: Job) -> str:
        """Compute and store the analysis of a finished game (``kahuna.server.games.analysis``), at the
        budget the instance asked for, reporting progress in Redis for every instance to show;
        the job is kept fresh (``XCLAIM``) so that no other worker takes it while this one works."""
        start = time.perf_counter()
        outcome = await self._analyse(job)
        ms = round((time.perf_counter() - start) * 1000, 1)
        logs.event("job_done", game_id=job.game_id, job="analysis", outcome=outcome, consumer=self.consumer, ms=ms)
        return outcome

    async def _analyse(self, job: Job) -> str:
        from redis.exceptions import RedisError

        game = await self._load(job.game_id)
        if game is None or not game.state.is_over:
            return "gone"
        if await self.engine.writer.read(lambda conn: _has_analysis(conn, job.game_id)):
            await self.queue.report(job.game_id, state="done")
            return "past"
        asked = await self.queue.progress(job.game_id)
        budget = Budget(iterations=int(asked.get("iterations", Limits().analysis_iterations)))
        record = GameRecord.from_json(game.full_record())
        steps = await asyncio.to_thread(decisions, record)
        starts, _ = await asyncio.to_thread(turn_starts, record)
        done = 0
        kept = time.monotonic()

        async def run(fn: Callable[..., Any], *args: Any) -> Any:
            nonlocal done, kept
            answer = await self.pool.run(f"analysis:{job.game_id}", fn, *args)
            done += 1
            try:
                await self.queue.report(job.game_id, state="running", done=done)
                if time.monotonic() - kept > self.queue.claim_after / 3:
                    await self.queue.keep(job, self.consumer)
                    kept = time.monotonic()
            except (RedisError, OSError) as exc:  # progress is for show; the result goes to the database
                logs.event("worker_redis_error", consumer=self.consumer, error=type(exc).__name__)
            return answer

        try:
            result = await compute(record, steps, starts, budget, run, lambda: None)
        except Exception as exc:  # an agent failed: the players may ask again
            logs.event("analysis_failed", game_id=job.game_id, error=type(exc).__name__)
            await self.queue.report(job.game_id, state="failed")
            return "failed"
        with contextlib.suppress(Conflict):  # another worker stored it first: the same (fixed seed and budget)
            await self.engine.writer.write(lambda conn: store_result(conn, job.game_id, result))
        await self.queue.report(job.game_id, state="done", done=done)
        return "played"

    async def _queue_next(self, game: LiveGame) -> None:
        if ai_to_move(game):
            await self.queue.submit(ai_job(game))

    async def _load(self, game_id: str) -> LiveGame | None:
        """The game as stored now (``None`` if unknown or damaged: a damaged game is logged once
        and its jobs dropped, as an instance quarantines it)."""
        stored = await self.engine.writer.read(lambda conn: store.load_game(conn, game_id))
        if stored is None:
            return None
        try:
            game = rebuild(stored)
        except Exception as exc:
            logs.event("game_quarantined", game_id=game_id, error=type(exc).__name__)
            return None
        return game


def _has_analysis(conn: Connection, game_id: str) -> bool:
    return (
        conn.execute(select(schema.analyses.c.game_id).where(schema.analyses.c.game_id == game_id)).first() is not None
    )


def _games_with_ai(conn: Connection) -> list[str]:
    """Unfinished games with an AI seat."""
    games = schema.games
    query = select(games.c.id).where(
        games.c.status == messages.PLAYING,
        or_(games.c.kind0.startswith(AI_PREFIX), games.c.kind1.startswith(AI_PREFIX)),
    )
    return list(conn.execute(query).scalars())


async def sleep_unless(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)
