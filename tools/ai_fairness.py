"""How long another client's cheap AI move waits while one client's grandmaster moves keep the pool busy.

``python tools/ai_fairness.py --moves 20`` starts a real AI pool (``AiPool(1, long_workers=1)``,
as ``kahuna serve`` by default), lets one client keep three grandmaster moves in the works (one
thinking, two waiting) and asks, one after the other, ``--moves`` moves of ``medium`` for another
client, timing each from the request to the answer. Three runs: no grandmaster move at all; the
grandmaster moves in their own lane (the server as it is); and, for comparison, the same
grandmaster moves queued in the lane of the other levels (the server before issue 33, where a
grandmaster move would have taken the one worker every other move waits for).
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time

from kahuna.ai.levels import LEVEL_SPECS
from kahuna.rules import GameState, view_of
from kahuna.server.games.ai_pool import AiPool, choose_token


async def measure(moves: int, mode: str) -> list[float]:
    view = view_of(GameState.new(random.Random(5)), 0).to_json()
    pool = AiPool(1, long_workers=1)
    await pool.warm_up(long=True)
    stop = asyncio.Event()

    async def grandmaster_client(seed: int) -> None:
        while not stop.is_set():
            if mode == "lane":
                await pool.choose("grandmaster", view, seed, "greedy-client")
            else:  # before: the same move in the one lane of the other levels
                await pool._lane.run("greedy-client", True, choose_token, LEVEL_SPECS["grandmaster"], view, seed, None)
            seed += 3

    busy = [asyncio.ensure_future(grandmaster_client(seed)) for seed in range(3)] if mode != "none" else []
    await asyncio.sleep(0.5)  # the grandmaster moves are under way
    waits = []
    try:
        for k in range(moves):
            start = time.perf_counter()
            await pool.choose("medium", view, k, "other-client")
            waits.append(time.perf_counter() - start)
    finally:
        stop.set()
        await asyncio.gather(*busy)
        pool.close()
    return waits


def main() -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--moves", type=int, default=20)
    args = p.parse_args()
    for mode in ("none", "lane", "before"):
        waits = asyncio.run(measure(args.moves, mode))
        print(
            f"{mode:>6}: {len(waits)} medium moves, wait median {statistics.median(waits) * 1000:.0f} ms, "
            f"max {max(waits) * 1000:.0f} ms",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
