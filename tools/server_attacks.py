"""The soak: ``kahuna bench server`` with malicious clients beside the honest ones.

``python tools/server_attacks.py --attackers K [the options of kahuna bench server]`` plays the
honest games of ``kahuna bench server`` and runs K attackers beside them for the whole time; the
report adds what the attackers sent and how it was answered, and the server's memory (RSS)
sampled every second (docs/server.md, *Soak*).

Attacker ``k`` runs one kind of attack (by ``k`` modulo the number of kinds) in a loop until the
deadline, from its own loopback address ``127.0.2.(k+1)`` when the server is on loopback:

- ``hello``: a spectator that sends ``hello`` at version 0 over and over and never reads;
- ``replay``: records and replays of the honest games, as fast as answers come;
- ``create``: new games, as fast as answers come;
- ``frames``: hostile WebSocket frames (deeply nested JSON, lone surrogates, oversized frames);
- ``slow``: connections that stay silent or trickle their headers.

Each attack counts what it sent and how the server answered (``hello_frames``, ``http_429``,
``ws_rate_limited``, ...), so that the report shows the limits at work. None of them can succeed
at anything but costing the server work: that the honest clients' latency stays low is the test.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import sys
import time
from collections.abc import Callable, Coroutine
from typing import Any
from urllib.parse import urlsplit

import httpx
import websockets

from kahuna.bench import server
from kahuna.bench.server import is_loopback

Counts = dict[str, int]


def _address(url: str, k: int) -> str | None:
    return f"127.0.2.{1 + k % 250}" if is_loopback(url) else None


def _count(counts: Counts, key: str, n: int = 1) -> None:
    counts[key] = counts.get(key, 0) + n


async def attacker(k: int, url: str, game_ids: list[str], deadline: float, counts: Counts, rng: random.Random) -> None:
    """Attacker number ``k`` until ``deadline`` (``time.perf_counter`` seconds)."""
    kind = KINDS[k % len(KINDS)]
    address = _address(url, k)
    while time.perf_counter() < deadline:
        try:
            await kind(url, address, game_ids, deadline, counts, rng)
        except (OSError, httpx.HTTPError, websockets.WebSocketException, TimeoutError) as exc:
            _count(counts, f"dropped_{type(exc).__name__}")
            await asyncio.sleep(0.05)


async def hello_flood(
    url: str, address: str | None, game_ids: list[str], deadline: float, counts: Counts, rng: random.Random
) -> None:
    local = None if address is None else (address, 0)
    game = rng.choice(game_ids)
    async with websockets.connect(f"ws{url[4:]}/ws/{game}", max_size=None, local_addr=local) as ws:
        while time.perf_counter() < deadline:
            for _ in range(50):
                await ws.send('{"type":"hello","version":0}')
            _count(counts, "hello_frames", 50)
            await asyncio.sleep(0.05)


async def replay_flood(
    url: str, address: str | None, game_ids: list[str], deadline: float, counts: Counts, rng: random.Random
) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=address) if address else None
    async with httpx.AsyncClient(base_url=url, timeout=10, transport=transport) as http:
        while time.perf_counter() < deadline:
            game = rng.choice(game_ids)
            path = rng.choice(("record", "replay"))
            answer = await http.get(f"/api/games/{game}/{path}")
            _count(counts, f"http_{answer.status_code}")
            if answer.status_code == 429:
                await asyncio.sleep(min(float(answer.headers.get("retry-after", 1)), 0.5))


async def create_flood(
    url: str, address: str | None, game_ids: list[str], deadline: float, counts: Counts, rng: random.Random
) -> None:
    transport = httpx.AsyncHTTPTransport(local_address=address) if address else None
    async with httpx.AsyncClient(base_url=url, timeout=10, transport=transport) as http:
        while time.perf_counter() < deadline:
            body = {"opponent": rng.choice(("human", "ai")), "level": rng.choice(("easy", "expert"))}
            answer = await http.post("/api/games", json=body)
            _count(counts, f"http_{answer.status_code}")
            await asyncio.sleep(0.01)


HOSTILE_FRAMES = [
    "[" * 3000 + "]" * 3000,
    '{"type":"action","action":"Z>Q","version":0,"id":"\\ud800"}',
    '{"type":"hello","version":0,"token":"' + "x" * 64 + '"}',
    json.dumps({"type": "action", "action": "pass", "version": 0, "pad": "x" * 5000}),
    '{"type":"ping"',
]


async def frame_flood(
    url: str, address: str | None, game_ids: list[str], deadline: float, counts: Counts, rng: random.Random
) -> None:
    local = None if address is None else (address, 0)
    game = rng.choice(game_ids)
    async with websockets.connect(f"ws{url[4:]}/ws/{game}", max_size=None, local_addr=local) as ws:
        await ws.send('{"type":"hello","version":null}')
        while time.perf_counter() < deadline:
            await ws.send(rng.choice(HOSTILE_FRAMES))
            _count(counts, "hostile_frames")
            with contextlib.suppress(TimeoutError):
                while True:
                    reply = json.loads(await asyncio.wait_for(ws.recv(), 0.01))
                    if reply.get("type") == "error":
                        _count(counts, f"ws_{reply['code']}")


async def slow_connections(
    url: str, address: str | None, game_ids: list[str], deadline: float, counts: Counts, rng: random.Random
) -> None:
    """Twenty connections that never finish their request; each is held until the server drops it."""
    parts = urlsplit(url)
    host, port = parts.hostname or "127.0.0.1", parts.port or 80
    local = None if address is None else (address, 0)

    async def one(trickle: bool) -> None:
        reader, writer = await asyncio.open_connection(host, port, local_addr=local)
        _count(counts, "slow_opened")
        try:
            if trickle:
                writer.write(b"GET / HTTP/1.1\r\n")
            while time.perf_counter() < deadline:
                if trickle:
                    writer.write(b"X")
                    await writer.drain()
                wait = max(0.01, min(1.0, deadline - time.perf_counter()))
                with contextlib.suppress(TimeoutError):
                    if not await asyncio.wait_for(reader.read(1), wait):
                        _count(counts, "slow_closed_by_server")
                        return
        except OSError:
            _count(counts, "slow_closed_by_server")
        finally:
            writer.close()

    await asyncio.gather(*(one(i % 2 == 1) for i in range(20)), return_exceptions=True)


KINDS: list[Callable[..., Coroutine[Any, Any, None]]] = [
    hello_flood,
    replay_flood,
    create_flood,
    frame_flood,
    slow_connections,
]


def attackers(count: int, seed: int) -> list[server.Beside]:
    """``count`` attackers for :func:`kahuna.bench.server.run`, each with its own seeded choices."""

    def one(k: int) -> server.Beside:
        def run(url: str, game_ids: list[str], deadline: float, counts: Counts) -> Coroutine[Any, Any, None]:
            return attacker(k, url, game_ids, deadline, counts, random.Random(seed + k))

        return run

    return [one(k) for k in range(count)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/server_attacks.py",
        description="The soak: kahuna bench server's honest games with malicious clients beside them.",
    )
    server.add_options(parser)
    parser.add_argument("--attackers", type=int, default=5, metavar="K", help="malicious clients (default 5)")
    args = parser.parse_args(argv)
    if args.attackers < 0:
        parser.error("--attackers must not be negative")
    return server.run(args, beside=attackers(args.attackers, args.seed))


if __name__ == "__main__":
    sys.exit(main())
