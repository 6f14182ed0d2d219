"""An event's chat (issue 51) through a real server on SQLite: lines posted by its players, read
back by anyone and delivered live to a lobby socket watching the event; every refusal (a guest, a
non-entrant, a muted account, a too-long line) stores nothing; a shadow-muted player's line is
shown to its author only; a finished event's chat refuses lines."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy
import websockets
from server_harness import Server
from test_accounts import client, csrf, signed_in
from test_moderation import moderator
from test_moderation_reports import cookie, limited, until

from kahuna.server.db.schema import tournaments

CLOCK = {"initial": 300, "increment": 3}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = limited(tmp_path_factory.mktemp("tournament_chat"))
    yield running
    running.stop()


def texts(browser: httpx.Client, tid: str) -> list[str]:
    answer = browser.get(f"/api/tournaments/{tid}/chat")
    assert answer.status_code == 200, answer.text
    return [line["text"] for line in answer.json()["lines"]]


def post(browser: httpx.Client, tid: str, text: str) -> httpx.Response:
    return browser.post(f"/api/tournaments/{tid}/chat", json={"text": text}, headers=csrf(browser))


def refused(answer: httpx.Response, status: int, code: str) -> None:
    assert (answer.status_code, answer.json()["error"]) == (status, code), answer.text


def test_players_talk_and_everyone_reads_refusals_store_nothing(server: Server) -> None:
    ann, bob, cy, dan = (signed_in(server, name) for name in ("ann", "bob", "cy", "dan"))
    mia = moderator(server, "mia")
    body = {"kind": "swiss", "name": "Chat Cup", "clock": CLOCK, "rounds": 3, "join": True}
    made = ann.post("/api/tournaments", json=body, headers=csrf(ann))
    assert made.status_code == 201, made.text
    tid = made.json()["tournament_id"]
    for player in (bob, dan):
        assert player.post(f"/api/tournaments/{tid}/join", headers=csrf(player)).status_code == 204
    guest = client(server)

    async def live() -> tuple[dict[str, Any], dict[str, Any]]:
        """A guest's and bob's lobby sockets watching the event get ann's line at once."""
        url = f"{server.ws_url}/ws/lobby"
        async with websockets.connect(url) as watcher, websockets.connect(url, additional_headers=cookie(bob)) as b:
            for ws in (watcher, b):
                await ws.send(json.dumps({"type": "watch", "tournament_id": tid}))
                await ws.send('{"type":"ping"}')
                await asyncio.wait_for(until(ws, "pong"), 10)  # the watch is in place
            assert post(ann, tid, "good luck all").status_code == 201
            return await asyncio.wait_for(until(watcher, "tournament_chat"), 10), await asyncio.wait_for(
                until(b, "tournament_chat"), 10
            )

    heard, by_bob = asyncio.run(live())
    assert heard == by_bob
    assert heard["tournament_id"] == tid
    assert (heard["line"]["username"], heard["line"]["text"]) == ("ann", "good luck all")
    assert post(bob, tid, "you too").json()["username"] == "bob"
    assert texts(guest, tid) == texts(cy, tid) == ["good luck all", "you too"]

    refused(post(cy, tid, "let me in"), 403, "not_entrant")
    refused(guest.post(f"/api/tournaments/{tid}/chat", json={"text": "hi"}), 401, "unauthorized")
    refused(post(ann, tid, "x" * 301), 422, "invalid")
    refused(post(ann, tid, ""), 422, "invalid")
    refused(post(ann, "nosuchevent", "hi"), 404, "not_found")
    mute = {"username": "bob", "kind": "chat_mute", "minutes": 10, "reason": "insults"}
    assert mia.post("/api/mod/sanctions", json=mute, headers=csrf(mia)).status_code == 201
    answer = post(bob, tid, "you all stink")
    refused(answer, 403, "muted")
    assert answer.json()["seconds_left"] > 500
    assert texts(ann, tid) == ["good luck all", "you too"]  # nothing stored on any refusal

    shadow = {"username": "dan", "kind": "shadow_mute", "minutes": 10, "reason": "spam"}
    assert mia.post("/api/mod/sanctions", json=shadow, headers=csrf(mia)).status_code == 201
    assert post(dan, tid, "buy gold").status_code == 201  # answered as any line
    assert texts(dan, tid) == ["good luck all", "you too", "buy gold"]
    assert texts(ann, tid) == texts(guest, tid) == ["good luck all", "you too"]


def test_a_sender_has_the_game_chats_budget(server: Server) -> None:
    eve, fay = signed_in(server, "eve"), signed_in(server, "fay")
    body = {"kind": "arena", "name": "Fast Talk", "clock": CLOCK, "minutes": 30, "join": True}
    tid = eve.post("/api/tournaments", json=body, headers=csrf(eve)).json()["tournament_id"]
    assert fay.post(f"/api/tournaments/{tid}/join", headers=csrf(fay)).status_code == 204
    for n in range(5):  # chat_burst
        assert post(eve, tid, f"line {n}").status_code == 201
    answer = post(eve, tid, "one too many")
    refused(answer, 429, "rate_limited")
    assert answer.json()["retry_after"] > 0
    assert post(fay, tid, "my own budget").status_code == 201
    assert texts(fay, tid)[-2:] == ["line 4", "my own budget"]


def test_a_finished_events_chat_is_read_only(server: Server) -> None:
    gus, hal = signed_in(server, "gus"), signed_in(server, "hal")
    body = {"kind": "swiss", "name": "Over Cup", "clock": CLOCK, "rounds": 1, "join": True}
    tid = gus.post("/api/tournaments", json=body, headers=csrf(gus)).json()["tournament_id"]
    assert hal.post(f"/api/tournaments/{tid}/join", headers=csrf(hal)).status_code == 204
    assert post(hal, tid, "gg").status_code == 201
    engine = sqlalchemy.create_engine(server.db)  # the end itself is test_tournaments.py's
    with engine.begin() as conn:
        conn.execute(sqlalchemy.update(tournaments).where(tournaments.c.id == tid).values(status="finished"))
    engine.dispose()
    refused(post(gus, tid, "one more"), 409, "finished")
    assert texts(gus, tid) == ["gg"]
