"""Post-game analysis as a background job: asked for by a player of a finished game, computed in
the AI worker pool at a fixed budget, cached with the game, paid from a per-player quota.

The work is the analysis of :mod:`kahuna.ai.review.analysis` (every decision judged from its mover's
own view) and the public graph of :mod:`kahuna.ai.review.wingraph` (one point per turn from the
spectator's view). Each decision and each turn is one task of the AI pool, queued as costly
behind live games' moves (:class:`~kahuna.server.games.ai_pool.FairQueue`), and a job runs one task at a time,
so an analysis never holds more than one worker; ``done``/``total`` tasks is its progress.

Who sees what: everyone sees a finished analysis, as everyone may read a finished game's full
record (``GET /api/games/{id}/record``, deal included): a move's analysis, computed from its mover's
hand, tells nothing the record does not. Only a player may start one: with a seat token, or as the
signed-in account a seat belongs to (cookie with the CSRF header, or Bearer).

Where a job runs is given, not asked: :class:`LocalAnalyses` computes it in this process's pool;
with ``kahuna serve --broker`` ``cluster.analysis_jobs.QueuedAnalyses`` queues it for
``kahuna worker`` (the same :func:`compute`, in the worker's pool; progress in Redis), so every
instance shows the same progress and the instances do no search.

The quota is per client address (players have no accounts: a browser's "player" is its address),
``analyses_per_hour`` jobs started per hour with a burst; cached results cost nothing.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar

from sqlalchemy import Connection, insert, select

from kahuna.ai.review.analysis import Budget, Decision, MoveAnalysis, analyse_decision, decisions, seed_for, summary
from kahuna.ai.review.wingraph import GraphPoint, public_estimate, turn_starts
from kahuna.rules import GameRecord, PlayerView
from kahuna.server.common import logs
from kahuna.server.common.errors import Rejected
from kahuna.server.common.ratelimit import LimiterFactory, memory_limiter
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.db import schema
from kahuna.server.db.writer import Writer
from kahuna.server.games.ai_pool import AiPool
from kahuna.server.games.live import LiveGame

T = TypeVar("T")

SEED = 0
"""Every game is analysed with the same seed: the same game gives the same analysis."""


TurnStart = tuple[int, int, PlayerView]
"""A turn's number, its first step and the spectator's view there (one point of the win graph)."""


class AnalysisRunner(Protocol):
    """Where analyses are computed: in this process's AI pool (:class:`LocalAnalyses`), or queued
    for ``kahuna worker`` with the progress in Redis (``cluster.analysis_jobs.QueuedAnalyses``).
    Given to :class:`AnalysisJobs` when it is built, one implementation per mode."""

    async def progress(self, game_id: str) -> dict[str, Any] | None:
        """``{"state": "running"|"failed", "done", "total"}`` of a job not yet stored, or ``None``."""
        ...

    async def start(
        self, game: LiveGame, record: GameRecord, steps: list[Decision], starts: list[TurnStart], client: str
    ) -> None:
        """Begin computing for ``client`` (the result is stored with the game when done)."""
        ...

    async def stop(self) -> None:
        """The server is stopping: cancel what runs here and return once it has ended (it is asked
        for again later)."""
        ...


@dataclass
class Job:
    """An analysis being computed in this process."""

    total: int
    done: int = 0
    failed: bool = False
    task: asyncio.Task[None] | None = field(default=None, repr=False)


class LocalAnalyses:
    """Analyses computed in this process's AI pool, one task at a time per job."""

    def __init__(self, writer: Writer, ai: AiPool, budget: Budget) -> None:
        self.writer = writer
        self.ai = ai
        self.budget = budget
        self.jobs: dict[str, Job] = {}

    async def progress(self, game_id: str) -> dict[str, Any] | None:
        job = self.jobs.get(game_id)
        if job is None:
            return None
        return {"state": "failed" if job.failed else "running", "done": job.done, "total": job.total}

    async def start(
        self, game: LiveGame, record: GameRecord, steps: list[Decision], starts: list[TurnStart], client: str
    ) -> None:
        job = Job(total=len(steps) + len(starts))
        self.jobs[game.game_id] = job
        job.task = asyncio.get_running_loop().create_task(self._run(game.game_id, record, steps, starts, job, client))
        logs.event("analysis_started", game_id=game.game_id, tasks=job.total)

    async def stop(self) -> None:
        jobs = list(self.jobs.values())
        self.jobs.clear()
        for job in jobs:
            if job.task is not None:
                await cancel_and_wait(job.task)

    async def _run(
        self, game_id: str, record: GameRecord, steps: list[Decision], starts: list[TurnStart], job: Job, client: str
    ) -> None:
        owner = f"analysis:{client}"  # the pool is fair between owners: one client's jobs share one place

        async def run(fn: Callable[..., T], *args: Any) -> T:
            return await self.ai.run(owner, fn, *args)

        def progress() -> None:
            job.done += 1

        try:
            result = await compute(record, steps, starts, self.budget, run, progress)
            await self.writer.write(lambda conn: store_result(conn, game_id, result))
            del self.jobs[game_id]
            logs.event("analysis_done", game_id=game_id)
        except Exception as exc:  # a failed job may be asked for again
            job.failed = True
            logs.event("analysis_failed", game_id=game_id, error=f"{type(exc).__name__}: {exc}")


