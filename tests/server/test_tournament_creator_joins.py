"""The creator of a tournament plays in it when it asks to (``"join": true``, which the web page
sends unless its "I play in it" box is unticked): joined in the event's own transaction, it counts
for the start and may leave like any player. Without ``join`` (an API client organising an event
for others, a bot) the creator is not a player."""

from __future__ import annotations

import asyncio
from typing import Any

from server_harness import Server

from kahuna.bench.lobby import client, new_account

CLOCK = {"initial": 300, "increment": 3}


def test_the_creator_is_joined_when_it_asks_and_only_then(server: Server) -> None:
    async def scenario() -> tuple[Any, ...]:
        host = await new_account(server.url, "cj-host")
        async with client(server.url, headers=host) as me:
            body = {"kind": "swiss", "name": "Host Cup", "clock": CLOCK, "rounds": 2}
            joined = (await me.post("/api/tournaments", json={**body, "join": True})).json()["tournament_id"]
            apart = (await me.post("/api/tournaments", json=body)).json()["tournament_id"]
            shown = (await me.get(f"/api/tournaments/{joined}")).json()
            mine = (await me.get(f"/api/tournaments/{joined}/me")).json()
            again = await me.post(f"/api/tournaments/{joined}/join")
            other = (await me.get(f"/api/tournaments/{apart}")).json()
            left = await me.post(f"/api/tournaments/{joined}/leave")
            return shown, mine, again, other, left

    shown, mine, again, other, left = asyncio.run(scenario())
    assert shown["players"] == [{"username": "cj-host", "active": True}]
    assert [row["username"] for row in shown["standings"]] == ["cj-host"]
    assert mine["joined"] is True
    assert again.status_code == 409 and again.json()["error"] == "already_joined"
    assert other["players"] == []
    assert left.status_code == 204
