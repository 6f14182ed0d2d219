"""The job queue between server instances and ``kahuna worker``: a Redis Stream read by a consumer group.

An instance that needs an AI move (or a post-game analysis) does not compute it: it *submits* a
:class:`Job` naming the game and the version the move is for. Workers read jobs with
``XREADGROUP``; a job stays pending, owned by the worker that read it, until that worker
acknowledges it, which it does only after the move is stored (or once the job turned out to be
obsolete). A worker that dies holding a job never acknowledges it: after ``claim_after`` seconds
of silence another worker takes it over with ``XAUTOCLAIM`` and plays it.

Redis is not the authority on what has been played: the database is (its ``(game, seq)`` key
admits one action per version). A job that is delivered twice, or submitted twice, costs a second
computation at most, never a second move. To keep that waste rare, :meth:`JobQueue.submit` adds a
job only if no job for the same game and version was added in the last ``MARKER_SECONDS`` (a
marker key set in the same Lua script as the ``XADD``, so a crash cannot leave one without the
other).

Redis may lose everything (a restart without persistence): the stream, the pending jobs and the
markers. Workers notice (the server's ``run_id`` changes) and submit again the AI turns the
database says are waiting; instances submit again what failed to reach Redis while it was down.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from kahuna.server.common import logs
from kahuna.server.common.tasks import cancel_and_wait

if TYPE_CHECKING:  # redis is the ``redis`` extra: the embedded server imports this module without it
    from redis.asyncio import Redis

Kind = Literal["ai", "ai-long", "analysis"]
KINDS: tuple[Kind, ...] = ("ai", "ai-long", "analysis")
"""``ai-long``: the move of a level that thinks by time (``cluster/ai_jobs.py``)."""

GROUP = "workers"
MARKER_SECONDS = 3600
"""How long a submitted job keeps another submission of the same job out of the queue."""
CLAIM_AFTER = 30.0
"""Default seconds a job may stay pending without news before another worker claims it: longer
than the slowest AI move (docs/ai.md), so a working worker is never robbed of its job."""

PROGRESS_SECONDS = 3600
"""How long the progress of an analysis is kept in Redis (its result is kept in the database)."""
RETRY_FIRST, RETRY_MOST = 0.2, 5.0
"""Seconds between two tries to reach Redis: doubling from the first to the most."""

_SUBMIT = """
if redis.call('SET', KEYS[1], '1', 'NX', 'EX', ARGV[1]) then
  return redis.call('XADD', KEYS[2], '*', unpack(ARGV, 2))
