"""The lobby and ratings under attack, against a real server: a damaged seek row, a guest
accepting its own seek, a flood of seeks from many addresses, and an AI level's rating farmed by
losing to it on purpose.

Each test prints the figure it measured (``figure: ...``; ``pytest -s`` shows it)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
from collections.abc import Iterator
from typing import Any

import httpx
import loopback
import pytest
import websockets
from server_harness import Server
from test_lobby import Stop, profile, random_until, resign

from kahuna.bench.lobby import CLOCK, client, new_account
from kahuna.bot.client import play_seat


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    limits = ("games_burst=1000", "joins_burst=1000", "signups_burst=100", "logins_burst=100")
    args = tuple(arg for limit in limits for arg in ("--limit", limit))
    running = Server(tmp_path_factory.mktemp("lobby-attacks"), args=args).start()
    yield running
    running.stop()


def seek_from(server: Server, address: str, name: str = "Guest") -> dict[str, Any]:
    with httpx.Client(
        verify=loopback.NO_CA,
        base_url=server.url,
        transport=httpx.HTTPTransport(verify=loopback.NO_CA, local_address=address),
        timeout=10,
    ) as http:
        answer = http.post("/api/seeks", json={"clock": CLOCK, "name": name})
        assert answer.status_code == 201, answer.text
        created: dict[str, Any] = answer.json()
        return created


async def lobby_list(server: Server) -> dict[str, Any]:
    async with websockets.connect(f"{server.ws_url}/ws/lobby") as ws:
        first: dict[str, Any] = json.loads(await ws.recv())
        return first


# ----------------------------------------------------------------- a damaged seek row


def test_a_damaged_seek_row_is_quarantined_and_the_lobby_stays_up(server: Server) -> None:
    sound = seek_from(server, "127.0.61.1", "Sound")
    damaged = seek_from(server, "127.0.61.2", "Damaged")
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as db:
        db.execute("UPDATE seeks SET clock = 'not json {' WHERE id = ?", (damaged["seek_id"],))
    listed = server.get("/api/seeks")
    print(f"figure: GET /api/seeks with a damaged seek row answered {listed.status_code}")
    assert listed.status_code == 200, listed.text
    ids = [seek["seek_id"] for seek in listed.json()["seeks"]]
    assert sound["seek_id"] in ids and damaged["seek_id"] not in ids
    one = server.get(f"/api/seeks/{damaged['seek_id']}")
    assert one.status_code == 410 and one.json()["error"] == "damaged"
    accepted = server.post(f"/api/seeks/{damaged['seek_id']}/accept", {"name": "Taker"})
    assert accepted.status_code == 410 and accepted.json()["error"] == "damaged"
    first = asyncio.run(lobby_list(server))
    assert first["type"] == "seeks" and sound["seek_id"] in [seek["seek_id"] for seek in first["seeks"]]
    assert server.log().count('"event":"seek_quarantined"') == 1  # logged once, whoever asks
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as db:  # not left in the way of others
        db.execute("UPDATE seeks SET status = 'cancelled' WHERE id = ?", (damaged["seek_id"],))


# ----------------------------------------------------------------- one's own guest seek


def test_a_guest_cannot_accept_its_own_guest_seek_from_the_same_browser(server: Server) -> None:
    with httpx.Client(verify=loopback.NO_CA, base_url=server.url, timeout=10) as browser:
        mine = browser.post("/api/seeks", json={"clock": CLOCK, "name": "Alone"})
        assert mine.status_code == 201 and "httponly" in mine.headers["set-cookie"].lower()
        again = browser.post(f"/api/seeks/{mine.json()['seek_id']}/accept", json={"name": "Alone again"})
    print(f"figure: a guest accepting its own guest seek from the same browser answered {again.status_code}")
    assert again.status_code == 409 and again.json()["error"] == "own_seek", again.text
    with httpx.Client(
        verify=loopback.NO_CA, base_url=server.url, timeout=10
    ) as other:  # another browser at the same address
        assert other.post(f"/api/seeks/{mine.json()['seek_id']}/accept", json={"name": "Friend"}).status_code == 200


# ----------------------------------------------------------------- a flood of seeks


def test_a_newcomers_seek_is_seen_when_seventy_addresses_post_three_seeks_each(server: Server) -> None:
    async def flood() -> None:
        """70 addresses post 3 seeks each, at once (quickly: a seek nobody keeps alive lives 30 s)."""

        async def three(n: int) -> None:
            async with client(server.url, f"127.0.72.{n + 1}") as http:
                for _ in range(3):
                    answer = await http.post("/api/seeks", json={"clock": CLOCK, "name": f"Flood {n}"})
                    assert answer.status_code == 201, answer.text

        await asyncio.gather(*(three(n) for n in range(70)))

    asyncio.run(flood())
    newcomer = seek_from(server, "127.0.73.1", "Newcomer")
    first_page = server.get("/api/seeks").json()
    ids = [seek["seek_id"] for seek in first_page["seeks"]]
    place = ids.index(newcomer["seek_id"]) + 1 if newcomer["seek_id"] in ids else None
    print(f"figure: the newcomer's seek is number {place} of the first page ({len(ids)} listed)")
    assert place is not None and place <= 10, place
    assert first_page["total"] <= 2 * 71  # at most two listed per address
    socket_list = asyncio.run(lobby_list(server))
    assert newcomer["seek_id"] in [seek["seek_id"] for seek in socket_list["seeks"]]
    pages = [first_page]
    while pages[-1]["page"] < pages[-1]["pages"]:
        pages.append(server.get(f"/api/seeks?page={pages[-1]['page'] + 1}").json())
    every = [seek["seek_id"] for page in pages for seek in page["seeks"]]
    assert len(every) == len(set(every)) and all(len(page["seeks"]) <= 50 for page in pages)


# ----------------------------------------------------------------- the AI levels are anchors


def test_losing_to_an_ai_level_on_purpose_does_not_move_its_rating(server: Server) -> None:
    before = profile(server, "ai-easy")["ratings"]["realtime"]["rating"]

    async def lose_three() -> None:
        headers = await new_account(server.url, "farmer")
        for n in range(3):
            async with client(server.url, headers=headers) as http:
                answer = await http.post("/api/challenges", json={"opponent": "ai-easy", "clock": CLOCK, "rated": True})
                assert answer.status_code == 201, answer.text
                seat = answer.json()
            with pytest.raises(Stop):  # both have finished a turn: the game counts
                await play_seat(server.url, seat["game_id"], seat["token"], random_until(2, seed=n))
            final = await resign(server.url, seat["game_id"], seat["token"])
            assert final["termination"] == {"reason": "resign", "seat": seat["seat"]}

    asyncio.run(lose_three())
    after = profile(server, "ai-easy")
    farmer = profile(server, "farmer")["ratings"]["realtime"]
    print(f"figure: ai-easy {before} before three deliberate losses, {after['ratings']['realtime']['rating']} after")
    assert farmer["games"] == 3 and farmer["rating"] < 1500
    assert after["ratings"]["realtime"]["rating"] == before


# ----------------------------------------------------------------- rated games between two people


async def farm_one_game(server: Server, owner: dict[str, str], farm: dict[str, str], seed: int) -> dict[str, Any]:
    """``owner`` posts a rated seek, ``farm`` (its second account) accepts, both play until two
    turns have ended (the game counts), then ``farm`` resigns. What each was told with its seat."""
    async with client(server.url, headers=owner) as a, client(server.url, headers=farm) as b:
        seek = (await a.post("/api/seeks", json={"clock": CLOCK, "rated": True})).json()
        taken = await b.post(f"/api/seeks/{seek['seek_id']}/accept")
        assert taken.status_code == 200, taken.text
        own = (await a.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})).json()
        summary = (await a.get(f"/api/games/{own['game_id']}")).json()
    seats = [own, taken.json()]
    tasks = [
        asyncio.create_task(play_seat(server.url, seat["game_id"], seat["token"], random_until(2, seed + i)))
        for i, seat in enumerate(seats)
    ]
    await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    for task in tasks:
        task.cancel()
    final = await resign(server.url, seats[1]["game_id"], seats[1]["token"])
    assert final["termination"] == {"reason": "resign", "seat": seats[1]["seat"]}
    return {"owner": own, "farm": seats[1], "summary": summary, "sync": final}


@pytest.mark.slow  # several games played over the WebSocket: seconds
def test_only_three_rated_games_a_day_between_two_people_change_ratings(server: Server) -> None:
    async def scenario() -> list[dict[str, Any]]:
        owner, farm = await new_account(server.url, "farmer_a"), await new_account(server.url, "farmer_b")
        return [await farm_one_game(server, owner, farm, seed=10 * n) for n in range(8)]

    games = asyncio.run(scenario())
    farmer = profile(server, "farmer_a")["ratings"]["realtime"]
    print(f"figure: after 8 rated games won against one's own second account: {farmer}")
    counted = [game["owner"].get("rated") for game in games]
    assert farmer["games"] == 3, farmer
    assert counted == [True] * 3 + [False] * 5
    for game in games[3:]:  # both told, with their seats and in the game itself, before the first move
        for told in (game["owner"], game["farm"], game["summary"], game["sync"]):
            assert (told.get("rated"), told.get("casual_reason")) == (False, "pair_limit"), told
    assert all(game["sync"]["rated"] and game["sync"]["casual_reason"] is None for game in games[:3])


@pytest.mark.slow  # several games played over the WebSocket: seconds
def test_a_rated_challenge_past_the_days_limit_says_so_before_it_is_accepted(server: Server) -> None:
    async def scenario() -> tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any], dict[str, Any]]:
        owner, farm = await new_account(server.url, "farmer_c"), await new_account(server.url, "farmer_d")
        for n in range(3):
            await farm_one_game(server, owner, farm, seed=100 + n)
        async with client(server.url, headers=owner) as a, client(server.url, headers=farm) as b:
            made = await a.post("/api/challenges", json={"opponent": "farmer_d", "clock": CLOCK, "rated": True})
            assert made.status_code == 201, made.text
            listed = (await b.get("/api/challenges")).json()["challenges"]
            limits = (await a.get("/api/me/pair-limits")).json()
            accepted = (await b.post(f"/api/challenges/{made.json()['seek_id']}/accept")).json()
        return made.json(), listed, limits, accepted

    made, listed, limits, accepted = asyncio.run(scenario())
    assert made["status"] == "open" and made["casual_reason"] == "pair_limit"
    assert [(c["rated"], c["casual_reason"]) for c in listed] == [(True, "pair_limit")]
    assert limits["limit"] == 3 and limits["hours"] == 24
    assert [(o["username"], o["games"]) for o in limits["opponents"]] == [("farmer_d", 3)]
    assert (accepted["rated"], accepted["casual_reason"]) == (False, "pair_limit")


@pytest.mark.slow  # several games played over the WebSocket: seconds
def test_the_days_limit_does_not_apply_to_an_ai_level(server: Server) -> None:
    """An AI level is a fixed rating anchor, not a person who could lose on purpose: every rated
    game against it counts (the farming it allowed is closed by the anchor itself)."""

    async def scenario() -> list[dict[str, Any]]:
        headers = await new_account(server.url, "levelfan")
        answers = []
        for n in range(4):
            async with client(server.url, headers=headers) as http:
                answer = await http.post("/api/challenges", json={"opponent": "ai-easy", "clock": CLOCK, "rated": True})
                assert answer.status_code == 201, answer.text
                seat = answer.json()
            answers.append(seat)
            with pytest.raises(Stop):
                await play_seat(server.url, seat["game_id"], seat["token"], random_until(2, seed=200 + n))
            await resign(server.url, seat["game_id"], seat["token"])
        return answers

    answers = asyncio.run(scenario())
    assert [(a["rated"], a["casual_reason"]) for a in answers] == [(True, None)] * 4
    assert profile(server, "levelfan")["ratings"]["realtime"]["games"] == 4
