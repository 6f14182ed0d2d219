"""``kahuna bench timeouts``: how punctually the server decides games lost on time.

It starts its own server (offering clocks from one second on), creates N real-time hot-seat games
whose first player never moves, watches each as a spectator and measures, for every game, when the
game-over ``sync`` arrives against the deadline the server announced (the first ``sync``'s time
left for seat 0, added to when that ``sync`` arrived). Nobody plays: the deadline loop alone ends
the games, as it would for a player who walked away.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from typing import Any

import httpx
import websockets

from kahuna.bench.server import own_server
from kahuna.clock import MIN_INITIAL
from kahuna.progress import Progress


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "timeouts",
        help="N timed games nobody plays: how late after its deadline each is lost on time",
        description="Start a server, create N real-time hot-seat games in which nobody moves, and report how "
        "long after each announced deadline the game-over message arrived (min, median, p95, max, spread).",
    )
    p.add_argument("--games", type=int, default=50, help="timed games (default 50)")
    p.add_argument("--seconds", type=int, default=3, help="each game's clock in seconds (default 3)")
    p.add_argument("--json", action="store_true", help="end with one JSON line of the figures")
    p.set_defaults(func=run)


async def _watch(ws_url: str, game_id: str) -> float:
    """Seconds from the announced deadline to the arrival of the game-over ``sync``."""
    async with websockets.connect(f"{ws_url}/ws/{game_id}") as ws:
        await ws.send(json.dumps({"type": "hello", "version": None}))
        deadline = None
        while True:
            message: dict[str, Any] = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if message["type"] != "sync":
                continue
            if message["status"] == "over":
                assert message["view"]["result"]["reason"] == "timeout", message["view"]["result"]
                assert deadline is not None
                return time.time() - deadline
            if deadline is None:
                deadline = time.time() + float(message["clock"]["remaining"][0])


async def _measure(url: str, games: int, seconds: int, bar: Progress) -> list[float]:
    ws_url = url.replace("http://", "ws://", 1)
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:

        async def one(index: int) -> float:
            await asyncio.sleep(index * 0.02)  # spread the deadlines a little, as real games are
            body = {"opponent": "hotseat", "clock": {"initial": seconds, "increment": 0}}
            response = await http.post("/api/games", json=body)
            response.raise_for_status()
            late = await _watch(ws_url, response.json()["game_id"])
            bar.advance()
            return late

        return list(await asyncio.gather(*(one(i) for i in range(games))))


def run(args: argparse.Namespace) -> int:
    if args.games <= 0 or args.seconds <= 0:
        raise SystemExit("kahuna bench timeouts: --games and --seconds must be positive")
    limits = (
        "--limit",
        f"clock_min_seconds={min(args.seconds, MIN_INITIAL)}",
        "--limit",
        f"games_burst={args.games + 10}",
    )
    with Progress(args.games, "games") as bar, own_server(*limits) as (url, _pid):
        late = sorted(asyncio.run(_measure(url, args.games, args.seconds, bar)))
    ms = [round(s * 1000, 1) for s in late]
    figures = {
        "games": args.games,
        "clock_seconds": args.seconds,
        "late_ms_min": ms[0],
        "late_ms_median": round(statistics.median(ms), 1),
        "late_ms_p95": ms[min(len(ms) - 1, int(0.95 * len(ms)))],
        "late_ms_max": ms[-1],
        "spread_ms": round(ms[-1] - ms[0], 1),
    }
    print(f"{args.games} games lost on time, {args.seconds} s clocks; game-over message after the deadline:")
    print(
        f"min {figures['late_ms_min']} ms, median {figures['late_ms_median']} ms, p95 {figures['late_ms_p95']} ms, "
        f"max {figures['late_ms_max']} ms (spread {figures['spread_ms']} ms)"
    )
    if args.json:
        print(json.dumps(figures))
    return 0
