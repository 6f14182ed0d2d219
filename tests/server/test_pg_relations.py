"""Who is online across two ``kahuna serve`` instances sharing PostgreSQL and Redis (issue 29): the
players of a game connected to different instances and a follower's lobby connection on one are
counted once on both; the follower sees both playing that game through either instance; the
counts fall when they leave. Follows and blocks run the same rules on PostgreSQL."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
import websockets
from scale_harness import pg_url, redis_url
from server_harness import Server, eventually
from test_lobby_instances import pair

from kahuna.bench.lobby import CLOCK, client, new_account

__all__ = ["pair", "pg_url", "redis_url"]

pytestmark = [
    pytest.mark.pg,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.long,
]  # two instances: make test-all (docs/testing.md, *Markers*)


async def _until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == kind:
            return dict(message)


def test_online_counts_and_following_across_two_instances(pair: tuple[Server, Server]) -> None:
    a, b = pair

    async def scenario() -> None:
        rho, sam, tia = [await new_account(a.url, name) for name in ("rho", "sam", "tia")]
        async with client(b.url, headers=tia) as follower:
            for name in ("rho", "sam"):
                assert (await follower.post(f"/api/users/{name}/follow")).status_code == 204
            twice = await follower.post("/api/users/rho/follow")
            assert (twice.status_code, twice.json()["error"]) == (409, "already_following")
        async with client(a.url, headers=rho) as first, client(b.url, headers=sam) as second:
            seek = (await first.post("/api/seeks", json={"clock": CLOCK})).json()
            taken = (await second.post(f"/api/seeks/{seek['seek_id']}/accept")).json()
            own = (await first.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})).json()
        game_id = taken["game_id"]
        assert (await asyncio.gather(*(_online(s) for s in (a, b)))) == [{"players": 0, "games": 0}] * 2
        async with (
            websockets.connect(f"{a.ws_url}/ws/{game_id}") as black,
            websockets.connect(f"{b.ws_url}/ws/{game_id}") as white,
            websockets.connect(f"{b.ws_url}/ws/lobby", additional_headers=tia) as lobby,
        ):
            await black.send(json.dumps({"type": "hello", "token": own["token"]}))
            await white.send(json.dumps({"type": "hello", "token": taken["token"]}))
            await _until(black, "sync")
            await _until(white, "sync")
            await _until(lobby, "seeks")

            async def everywhere() -> bool:
                counts = list(await asyncio.gather(*(_online(s) for s in (a, b))))
                return counts == [{"players": 3, "games": 1}] * 2

            await eventually(everywhere, "3 players and 1 game counted on both instances")
            for server in (a, b):  # rho plays on a, sam on b: the follower sees both through either

                async def both_playing(server: Server = server) -> bool:
                    async with client(server.url, headers=tia) as http:
                        users = (await http.get("/api/me/following")).json()["users"]
                    return [(u["username"], u["online"], u["playing"]) for u in users] == [
                        ("sam", True, game_id),
                        ("rho", True, game_id),
                    ]

                await eventually(both_playing, f"both followed players playing, seen through {server.url}")
        await eventually(lambda: _all_gone(a, b), "the counts at zero on both instances once all left")
        async with client(b.url, headers=sam) as second:
            assert (await second.post("/api/users/rho/block")).status_code == 204
        async with client(a.url, headers=rho) as first:  # the block, made through b, refuses through a
            refused = await first.post("/api/challenges", json={"opponent": "sam", "clock": CLOCK})
            assert (refused.status_code, refused.json()["error"]) == (403, "blocked")

    asyncio.run(scenario())


async def _online(server: Server) -> dict[str, int]:
    async with client(server.url) as http:
        counts: dict[str, int] = (await http.get("/api/online")).json()
        return counts


async def _all_gone(a: Server, b: Server) -> bool:
    return list(await asyncio.gather(_online(a), _online(b))) == [{"players": 0, "games": 0}] * 2