end
return false
"""
"""Add the job to the stream unless its marker exists; set the marker in the same step."""


@dataclass(frozen=True)
class Job:
    """An AI move in ``game_id`` at ``version`` (the number of actions played), or the analysis of
    the finished ``game_id`` (``version``: its number of actions)."""

    kind: Kind
    game_id: str
    version: int
    entry: str = ""
    """The stream entry id once read (what the worker acknowledges)."""
    deliveries: int = 1
    """How many times the job has been handed to a worker (more than one: a worker died with it)."""

    def fields(self) -> dict[str, str]:
        return {"kind": self.kind, "game": self.game_id, "version": str(self.version)}

    @classmethod
    def from_fields(cls, entry: str, fields: dict[str, str], deliveries: int = 1) -> Job | None:
        """The job of a stream entry; ``None`` for an entry that is not one (it is acknowledged and dropped)."""
        kind = fields.get("kind")
        try:
            version = int(fields.get("version", ""))
        except ValueError:
            return None
        game_id = fields.get("game", "")
        if kind not in KINDS or not game_id or version < 0:
            return None
        return cls(kind, game_id, version, entry, deliveries)


class JobQueue:
    """The stream ``<prefix>:jobs`` and its consumer group ``workers`` on one Redis server.

    ``prefix`` keeps deployments (and tests) that share a Redis server apart.
    """

    def __init__(self, redis: Redis, prefix: str = "kahuna", claim_after: float = CLAIM_AFTER) -> None:
        self.redis = redis
        self.prefix = prefix
        self.stream = f"{prefix}:jobs"
        self.claim_after = claim_after
        self._submit = redis.register_script(_SUBMIT)
        self._claim_cursor = "0-0"
        self._next_claim = 0.0
        """When to look for abandoned jobs next (``time.monotonic()``): not before every read, as
        a job is abandoned only when a worker dies; a quarter of ``claim_after`` is soon enough."""

    @classmethod
    def from_url(cls, url: str, prefix: str = "kahuna", claim_after: float = CLAIM_AFTER) -> JobQueue:
        """A queue on the Redis server of ``url`` (``redis://HOST:PORT/N``); connects on first use."""
        from redis.asyncio import Redis

        redis = Redis.from_url(url, decode_responses=True, socket_connect_timeout=2, health_check_interval=10)
        return cls(redis, prefix, claim_after)

    def _marker(self, job: Job) -> str:
        return f"{self.prefix}:job:{job.kind}:{job.game_id}:{job.version}"

    async def ensure_group(self) -> None:
        """Create the stream and its group if missing, reading from the stream's start: jobs that
        instances added before any worker came are served too."""
        from redis.exceptions import ResponseError

        with contextlib.suppress(ResponseError):  # BUSYGROUP: it exists
            await self.redis.xgroup_create(self.stream, GROUP, id="0", mkstream=True)

    async def submit(self, job: Job) -> bool:
        """Queue ``job`` unless the same job is already queued; whether it was added."""
        fields = [x for pair in job.fields().items() for x in pair]
        entry = await self._submit(keys=[self._marker(job), self.stream], args=[MARKER_SECONDS, *fields])
        return entry is not None

    async def take(self, consumer: str, block: float = 1.0) -> Job | None:
        """The next job for ``consumer``: first one a dead worker left pending for ``claim_after``
        seconds, else a new one (waiting up to ``block`` seconds); ``None`` if there is none."""
        from redis.exceptions import ResponseError

        if time.monotonic() >= self._next_claim:
            claimed = await self._claim(consumer)
            if claimed is not None:
                return claimed  # there may be more: look again at the next call
            self._next_claim = time.monotonic() + self.claim_after / 4
        try:
            answer: Any = await self.redis.xreadgroup(
                GROUP, consumer, {self.stream: ">"}, count=1, block=int(block * 1000)
            )
        except ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            await self.ensure_group()  # the stream was lost (Redis restarted): start afresh
            return None
        for _stream, entries in answer or []:
            for entry, fields in entries:
                job = Job.from_fields(entry, fields)
                if job is None:
                    await self.done_entry(entry)
                    continue
                return job
        return None

    async def _claim(self, consumer: str) -> Job | None:
        """``XAUTOCLAIM`` one job idle for ``claim_after`` seconds (its worker died with it)."""
        from redis.exceptions import ResponseError

        try:
            answer: Any = await self.redis.xautoclaim(
                self.stream, GROUP, consumer, int(self.claim_after * 1000), start_id=self._claim_cursor, count=1
            )
        except ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            await self.ensure_group()
            return None
        self._claim_cursor = answer[0]
        for entry, fields in answer[1]:
            if fields is None:  # deleted meanwhile
                continue
            job = Job.from_fields(entry, fields)
            if job is None:
                await self.done_entry(entry)
                continue
            return Job(job.kind, job.game_id, job.version, entry, await self._deliveries(entry))
        return None

    async def _deliveries(self, entry: str) -> int:
        pending = await self.redis.xpending_range(self.stream, GROUP, min=entry, max=entry, count=1)
        return int(pending[0]["times_delivered"]) if pending else 1

    async def done(self, job: Job) -> None:
        """Acknowledge ``job`` (its move is stored, or it is obsolete) and remove it from the stream."""
        await self.done_entry(job.entry)

    async def done_entry(self, entry: str) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:  # one round trip; XACK alone decides
            pipe.xack(self.stream, GROUP, entry)
            pipe.xdel(self.stream, entry)
            await pipe.execute()

    # ----------------------------------------------------------------- analyses

    def _progress_key(self, game_id: str) -> str:
        return f"{self.prefix}:analysis:{game_id}"

    async def submit_analysis(self, game_id: str, version: int, total: int, iterations: int) -> None:
        """Queue the analysis of a finished game: its progress (``state`` running, ``done``,
        ``total``) and budget go in a hash that every instance reads and the worker updates."""
        key = self._progress_key(game_id)
        fields: Any = {"state": "running", "done": 0, "total": total, "iterations": iterations}
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.hset(key, mapping=fields)
            pipe.expire(key, PROGRESS_SECONDS)
            await pipe.execute()
        job = Job("analysis", game_id, version)
        await self.redis.delete(self._marker(job))  # a failed analysis may be asked for again
        await self.submit(job)

    async def progress(self, game_id: str) -> dict[str, str]:
        """The hash of an analysis in progress (empty if none)."""
        answer: Any = await self.redis.hgetall(self._progress_key(game_id))
        return {str(key): str(value) for key, value in answer.items()}

    async def report(self, game_id: str, **fields: str | int) -> None:
        mapping: Any = fields  # redis's stubs want a Mapping of its own key and value unions
        await self.redis.hset(self._progress_key(game_id), mapping=mapping)

    async def keep(self, job: Job, consumer: str) -> None:
        """Tell the group that ``consumer`` still works on ``job`` (its idle time starts again):
        a long job (an analysis) is not claimed by another worker while its worker is alive."""
        await self.redis.xclaim(self.stream, GROUP, consumer, 0, [job.entry], justid=True)

    async def run_id(self) -> str:
        """The Redis server's run id: a new one means it restarted (and may have lost every job)."""
        info = await self.redis.info("server")
        return str(info["run_id"])

    async def pending(self) -> int:
        """Jobs read by a worker and not yet acknowledged."""
        from redis.exceptions import ResponseError

        try:
            summary = await self.redis.xpending(self.stream, GROUP)
        except ResponseError:
            return 0
        return int(summary["pending"])

    async def waiting(self) -> int:
        """Jobs in the stream (pending or not yet read)."""
        return int(await self.redis.xlen(self.stream))

    async def close(self) -> None:
        await self.redis.aclose()


class Submitter:
    """An instance's side of the queue: submits jobs in the background and, while Redis does not
    answer, again and again (backing off) for as long as the job is still wanted: a move that
    could not be queued during a Redis restart is queued as soon as Redis is back."""

    def __init__(self, queue: JobQueue) -> None:
        self.queue = queue
        self._tasks: dict[tuple[str, str, int], asyncio.Task[None]] = {}

    def submit(self, job: Job, wanted: Callable[[], bool]) -> None:
        """Queue ``job`` soon; give up once ``wanted()`` is false (the game moved on or ended)."""
        key = (job.kind, job.game_id, job.version)
        if key in self._tasks:
            return
        task = asyncio.get_running_loop().create_task(self._submit(job, wanted))
        self._tasks[key] = task
        task.add_done_callback(lambda _task: self._tasks.pop(key, None))

    async def _submit(self, job: Job, wanted: Callable[[], bool]) -> None:
        from redis.exceptions import RedisError

        delay = RETRY_FIRST
        while wanted():
            try:
                await self.queue.submit(job)
                return
            except (RedisError, OSError) as exc:
                logs.event("job_submit_error", game_id=job.game_id, job=job.kind, error=type(exc).__name__)
                await asyncio.sleep(delay)
                delay = min(2 * delay, RETRY_MOST)

    def busy(self) -> int:
        """Jobs not yet handed to Redis."""
        return len(self._tasks)

    async def close(self) -> None:
        for task in list(self._tasks.values()):
            await cancel_and_wait(task)
        await self.queue.close()
