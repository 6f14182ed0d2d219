"""The background screening of finished rated games between people (docs/fair-play.md).

Every instance runs one :class:`Screener`: every few seconds it claims the oldest game in the queue
(``fairplay/queue.py``: one claim per game across instances and restarts), reads its record, has it
screened in the AI pool's lowest lane (``AiPool.background``: a process of its own at the lowest
CPU priority, never a place a live move waits for), and stores the figures and any automatic
report (``fairplay/verdict.py``) in one transaction, then takes the next, until the queue is empty.
One game at a time per instance: the screening is never more than one core's lowest-priority work.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import socket
import time
from typing import Any

from sqlalchemy import Connection

from kahuna.ai.review.screening import screen_game
from kahuna.server.common import logs
from kahuna.server.common.periodic import Periodic
from kahuna.server.db.writer import Writer
from kahuna.server.fairplay import queue, verdict
from kahuna.server.fairplay.figures import Thresholds, suspicion
from kahuna.server.games.ai_pool import AiPool

EVERY_SECONDS = 2.0
"""How often an idle screener looks at the queue."""


def seed_of(game_id: str) -> int:
    """The screening's seed: the game's alone, so a game screened again gives the same figures."""
    return int(hashlib.sha256(f"kahuna-fair-play:{game_id}".encode()).hexdigest()[:15], 16)


class Screener:
    """Screens the queue's games, one at a time, while the server runs."""

    def __init__(
        self,
        writer: Writer,
        pool: AiPool,
        thresholds: Thresholds,
        iterations: int,
        every: float = EVERY_SECONDS,
    ) -> None:
        self.writer = writer
        self.pool = pool
        self.thresholds = thresholds
        self.iterations = iterations
        self.name = f"{socket.gethostname()[:30]}:{os.getpid()}:{secrets.token_hex(4)}"
        """This screener's name in the claims: unique per process, so a restarted one is another."""
        self._periodic = Periodic(self.drain, every, "fair_play_error")

    def start(self) -> None:
        self._periodic.start()

    async def stop(self) -> None:
        await self._periodic.stop()

    async def drain(self) -> None:
        """Screen games until the queue has none left that no other screener holds."""
        while await self.screen_one():
            pass

    async def screen_one(self) -> bool:
        """Claim, screen and store one game; ``False`` when there was none to claim."""
        now = time.time()
        game_id = await self.writer.transact(lambda conn: queue.claim(conn, self.name, now))
        if game_id is None:
            return False
        cpu = [0.0]

        def read(conn: Connection) -> queue.Inputs | None:
            start = time.thread_time()
            found = queue.inputs(conn, game_id)
            cpu[0] += time.thread_time() - start
            return found

        inputs = await self.writer.read(read)
        if inputs is None:  # the game is gone (deleted by hand): nothing to screen
            await self.writer.write(lambda conn: queue.drop(conn, game_id))
            return True
        by_seat, worker_cpu = await self.pool.background(
            "fair-play", screen_game, inputs.record, inputs.times, seed_of(game_id), self.iterations
        )
        figures: dict[int, tuple[int, dict[str, Any], float]] = {
            account: (seat, by_seat[str(seat)], suspicion(by_seat[str(seat)], self.thresholds.z))
            for seat, account in enumerate(inputs.accounts)
        }

        def store(conn: Connection) -> list[int] | None:
            start = time.thread_time()
            try:
                if not queue.finish(conn, game_id, self.name, figures, time.time()):
                    return None
                return verdict.review(conn, list(inputs.accounts), self.thresholds)
            finally:
                cpu[0] += time.thread_time() - start

        filed = await self.writer.transact(store)
        logs.event(
            "fair_play_screened",
            game_id=game_id,
            stored=filed is not None,
            reports=len(filed or []),
            cpu=round(worker_cpu + cpu[0], 4),
        )
        return True