class AnalysisJobs:
    """Starts, tracks and caches the analyses of finished games, whichever runner computes them."""

    def __init__(
        self,
        writer: Writer,
        runner: AnalysisRunner,
        per_hour: float,
        burst: int,
        limiters: LimiterFactory = memory_limiter,
    ) -> None:
        self.writer = writer
        self.runner = runner
        self.quota = limiters("analyses", per_hour / 3600.0, burst)
        self._cache: dict[str, dict[str, Any]] = {}

    async def stop(self) -> None:
        """Cancel the jobs running here and wait for them to end (the server is stopping)."""
        await self.runner.stop()

    async def result(self, game_id: str) -> dict[str, Any] | None:
        """The stored analysis of a game, if it has been computed."""
        cached = self._cache.get(game_id)
        if cached is not None:
            return cached

        def read(conn: Connection) -> str | None:
            row = conn.execute(select(schema.analyses.c.result).where(schema.analyses.c.game_id == game_id)).first()
            return None if row is None else str(row[0])

        text = await self.writer.read(read)
        if text is None:
            return None
        result: dict[str, Any] = json.loads(text)
        self._cache[game_id] = result
        return result

    async def request(self, game: LiveGame, client: str) -> None:
        """Start the analysis of a finished game unless it is stored or running; the quota is
        charged only when a job starts (``Rejected`` 429 when it is spent)."""
        if await self.result(game.game_id) is not None:
            return
        progress = await self.runner.progress(game.game_id)
        if progress is not None and progress["state"] == "running":
            return
        wait = await self.quota.take(client)
        if wait:
            raise Rejected("analysis_quota", "analysis quota spent: try again later", 429, retry_after=wait)
        record = GameRecord.from_json(game.full_record())
        steps = await asyncio.to_thread(decisions, record)
        starts, _ = await asyncio.to_thread(turn_starts, record)
        await self.runner.start(game, record, steps, starts, client)

    async def status(self, game: LiveGame) -> dict[str, Any]:
        """Where the analysis of ``game`` is: none, running (with progress), failed or done (the result)."""
        result = await self.result(game.game_id)
        if result is not None:
            return {"state": "done", **result}
        progress = await self.runner.progress(game.game_id)
        return {"state": "none"} if progress is None else progress


async def compute(
    record: GameRecord,
    steps: list[Decision],
    starts: list[TurnStart],
    budget: Budget,
    run: Callable[..., Awaitable[Any]],
    progress: Callable[[], None],
) -> dict[str, Any]:
    """The analysis of a finished game: each decision and each graph point one task, passed to
    ``run(fn, *args)`` (an AI pool, in an instance or in ``kahuna worker``); ``progress()`` after each."""
    moves: list[MoveAnalysis] = []
    for decision in steps:
        moves.append(await run(analyse_decision, decision, budget, SEED))
        progress()
    graph: list[GraphPoint] = []
    for turn, step, view in starts:
        black = await run(public_estimate, view, budget, seed_for(SEED, step))
        graph.append(GraphPoint(turn, step, black))
        progress()
    outcome = record.replay().outcome
    if outcome is not None:
        result_point = 0.5 if outcome.winner is None else float(outcome.winner == 0)
        graph.append(GraphPoint(len(graph), len(record.actions), result_point))
    return {
        "budget": budget.iterations,
        "moves": [m.to_json() for m in moves],
        "summary": summary(moves),
        "graph": [p.to_json() for p in graph],
    }


def store_result(conn: Connection, game_id: str, result: dict[str, Any]) -> None:
    """Keep a game's analysis (a second one for the same game is refused by the key: ``Conflict``)."""
    when = datetime.now(UTC).isoformat(timespec="seconds")
    conn.execute(insert(schema.analyses).values(game_id=game_id, result=json.dumps(result), at=when))
