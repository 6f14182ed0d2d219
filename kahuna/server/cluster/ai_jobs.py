"""AI turns when several instances serve the same games: queued as jobs for ``kahuna worker``.

A clustered instance computes no AI move (unless ``--local-ai``): :class:`QueuedAiTurns` submits a
job naming the game and the version the move is for (``cluster/jobs.py``), and keeps submitting
while Redis does not answer, for as long as the move is still wanted. A worker plays the job
through the same engine and queues the next move itself, awaited, before it acknowledges the job
(``cluster/worker.py``), so its own engine schedules nothing (:class:`NextQueuedByWorker`).
"""

from __future__ import annotations

from kahuna.server.cluster.jobs import Job, Submitter
from kahuna.server.games import messages
from kahuna.server.games.ai_turns import ai_to_move
from kahuna.server.games.live import LiveGame
from kahuna.server.games.ports import AiMoves


class QueuedAiTurns:
    """A clustered instance's AI turns: each due move becomes a job for the workers."""

    def __init__(self, submitter: Submitter) -> None:
        self.submitter = submitter

    def schedule(self, game: LiveGame, engine: AiMoves) -> None:
        if not ai_to_move(game):
            return
        version = game.version
        job = Job("ai", game.game_id, version)
        self.submitter.submit(job, lambda: game.version == version and game.status == messages.PLAYING)

    async def close(self) -> None:
        await self.submitter.close()


class NextQueuedByWorker:
    """The worker's AI turns: the worker queues the next move itself (``Worker.play``)."""

    def schedule(self, game: LiveGame, engine: AiMoves) -> None:
        return

    async def close(self) -> None:
        return
