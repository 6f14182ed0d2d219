"""``kahuna bench server --probe PATH``: what a page's request costs while the games are played.

A list a page asks for (the live games, the players online, a profile) is cheap on an idle server
and may not be under load: the probe asks for each ``PATH`` in turn, one request every
:data:`PROBE_EVERY` seconds from an address of its own (so that the honest games' per-address
budgets are untouched), while the round's games are played, and reports the latency of each path
(p50, p99) and the answers that were not 200.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import Any

import httpx

PROBE_EVERY = 0.2
"""Seconds between two probe requests (all paths together)."""
PROBE_ADDRESS = "127.0.2.1"
"""The loopback address the probe asks from, apart from the honest games' 127.0.1.x."""


class Probes:
    """The latencies of each probed path in one round."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.paths = list(paths)
        self.latencies: dict[str, list[float]] = {path: [] for path in self.paths}
        self.failures: dict[str, int] = {path: 0 for path in self.paths}

    async def client(self, url: str, game_ids: list[str], deadline: float, counts: dict[str, int]) -> None:
        """Ask for the paths in turn until ``deadline`` (a client run beside the games)."""
        local = PROBE_ADDRESS if url.split("//", 1)[-1].startswith("127.") else None
        transport = httpx.AsyncHTTPTransport(local_address=local) if local else None
        async with httpx.AsyncClient(base_url=url, timeout=30, transport=transport) as http:
            turn = 0
            while time.perf_counter() < deadline:
                path = self.paths[turn % len(self.paths)]
                turn += 1
                began = time.perf_counter()
                try:
                    answer = await http.get(path)
                    ok = answer.status_code == 200
                except httpx.HTTPError:
                    ok = False
                if ok:
                    self.latencies[path].append(time.perf_counter() - began)
                else:
                    self.failures[path] += 1
                await asyncio.sleep(max(0.0, PROBE_EVERY - (time.perf_counter() - began)))

    def summary(self) -> dict[str, dict[str, Any]]:
        """Per path: requests answered 200, p50 and p99 in ms, and the failures."""
        out: dict[str, dict[str, Any]] = {}
        for path in self.paths:
            lat = sorted(self.latencies[path])
            p50 = 1000 * lat[len(lat) // 2] if lat else None
            p99 = 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))] if lat else None
            out[path] = {
                "requests": len(lat),
                "p50_ms": None if p50 is None else round(p50, 2),
                "p99_ms": None if p99 is None else round(p99, 2),
                "failed": self.failures[path],
            }
        return out
