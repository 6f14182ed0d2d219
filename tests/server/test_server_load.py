"""Issue 11, bounded work per client: floods of hellos and replays, creation quotas, the fair AI
queue, idle games leaving memory. Each against a real server with a real SQLite file.

Clients that must count as different clients connect from different loopback addresses
(``127.0.0.2``, ...): the server limits per IP address.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from server_harness import Player, Server, connect, play_random, run

from kahuna.ai.levels import LEVELS
from kahuna.server.games.ai_pool import costly


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose quotas are small enough to reach in a test."""
    limits = ["games_burst=8", "games_per_minute=1", "replays_burst=3", "replays_per_minute=1", "idle_game_seconds=1"]
    args = tuple(arg for limit in limits for arg in ("--limit", limit))
    running = Server(tmp_path_factory.mktemp("tight"), args=args).start()
    yield running
    running.stop()


def http_from(address: str) -> httpx.Client:
    return httpx.Client(transport=httpx.HTTPTransport(local_address=address), timeout=10)


async def _finished_game(server: Server, seed: int) -> str:
    created = server.create(opponent="hotseat", seat="first")
    seats = {s: await Player.join(server, created["game_id"], created["tokens"][s]) for s in (0, 1)}
    await play_random(seats, [], random.Random(seed), None)
    for player in seats.values():
        await player.conn.close()
    game_id: str = created["game_id"]
    return game_id


async def _ping_round_trips(server: Server, game_id: str, stop: asyncio.Event) -> list[float]:
    """Ping another game every 50 ms until ``stop``; the round trips in seconds."""
    conn = await connect(server, game_id, local="127.0.0.9")
    times = []
    while not stop.is_set():
        start = time.perf_counter()
        await conn.send(type="ping")
        await conn.until(lambda m: m["type"] == "pong")
        times.append(time.perf_counter() - start)
        await asyncio.sleep(0.05)
    await conn.close()
    return times


def test_a_hello_flood_does_not_stall_other_games(server: Server) -> None:
    """Before: each hello replayed the whole game on the event loop (1,000 froze pings for 9.8 s)."""

    async def scenario() -> None:
        finished = await _finished_game(server, 21)
        other = server.create(opponent="hotseat")["game_id"]
        stop = asyncio.Event()
        pings = asyncio.create_task(_ping_round_trips(server, other, stop))
        flood = await connect(server, finished, hello=False, local="127.0.0.8")
        for _ in range(1000):
            await flood.send_raw('{"type":"hello","version":0}')
        await asyncio.sleep(2)
        stop.set()
        times = await pings
        assert max(times) < 1.0, f"pings stalled for {max(times):.2f} s"
        answers = []
        with contextlib.suppress(TimeoutError):
            while True:
                answers.append(await flood.recv(timeout=1))
        syncs = sum(m["type"] == "sync" for m in answers)
        refused = sum(m.get("code") == "rate_limited" for m in answers)
        assert 1 <= syncs < 1000 and refused > 0 and syncs + refused <= 1000
        await flood.close()

    run(scenario())


def test_replays_are_computed_once_and_rate_limited(tight: Server) -> None:
    game_id = run(_finished_game(tight, 22))
    with http_from("127.0.0.2") as http:
        first = http.get(f"{tight.url}/api/games/{game_id}/replay")
        second = http.get(f"{tight.url}/api/games/{game_id}/replay")
        assert first.status_code == second.status_code == 200 and first.content == second.content
        steps = first.json()["steps"]
        assert [s["version"] for s in steps] == list(range(len(steps)))
        statuses = [http.get(f"{tight.url}/api/games/{game_id}/replay").status_code for _ in range(3)]
        assert statuses[-1] == 429
        limited = http.get(f"{tight.url}/api/games/{game_id}/record")
        assert limited.status_code == 429 and limited.json()["error"] == "rate_limited"
        assert limited.json()["retry_after"] > 0 and int(limited.headers["retry-after"]) > 0
    with http_from("127.0.0.3") as other_client:  # another client still gets it
        assert other_client.get(f"{tight.url}/api/games/{game_id}/replay").status_code == 200


def test_game_creation_is_limited_per_client(tight: Server) -> None:
    """Before: 5,000 games from one client in 21 s, never evicted."""
    with http_from("127.0.0.4") as http:
        codes = [http.post(f"{tight.url}/api/games", json={"opponent": "human"}).status_code for _ in range(12)]
        assert codes[:8] == [201] * 8 and codes[8:] == [429] * 4
        refused = http.post(f"{tight.url}/api/games", json={"opponent": "human"})
        assert refused.json()["error"] == "rate_limited" and 0 < refused.json()["retry_after"] <= 60
    with http_from("127.0.0.5") as http:
        assert http.post(f"{tight.url}/api/games", json={"opponent": "human"}).status_code == 201


def test_idle_games_leave_memory_and_come_back(tight: Server) -> None:
    with http_from("127.0.0.6") as http:
        created = http.post(f"{tight.url}/api/games", json={"opponent": "hotseat", "seat": "first"}).json()
    deadline = time.monotonic() + 15
    while '"event":"games_evicted"' not in tight.log() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert '"event":"games_evicted"' in tight.log()

    async def play_on() -> None:  # loaded again from the database, and playable
        seats = {s: await Player.join(tight, created["game_id"], created["tokens"][s]) for s in (0, 1)}
        await play_random(seats, [], random.Random(23), 3)
        assert seats[1].version == 3

    run(play_on())


def test_the_searching_levels_queue_behind_the_cheap_ones() -> None:
    assert [level for level in LEVELS if costly(level)] == ["hard", "expert", "master", "grandmaster"]


def test_expert_games_of_one_client_do_not_hold_up_an_easy_game(tmp_path: Path) -> None:
    """Before: AI moves were served first come, first served (60 expert games: 7.6 s to an easy move)."""
    server = Server(tmp_path).start()
    try:
        with http_from("127.0.0.7") as http:
            for _ in range(24):
                body = {"opponent": "ai", "level": "expert", "seat": "second"}
                assert http.post(f"{server.url}/api/games", json=body).status_code == 201
        start = time.perf_counter()
        easy = server.create(opponent="ai", level="easy", seat="second")

        async def first_ai_move() -> float:
            player = await Player.join(server, easy["game_id"], easy["token"])
            await player.reach(1)
            return time.perf_counter() - start

        waited = run(first_ai_move())
        assert waited < 2.0, f"the easy game waited {waited:.2f} s for its first AI move"
    finally:
        server.stop()
