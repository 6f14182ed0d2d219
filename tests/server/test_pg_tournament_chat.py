"""An event's chat (issue 51) on two ``kahuna serve`` processes sharing one PostgreSQL database and
one Redis: a line posted through one instance reaches a lobby socket watching the event on the
other at once, and both instances read it back."""

from __future__ import annotations

import asyncio
import json

import pytest
import websockets
from scale_harness import pg_url, redis_url
from server_harness import Server
from test_lobby_instances import pair

from kahuna.bench.lobby import CLOCK, client, new_account

__all__ = ["pair", "pg_url", "redis_url"]

pytestmark = [
    pytest.mark.pg,
    pytest.mark.redis,
    pytest.mark.long,
]  # two instances: make test-all (docs/testing.md, *Markers*)


def test_a_line_posted_on_one_instance_is_heard_on_the_other(pair: tuple[Server, Server]) -> None:
    a, b = pair

    async def scenario() -> None:
        ann, bob = await new_account(a.url, "ann_pgchat"), await new_account(a.url, "bob_pgchat")
        async with client(a.url, headers=ann) as http:
            body = {"kind": "swiss", "name": "Two Halls", "clock": CLOCK, "rounds": 1, "join": True}
            tid = (await http.post("/api/tournaments", json=body)).json()["tournament_id"]
        async with client(b.url, headers=bob) as http:
            assert (await http.post(f"/api/tournaments/{tid}/join")).status_code == 204
        async with websockets.connect(f"{b.ws_url}/ws/lobby") as watcher:
            await watcher.send(json.dumps({"type": "watch", "tournament_id": tid}))
            await watcher.send('{"type":"ping"}')
            while json.loads(await asyncio.wait_for(watcher.recv(), 10))["type"] != "pong":
                pass
            async with client(a.url, headers=ann) as http:
                posted = await http.post(f"/api/tournaments/{tid}/chat", json={"text": "from hall A"})
                assert posted.status_code == 201, posted.text
            while (heard := json.loads(await asyncio.wait_for(watcher.recv(), 10)))["type"] != "tournament_chat":
                pass
            assert heard["line"] == posted.json()
        for server in (a, b):
            async with client(server.url) as http:
                lines = (await http.get(f"/api/tournaments/{tid}/chat")).json()["lines"]
                assert [(line["username"], line["text"]) for line in lines] == [("ann_pgchat", "from hall A")]

    asyncio.run(scenario())
