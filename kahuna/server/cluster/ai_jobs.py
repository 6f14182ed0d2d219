"""AI turns when several instances serve the same games: queued as jobs for ``kahuna worker``.

A clustered instance computes no AI move (unless ``--local-ai``): :class:`QueuedAiTurns` submits a
job naming the game and the version the move is for (``cluster/jobs.py``), and keeps submitting
while Redis does not answer, for as long as the move is still wanted. A worker plays the job
through the same engine and queues the next move itself, awaited, before it acknowledges the job
(``cluster/worker.py``), so its own engine schedules nothing (:class:`NextQueuedByWorker`).

The move of a level that thinks by time (``grandmaster``, a second or more) is a job of its own kind,
``ai-long`` (:func:`ai_job`): a worker plays those beside its other jobs, in its pool's long lane,
so that they never hold up the quick moves of other games (``Worker``).
"""

from __future__ import annotations

from kahuna.server.cluster.jobs import Job, Submitter
from kahuna.server.games import messages
from kahuna.server.games.ai_pool import thinks_by_time
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
        job = ai_job(game)
        self.submitter.submit(job, lambda: game.version == version and game.status == messages.PLAYING)

    def thinking(self, game: LiveGame) -> bool:
        """Never here: a worker computes the move, and the game may leave this instance's memory meanwhile."""
        return False

    async def close(self) -> None:
        await self.submitter.close()


def ai_job(game: LiveGame) -> Job:
    """The job of the AI move now due in ``game``: ``ai-long`` for a level that thinks by time."""
    spec = game.ai_spec(game.state.to_move) or ""
    return Job("ai-long" if thinks_by_time(spec) else "ai", game.game_id, game.version)


class NextQueuedByWorker:
    """The worker's AI turns: the worker queues the next move itself (``Worker.play``)."""

    def schedule(self, game: LiveGame, engine: AiMoves) -> None:
        return

    def thinking(self, game: LiveGame) -> bool:
        return False

    async def close(self) -> None:
        return
