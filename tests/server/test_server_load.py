"""Bounded work per client: floods of hellos and replays, creation quotas, the fair AI queue, idle
games leaving memory. Each against a real server with a real SQLite file, except the order in which
the AI queue serves waiting moves, checked on the queue itself.

Clients that must count as different clients connect from different loopback addresses
(``127.0.0.2``, ...): the server limits per IP address.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Iterator

import httpx
import loopback
import pytest
from server_harness import Player, Server, connect, play_random, run, wait_for

from kahuna.ai.levels import LEVELS
from kahuna.server.games.ai_pool import FairQueue, costly


@pytest.fixture(scope="module")
def tight(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server whose quotas are small enough to reach in a test."""
    limits = ["games_burst=8", "games_per_minute=1", "replays_burst=3", "replays_per_minute=1", "idle_game_seconds=1"]
    args = tuple(arg for limit in limits for arg in ("--limit", limit))
    running = Server(tmp_path_factory.mktemp("tight"), args=args).start()
    yield running
    running.stop()


def http_from(address: str) -> httpx.Client:
    return httpx.Client(
        verify=loopback.NO_CA, transport=httpx.HTTPTransport(verify=loopback.NO_CA, local_address=address), timeout=10
    )


async def _finished_game(server: Server, seed: int) -> str:
    created = server.create(opponent="hotseat", seat="first")
    seats = {s: await Player.join(server, created["game_id"], created["tokens"][s]) for s in (0, 1)}
    await play_random(seats, [], random.Random(seed), None)
    for player in seats.values():
        await player.conn.close()
    game_id: str = created["game_id"]
    return game_id


def test_a_hello_flood_is_answered_once_each_mostly_refused_and_other_games_play_on(server: Server) -> None:
    """A thousand hellos sent at once on one connection are each answered exactly once, most with
    ``rate_limited`` instead of a catch-up (the work a connection can cause is bounded), and a game
    that another client pings meanwhile answers."""

    async def scenario() -> None:
        finished = await _finished_game(server, 21)
        other = await connect(server, server.create(opponent="hotseat")["game_id"], local="127.0.0.9")
        flood = await connect(server, finished, hello=False, local="127.0.0.8")
        for _ in range(1000):
            await flood.send_raw('{"type":"hello","version":0}')
        await other.send(type="ping")
        await other.until(lambda m: m["type"] == "pong")
        syncs = refused = 0
        while syncs + refused < 1000:  # the last hello's answer
            answer = await flood.recv()
            syncs += answer["type"] == "sync"
            refused += answer.get("code") == "rate_limited"
        assert 1 <= syncs < refused, (syncs, refused)
        await flood.close()
        await other.close()

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
    """One client may create ``games_burst`` games at once; the next are refused ``rate_limited``
    with a ``retry_after``, while another client still creates games."""
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
    wait_for(lambda: '"event":"games_evicted"' in tight.log(), "the idle game to leave memory")

    async def play_on() -> None:  # loaded again from the database, and playable
        seats = {s: await Player.join(tight, created["game_id"], created["tokens"][s]) for s in (0, 1)}
        await play_random(seats, [], random.Random(23), 3)
        assert seats[1].version == 3

    run(play_on())


def test_the_searching_levels_queue_behind_the_cheap_ones() -> None:
    assert [level for level in LEVELS if costly(level)] == ["hard", "expert", "master", "grandmaster"]


def test_a_cheap_move_goes_first_and_owners_of_costly_moves_take_turns() -> None:
    """With the one AI worker busy, three expert moves of one client, one of another, then an easy
    move of a third wait; the worker then serves the easy move first, and the two clients' expert
    moves in turn (a client with sixty expert games does not hold up another's easy game)."""

    async def scenario() -> list[str]:
        queue = FairQueue(1)
        await queue.acquire("busy", True)
        served: list[str] = []

        async def move(owner: str, expensive: bool, name: str) -> None:
            await queue.acquire(owner, expensive)
            served.append(name)
            queue.release(owner)

        waiting = [("a", True, "a1"), ("a", True, "a2"), ("a", True, "a3"), ("b", True, "b1"), ("c", False, "c1")]
        tasks = []
        for owner, expensive, name in waiting:
            tasks.append(asyncio.create_task(move(owner, expensive, name)))
            while queue.waiting() < len(tasks):  # this move is in the queue before the next comes
                await asyncio.sleep(0)
        queue.release("busy")
        await asyncio.gather(*tasks)
        return served

    assert asyncio.run(scenario()) == ["c1", "a1", "b1", "a2", "a3"]
