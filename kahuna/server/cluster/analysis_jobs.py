"""Analyses computed by ``kahuna worker``: queued as jobs, their progress in Redis, so that every
instance shows the same progress and the instances do no search (the runner of
:class:`~kahuna.server.games.analysis.AnalysisJobs` with ``kahuna serve --broker``)."""

from __future__ import annotations

from typing import Any

from kahuna.ai.review.analysis import Budget, Decision
from kahuna.rules import GameRecord
from kahuna.server.cluster.jobs import JobQueue
from kahuna.server.common import logs
from kahuna.server.games.analysis import TurnStart
from kahuna.server.games.live import LiveGame


class QueuedAnalyses:
    """Hands each analysis to the job queue; the worker computes it with the same ``compute``."""

    def __init__(self, queue: JobQueue, budget: Budget) -> None:
        self.queue = queue
        self.budget = budget

    async def progress(self, game_id: str) -> dict[str, Any] | None:
        progress = await self.queue.progress(game_id)
        if progress.get("state") not in ("running", "failed"):
            return None
        return {"state": progress["state"], "done": int(progress["done"]), "total": int(progress["total"])}

    async def start(
        self, game: LiveGame, record: GameRecord, steps: list[Decision], starts: list[TurnStart], client: str
    ) -> None:
        total = len(steps) + len(starts)
        await self.queue.submit_analysis(game.game_id, game.version, total, self.budget.iterations)
        logs.event("analysis_queued", game_id=game.game_id, tasks=total)

    async def stop(self) -> None:
        """Nothing runs here: the worker goes on with its jobs."""
