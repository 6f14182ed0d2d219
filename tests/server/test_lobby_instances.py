"""The lobby on two ``kahuna serve`` processes sharing one PostgreSQL database and one Redis: a seek
posted on one instance is seen, accepted once (concurrent accepts through both) and announced to
its owner on the other; a rated game played across instances moves the ratings once."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
import websockets
from scale_harness import pg_url, redis_url, start_instances, stop_all
from server_harness import Server
from test_lobby import play_then_resign

from kahuna.bench.lobby import CLOCK, client, new_account

__all__ = ["pg_url", "redis_url"]

pytestmark = [
    pytest.mark.pg,
    pytest.mark.redis,
    pytest.mark.long,
]  # two instances: make test-all (docs/testing.md, *Markers*)


@pytest.fixture
def pair(tmp_path: Path, pg_url: str, redis_url: str) -> Iterator[tuple[Server, Server]]:
    servers = start_instances(tmp_path, pg_url, ("--broker", redis_url))
    yield servers[0], servers[1]
    stop_all(servers)


def test_a_seek_on_one_instance_is_accepted_once_through_both(pair: tuple[Server, Server]) -> None:
    a, b = pair

    async def scenario() -> None:
        async with websockets.connect(f"{b.ws_url}/ws/lobby") as watcher:
            assert json.loads(await watcher.recv())["type"] == "seeks"
            async with client(a.url, "127.0.7.1") as owner:
                seek = (await owner.post("/api/seeks", json={"clock": CLOCK, "name": "Owner"})).json()
            added = json.loads(await asyncio.wait_for(watcher.recv(), 5))
            assert added["type"] == "seek_added" and added["seek"]["seek_id"] == seek["seek_id"]
            async with websockets.connect(f"{a.ws_url}/ws/lobby") as mine:
                await mine.recv()
                await mine.send(json.dumps({"type": "own", "seek_id": seek["seek_id"], "token": seek["token"]}))
                assert json.loads(await mine.recv())["type"] == "owned"

                async def accept(index: int) -> httpx.Response:
                    server = (a, b)[index % 2]
                    async with client(server.url, f"127.0.7.{index + 10}") as http:
                        return await http.post(f"/api/seeks/{seek['seek_id']}/accept", json={"name": f"P{index}"})

                answers = await asyncio.gather(*(accept(i) for i in range(10)))
                assert sorted(r.status_code for r in answers) == [200] + [409] * 9
                winner = next(r.json() for r in answers if r.status_code == 200)
                accepted = json.loads(await asyncio.wait_for(mine.recv(), 5))
                assert accepted["type"] == "accepted" and accepted["game_id"] == winner["game_id"]
                assert accepted["token"] == seek["token"] and accepted["seat"] == 1 - winner["seat"]
            removed = json.loads(await asyncio.wait_for(watcher.recv(), 5))
            assert removed == {"type": "seek_removed", "seek_id": seek["seek_id"], "reason": "accepted"}

    asyncio.run(scenario())


def test_a_rated_game_across_instances_moves_the_ratings_once(pair: tuple[Server, Server]) -> None:
    a, b = pair

    async def scenario() -> None:
        first = await new_account(a.url, "across-1")
        second = await new_account(a.url, "across-2")
        async with client(a.url, headers=first) as one, client(b.url, headers=second) as two:
            seek = (await one.post("/api/seeks", json={"clock": CLOCK, "rated": True})).json()
            taken = (await two.post(f"/api/seeks/{seek['seek_id']}/accept")).json()
            own = (await one.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})).json()
        await play_then_resign(a.url, [own, taken], 2, seed=4, urls=[a.url, b.url])
        for server in (a, b):
            for name in ("across-1", "across-2"):
                ratings = server.get(f"/api/users/{name}").json()["ratings"]["realtime"]
                assert ratings["games"] == 1 and ratings["rating"] != 1500

    asyncio.run(scenario())


def test_play_now_pairs_two_players_on_different_instances(pair: tuple[Server, Server]) -> None:
    a, b = pair

    async def scenario() -> None:
        async with client(a.url, "127.0.7.40") as first, client(b.url, "127.0.7.41") as second:
            one = (await first.post("/api/pairing", json={"clock": CLOCK, "name": "On A"})).json()
            async with websockets.connect(f"{a.ws_url}/ws/lobby") as mine:
                await mine.recv()
                await mine.send(json.dumps({"type": "own", "seek_id": one["seek_id"], "token": one["token"]}))
                assert json.loads(await mine.recv())["type"] == "owned"
                two = (await second.post("/api/pairing", json={"clock": CLOCK, "name": "On B"})).json()
                accepted = json.loads(await asyncio.wait_for(mine.recv(), 5))
            if "game_id" not in two:
                # The periodic matcher (of either instance) paired the two entries between B's
                # insert and its own pass: B's seat is then on its offer, as its owner polls it.
                headers = {"X-Seek-Token": two["token"]}
                two = (await second.get(f"/api/seeks/{two['seek_id']}", headers=headers)).json()
            assert accepted["type"] == "accepted" and accepted["game_id"] == two["game_id"]
            assert {accepted["seat"], two["seat"]} == {0, 1} and accepted["token"] == one["token"]

    asyncio.run(scenario())
