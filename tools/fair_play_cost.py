"""What the fair-play screening costs: CPU-seconds per screened game, and whether a backlog of
screening delays a live AI move (docs/fair-play.md).

``python tools/fair_play_cost.py --games 20 --moves 20 --seed 1`` plays ``--games`` games between
the levels in this process (``hard`` against ``medium``, ``expert`` against ``easy``, in turn) for
their records, then starts a real AI pool (``AiPool(1)``, as ``kahuna serve`` by default) and:

1. screens each record in the pool's lowest lane (``AiPool.background``), as the server does, and
   gives the CPU-seconds each took in the worker (median, p99, max);
2. asks, one after the other, ``--moves`` moves of ``medium`` and of ``hard`` for a client, timing
   each from the request to the answer, first with nothing else running, then while every record
   is queued for screening four times over (the backlog), as ``tools/ai_fairness.py`` does for the
   grandmaster lane, with the time each move waited for a worker (the pool's own measure,
   ``kahuna_ai_wait_seconds``): the screening has a lane of its own, so the wait stays what it is
   alone, and what grows, if anything, is the move's own computing beside the low-priority worker.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import time
from typing import Any

from prometheus_client import REGISTRY

from kahuna.ai.eval.match import play_game
from kahuna.ai.registry import make_agent
from kahuna.ai.review.screening import screen_game
from kahuna.rules import GameState, view_of
from kahuna.server.games.ai_pool import AiPool

PAIRS = (("hard", "medium"), ("expert", "easy"))


def records(games: int, seed: int) -> list[dict[str, Any]]:
    out = []
    for index in range(games):
        names = PAIRS[index % len(PAIRS)]
        agents = (make_agent(names[0]), make_agent(names[1]))
        rngs = (random.Random(seed * 1000 + 2 * index), random.Random(seed * 1000 + 2 * index + 1))
        result = play_game(agents, GameState.new(random.Random(seed * 7919 + index)), rngs, keep_record=True)
        assert result.record is not None
        out.append(json.loads(result.record))
    return out


def queue_waits() -> tuple[float, float, float]:
    """The moves' lane's wait for a worker so far (``kahuna_ai_wait_seconds``): how many waited, the
    seconds in all, how many under a millisecond."""
    labels = {"lane": "count"}
    count = REGISTRY.get_sample_value("kahuna_ai_wait_seconds_count", labels) or 0.0
    total = REGISTRY.get_sample_value("kahuna_ai_wait_seconds_sum", labels) or 0.0
    quick = REGISTRY.get_sample_value("kahuna_ai_wait_seconds_bucket", {**labels, "le": "0.001"}) or 0.0
    return count, total, quick


def summary(values: list[float]) -> str:
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(0.99 * len(ordered)))]
    return f"median {statistics.median(ordered):.3f}, p99 {p99:.3f}, max {ordered[-1]:.3f} (n={len(ordered)})"


async def measure(games: list[dict[str, Any]], moves: int, seed: int) -> None:
    pool = AiPool(1)
    await pool.warm_up()
    try:
        cpu = []
        for index, record in enumerate(games):
            cpu.append((await pool.background("cost", screen_game, record, None, seed + index))[1])
        print(f"screening CPU-seconds per game: {summary(cpu)}", flush=True)
        views = [view_of(GameState.new(random.Random(seed + k)), 0).to_json() for k in range(moves)]
        for backlog in (False, True):
            queued = []
            if backlog:
                work = games * 4
                queued = [
                    asyncio.ensure_future(pool.background("cost", screen_game, record, None, index))
                    for index, record in enumerate(work)
                ]
                await asyncio.sleep(0.5)  # the screening is under way
            for level in ("medium", "hard"):
                before = queue_waits()
                waits = []
                for k, view in enumerate(views):
                    start = time.perf_counter()
                    await pool.choose(level, view, k, "player")
                    waits.append(time.perf_counter() - start)
                left = pool.background_queue.waiting()
                label = f"with a backlog ({left} screenings still queued at the end)" if backlog else "alone"
                after = queue_waits()
                count, total, quick = (a - b for a, b in zip(after, before, strict=True))
                print(
                    f"{level} move, request to answer, {label}: {summary(waits)} s; waiting for a worker: "
                    f"mean {1000 * total / count:.2f} ms, {quick:.0f} of {count:.0f} under 1 ms",
                    flush=True,
                )
            for future in queued:
                future.cancel()
            await asyncio.gather(*queued, return_exceptions=True)
    finally:
        pool.close()


def main() -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--moves", type=int, default=20)
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args()
    asyncio.run(measure(records(args.games, args.seed), args.moves, args.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
