"""The lobby through a real server: seeks accepted once, owners leaving, quick pairing, rated games
moving ratings once, challenges to the AI levels' accounts (and none to the site's own), profiles and
the leaderboard."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import httpx
import loopback
import pytest
import websockets
from server_harness import Server, wait_for

from kahuna.bench.lobby import CLOCK, PASSWORD, client, new_account
from kahuna.bot.client import play_seat, play_with_agent
from kahuna.server.accounts import store as accounts
from kahuna.server.community import seeks
from kahuna.server.community.bots import ensure_level_bots
from kahuna.server.community.lobby import allowed_gap, compatible
from kahuna.server.community.seeks import Seek
from kahuna.server.db.store import open_engine


class Stop(Exception):
    """Raised by a chooser to stop playing (the test then resigns or checks)."""


def turns_ended(history: list[str]) -> int:
    return sum(1 for token in history if token in ("pass", "end") or token.startswith("d"))


def random_until(turns: int, seed: int) -> Any:
    """A chooser that plays random legal actions until ``turns`` turns have ended, then stops."""
    rng = random.Random(seed)

    def choose(view: dict[str, Any], legal: list[str]) -> str:
        if turns_ended(view["history"]) >= turns:
            raise Stop
        return legal[rng.randrange(len(legal))]

    return choose


async def resign(url: str, game_id: str, token: str) -> dict[str, Any]:
    """Resign a seat over the game WebSocket; the sync that ends the game."""
    async with websockets.connect(f"ws{url[4:]}/ws/{game_id}") as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        await ws.recv()
        await ws.send(json.dumps({"type": "resign"}))
        while True:
            message = json.loads(await ws.recv())
            if message["type"] == "sync" and message["status"] == "over":
                return dict(message)


async def play_then_resign(
    url: str,
    seats: list[dict[str, Any]],
    turns: int,
    seed: int,
    urls: list[str] | None = None,
    loser: int | None = None,
) -> dict[str, Any]:
    """Both seats play random actions until ``turns`` turns have ended; then the seat to move
    resigns, or ``seats[loser]`` when given (the server draws who moves first, so a test that
    needs a known winner names the loser). ``urls``: each seat's server (instances of one
    cluster), else ``url`` for both."""
    where = urls or [url, url]
    tasks = [
        asyncio.create_task(play_seat(where[i], seat["game_id"], seat["token"], random_until(turns, seed + i)))
        for i, seat in enumerate(seats)
    ]
    done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
    stopped = next(task for task in done)
    assert isinstance(stopped.exception(), Stop)
    index = tasks.index(stopped) if loser is None else loser
    final = await resign(where[index], seats[index]["game_id"], seats[index]["token"])
    for task in tasks:
        task.cancel()
    return final


def profile(server: Server, name: str) -> dict[str, Any]:
    answer = server.get(f"/api/users/{name}")
    assert answer.status_code == 200, answer.text
    found: dict[str, Any] = answer.json()
    return found


# ---------------------------------------------------------------------------- seeks


def test_a_guest_seek_is_listed_then_accepted_once_and_both_players_get_their_seats(server: Server) -> None:
    async def scenario() -> None:
        async with client(server.url, "127.0.4.1") as alice, client(server.url, "127.0.4.2") as bob:
            made = await alice.post("/api/seeks", json={"clock": CLOCK, "name": "Alice"})
            assert made.status_code == 201
            seek = made.json()
            listed = (await bob.get("/api/seeks")).json()["seeks"]
            mine = [s for s in listed if s["seek_id"] == seek["seek_id"]]
            assert mine == [
                {
                    "seek_id": seek["seek_id"], "kind": "seek", "status": "open", "username": "Alice",
                    "account": False, "rating": None, "clock": CLOCK, "variant": [], "rated": False,
                }
            ]  # fmt: skip
            taken = await bob.post(f"/api/seeks/{seek['seek_id']}/accept", json={"name": "Bob"})
            assert taken.status_code == 200
            again = await alice.post(f"/api/seeks/{seek['seek_id']}/accept", json={"name": "Eve"})
            assert again.status_code == 409 and again.json()["error"] == "gone"
            public = (await bob.get(f"/api/seeks/{seek['seek_id']}")).json()
            assert public["status"] == "accepted" and "token" not in public
            own = (await alice.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})).json()
            bob_seat = taken.json()
            assert own["game_id"] == bob_seat["game_id"] and {own["seat"], bob_seat["seat"]} == {0, 1}
            assert own["token"] == seek["token"] and own["seat_url"].endswith("#" + seek["token"])
            summary = (await bob.get(f"/api/games/{own['game_id']}")).json()
            names = ["Alice", "Bob"] if own["seat"] == 0 else ["Bob", "Alice"]
            assert summary["players"] == names and summary["status"] == "playing"
            for seat in (own, bob_seat):  # each token is its own seat on the game WebSocket
                async with websockets.connect(f"{server.ws_url}/ws/{seat['game_id']}") as ws:
                    await ws.send(json.dumps({"type": "hello", "token": seat["token"]}))
                    assert json.loads(await ws.recv())["seat"] == seat["seat"]
            assert seek["seek_id"] not in [s["seek_id"] for s in (await bob.get("/api/seeks")).json()["seeks"]]
            log = server.log()
            assert seek["token"] not in log and bob_seat["token"] not in log  # tokens never in logs

    asyncio.run(scenario())


def test_concurrent_accepts_of_one_seek_start_exactly_one_game(server: Server) -> None:
    async def scenario() -> None:
        async with client(server.url, "127.0.4.3") as owner:
            seek = (await owner.post("/api/seeks", json={"name": "Owner"})).json()

        async def accept(index: int) -> httpx.Response:
            async with client(server.url, f"127.0.5.{index + 1}") as http:
                return await http.post(f"/api/seeks/{seek['seek_id']}/accept", json={"name": f"P{index}"})

        answers = await asyncio.gather(*(accept(i) for i in range(12)))
        codes = sorted(answer.status_code for answer in answers)
        assert codes == [200] + [409] * 11

    asyncio.run(scenario())


def test_rated_seeks_need_accounts_and_a_clock_and_nobody_accepts_their_own(server: Server) -> None:
    async def scenario() -> None:
        async with client(server.url, "127.0.4.4") as guest:
            refused = await guest.post("/api/seeks", json={"clock": CLOCK, "rated": True})
            assert refused.status_code == 401
        headers = await new_account(server.url, "rater")
        async with client(server.url, headers=headers) as rater, client(server.url, "127.0.4.5") as guest:
            untimed = await rater.post("/api/seeks", json={"rated": True})
            assert untimed.status_code == 422 and "clock" in untimed.json()["message"]
            seek = (await rater.post("/api/seeks", json={"clock": CLOCK, "rated": True})).json()
            assert (await guest.post(f"/api/seeks/{seek['seek_id']}/accept")).status_code == 401
            own = await rater.post(f"/api/seeks/{seek['seek_id']}/accept")
            assert own.status_code == 409 and own.json()["error"] == "own_seek"
            listed = [s for s in (await guest.get("/api/seeks")).json()["seeks"] if s["seek_id"] == seek["seek_id"]]
            assert listed[0]["username"] == "rater" and listed[0]["rating"] == 1500 and listed[0]["rated"]
            assert (await guest.delete(f"/api/seeks/{seek['seek_id']}")).status_code == 403
            assert (await rater.delete(f"/api/seeks/{seek['seek_id']}")).status_code == 204

    asyncio.run(scenario())


def test_a_client_has_a_bounded_number_of_open_offers(server: Server) -> None:
    async def scenario() -> None:
        async with client(server.url, "127.0.4.6") as http:
            codes = [(await http.post("/api/seeks", json={})).status_code for _ in range(4)]
            assert codes == [201, 201, 201, 429]

    asyncio.run(scenario())


def test_a_seek_disappears_when_its_owners_lobby_connection_closes(server: Server) -> None:
    async def scenario() -> None:
        async with websockets.connect(f"{server.ws_url}/ws/lobby") as watcher:
            assert json.loads(await watcher.recv())["type"] == "seeks"
            async with client(server.url, "127.0.4.7") as http:
                seek = (await http.post("/api/seeks", json={"name": "Leaver"})).json()
                added = json.loads(await watcher.recv())
                assert added["type"] == "seek_added" and added["seek"]["seek_id"] == seek["seek_id"]
                async with websockets.connect(f"{server.ws_url}/ws/lobby") as owner:
                    await owner.recv()
                    await owner.send(json.dumps({"type": "own", "seek_id": seek["seek_id"], "token": "wrong"}))
                    assert json.loads(await owner.recv())["code"] == "forbidden"
                    await owner.send(json.dumps({"type": "own", "seek_id": seek["seek_id"], "token": seek["token"]}))
                    assert json.loads(await owner.recv())["type"] == "owned"
                removed = json.loads(await asyncio.wait_for(watcher.recv(), 5))
                assert removed == {"type": "seek_removed", "seek_id": seek["seek_id"], "reason": "cancelled"}
                assert (await http.get(f"/api/seeks/{seek['seek_id']}")).json()["status"] == "cancelled"
                async with websockets.connect(f"{server.ws_url}/ws/lobby") as back:  # the owner returns
                    await back.recv()
                    await back.send(json.dumps({"type": "own", "seek_id": seek["seek_id"], "token": seek["token"]}))
                    gone = json.loads(await back.recv())
                    assert gone == {"type": "seek_removed", "seek_id": seek["seek_id"], "reason": "cancelled"}

    asyncio.run(scenario())


def test_an_offer_whose_owner_stopped_showing_signs_of_life_expires(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    offer = Seek(
        "s1",
        "seek",
        seeks.OPEN,
        None,
        "A",
        "address:x",
        "x",
        None,
        None,
        None,
        (),
        False,
        None,
        "d",
        100.0,
        130.0,
        None,
        None,
    )
    with engine.begin() as conn:
        seeks.insert(conn, offer)
        assert seeks.lapsed(conn, 129.0) == []
        seeks.keep_alive(conn, "s1", 160.0)
        assert seeks.lapsed(conn, 131.0) == []
        assert [s.seek_id for s in seeks.open_seeks(conn, "seek", 131.0, 10, set())] == ["s1"]
        assert seeks.lapsing(conn, 161.0) == ["s1"]
        assert seeks.lapsed(conn, 161.0, ["s1"]) == ["s1"]
        assert seeks.lapsed(conn, 161.0, ["s1"]) == []  # expired once
        assert seeks.open_seeks(conn, "seek", 131.0, 10, set()) == []
        assert not seeks.claim(conn, ["s1"], "g", [0], 131.0)
    engine.dispose()


# ---------------------------------------------------------------------------- quick pairing


def test_quick_pairing_widens_its_rating_range_with_waiting_time() -> None:
    def entry(seek_id: str, rating: int, created: float, client_: str = "") -> Seek:
        return Seek(
            seek_id, "pool", seeks.OPEN, 1, "x", client_ or seek_id, None, None, None, CLOCK, (), True, rating, "d",
            created, created + 30, None, None,
        )  # fmt: skip

    assert allowed_gap(0) == 100 and allowed_gap(10) == 350
    assert compatible(entry("a", 1500, 0), entry("b", 1590, 0), 0)
    assert not compatible(entry("a", 1500, 0), entry("b", 1700, 0), 1)
    assert compatible(entry("a", 1500, 0), entry("b", 1700, 5), 5)  # a has waited 5 s: ±225
    assert not compatible(entry("a", 1500, 0, "same"), entry("b", 1500, 0, "same"), 0)
    other_clock = Seek(**{**entry("b", 1500, 0).__dict__, "clock": {"days": 2}})
    assert not compatible(entry("a", 1500, 0), other_clock, 0)


async def _lobby_message(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of type ``kind`` on a ``/ws/lobby`` connection (others are skipped)."""
    while (message := json.loads(await asyncio.wait_for(ws.recv(), 10)))["type"] != kind:
        pass
    found: dict[str, Any] = message
    return found


def test_play_now_pairs_two_players_with_the_same_clock(server: Server) -> None:
    async def scenario() -> None:
        async with client(server.url, "127.0.4.8") as first, client(server.url, "127.0.4.9") as second:
            one = (await first.post("/api/pairing", json={"clock": {"initial": 600}, "name": "One"})).json()
            assert "game_id" not in one
            async with websockets.connect(f"{server.ws_url}/ws/lobby", local_addr=("127.0.4.8", 0)) as owner:
                await owner.send(json.dumps({"type": "own", "seek_id": one["seek_id"], "token": one["token"]}))
                await owner.send(json.dumps({"type": "ping"}))
                await _lobby_message(owner, "pong")  # answered after the "own": the offer waits here
                two = (await second.post("/api/pairing", json={"clock": {"initial": 600}, "name": "Two"})).json()
                seat = await _lobby_message(owner, "accepted")
            assert seat["game_id"] == two["game_id"] and {seat["seat"], two["seat"]} == {0, 1}
            assert seat["token"] == one["token"]
            assert one["seek_id"] not in [s["seek_id"] for s in (await first.get("/api/seeks")).json()["seeks"]]

    asyncio.run(scenario())


# ---------------------------------------------------------------------------- ratings


def test_a_rated_game_moves_both_ratings_once_and_an_early_resignation_none(server: Server) -> None:
    async def scenario() -> None:
        headers = [await new_account(server.url, name) for name in ("winner1", "loser1")]

        async def rated_seats() -> list[dict[str, Any]]:
            async with client(server.url, headers=headers[0]) as a, client(server.url, headers=headers[1]) as b:
                seek = (await a.post("/api/seeks", json={"clock": CLOCK, "rated": True})).json()
                taken = (await b.post(f"/api/seeks/{seek['seek_id']}/accept")).json()
                own = (await a.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})).json()
                return [own, taken]

        early = await rated_seats()
        final = await play_then_resign(server.url, early, 1, seed=1)  # only one turn ended
        assert final["termination"]["reason"] == "resign"
        assert profile(server, "winner1")["ratings"]["realtime"]["games"] == 0

        seats = await rated_seats()
        final = await play_then_resign(server.url, seats, 2, seed=2)
        loser_seat = final["termination"]["seat"]
        loser = "winner1" if seats[0]["seat"] == loser_seat else "loser1"
        winner = "loser1" if loser == "winner1" else "winner1"
        won, lost = profile(server, winner), profile(server, loser)
        assert won["ratings"]["realtime"]["games"] == 1 == lost["ratings"]["realtime"]["games"]
        assert won["ratings"]["realtime"]["rating"] > 1500 > lost["ratings"]["realtime"]["rating"]
        assert won["ratings"]["correspondence"] == {"rating": 1500, "deviation": 350, "games": 0, "provisional": True}
        game = next(g for g in won["games"] if g["game_id"] == seats[0]["game_id"])
        assert game["result"] == "win" and game["rated"] and game["rating_before"] == 1500
        assert game["rating_after"] == won["ratings"]["realtime"]["rating"] and game["opponent"] == loser
        assert [point["game_id"] for point in won["history"]["realtime"]] == [seats[0]["game_id"]]
        unrated = next(g for g in won["games"] if g["game_id"] == early[0]["game_id"])
        assert unrated["rating_before"] is None
        board = server.get("/api/leaderboard?pool=realtime").json()
        assert board["players"] == []  # one game leaves the deviation far above 75
        assert {winner, loser} <= {entry["username"] for entry in board["unranked"]}

    asyncio.run(scenario())


def test_an_ai_level_is_a_rated_bot_account_that_accepts_challenges_at_once(server: Server) -> None:
    async def scenario() -> None:
        headers = await new_account(server.url, "challenger")
        async with client(server.url, headers=headers) as http:
            answer = await http.post("/api/challenges", json={"opponent": "AI-Easy", "clock": CLOCK, "rated": True})
            assert answer.status_code == 201, answer.text
            seat = answer.json()
            assert seat["status"] == "accepted"
            summary = (await http.get(f"/api/games/{seat['game_id']}")).json()
            assert summary["kinds"][1 - seat["seat"]] == "ai:easy"
            assert (await http.post("/api/me/bot")).status_code == 403  # a token manages no account
        final = await play_with_agent(server.url, seat["game_id"], seat["token"], "random", 3)
        assert final["status"] == "over"
        bot = profile(server, "ai-easy")
        assert bot["is_bot"] and bot["ratings"]["realtime"]["games"] >= 1
        assert profile(server, "challenger")["ratings"]["realtime"]["games"] == 1
        # The level's rating is a fixed anchor: it is listed apart from the people (issue 51).
        board = server.get("/api/leaderboard?pool=realtime").json()
        people = {entry["username"] for entry in board["players"] + board["unranked"]}
        assert "challenger" in people and "ai-easy" not in people
        level = next(entry for entry in board["computers"] if entry["username"] == "ai-easy")
        assert level["level"] == "easy" and level["is_bot"] and level["rank"] >= 1

    asyncio.run(scenario())


def test_profiles_of_unknown_players_and_bad_pools_are_refused(server: Server) -> None:
    assert server.get("/api/users/nobody-here").status_code == 404
    assert server.get("/api/leaderboard?pool=blitz").status_code == 422
    assert server.get("/api/leaderboard?pool=correspondence").json()["players"] == []


def test_the_sites_own_account_cannot_be_challenged(server: Server) -> None:
    """The site's own bot account (``kahuna``, the fair-play screening's reporter) answers nothing:
    a challenge to it, from an account or a guest, by any spelling of its name, is refused
    ``site_account``, and its profile says it takes none (the page's "Challenge" link follows it)."""

    async def scenario() -> None:
        headers = await new_account(server.url, "asks-site")
        async with client(server.url, headers=headers) as http:
            for opponent in ("kahuna", "KAHUNA"):
                answer = await http.post("/api/challenges", json={"opponent": opponent, "clock": CLOCK})
                assert answer.status_code == 422 and answer.json()["error"] == "site_account", answer.text
            # Refused before any offer is stored: the account's three open offers are all still free
            # (then cancelled, so that the module's other tests find the list as it was).
            made = [(await http.post("/api/seeks", json={"clock": CLOCK})).json() for _ in range(3)]
            for seek in made:
                gone = await http.delete(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})
                assert gone.status_code == 204, gone.text

    asyncio.run(scenario())
    guest = server.post("/api/challenges", {"opponent": "kahuna", "clock": CLOCK, "name": "Gus"})
    assert guest.status_code == 422 and guest.json()["error"] == "site_account", guest.text
    site = profile(server, "kahuna")
    assert site["is_bot"] and not site["challengeable"]
    assert profile(server, "ai-easy")["challengeable"] and profile(server, "asks-site")["challengeable"]


@pytest.mark.parametrize("rated", [True, False])
def test_challenges_to_a_person_wait_for_their_answer(server: Server, rated: bool) -> None:
    async def scenario() -> None:
        suffix = "r" if rated else "c"
        challenger = await new_account(server.url, f"asker-{suffix}")
        target = await new_account(server.url, f"target-{suffix}")
        async with client(server.url, headers=challenger) as a, client(server.url, headers=target) as b:
            async with websockets.connect(f"{server.ws_url}/ws/lobby", additional_headers=target) as lobby:
                assert json.loads(await lobby.recv())["type"] == "seeks"
                assert json.loads(await lobby.recv()) == {
                    "type": "challenges",
                    "username": f"target-{suffix}",
                    "challenges": [],
                }
                body = {"opponent": f"target-{suffix}", "clock": CLOCK, "rated": rated}
                made = (await a.post("/api/challenges", json=body)).json()
                assert made["status"] == "open"
                event = json.loads(await asyncio.wait_for(lobby.recv(), 5))
                assert event["type"] == "challenge" and event["challenge"]["seek_id"] == made["seek_id"]
            assert (await a.post(f"/api/seeks/{made['seek_id']}/accept")).status_code == 403
            if rated:
                seat = (await b.post(f"/api/challenges/{made['seek_id']}/accept")).json()
                own = (
                    await a.get(f"/api/challenges/{made['seek_id']}", headers={"X-Seek-Token": made["token"]})
                ).json()
                assert own["game_id"] == seat["game_id"] and own["seat"] != seat["seat"]
            else:
                assert (await b.post(f"/api/challenges/{made['seek_id']}/decline")).status_code == 204
                assert (await a.get(f"/api/challenges/{made['seek_id']}")).json()["status"] == "declined"

    asyncio.run(scenario())


def test_a_rated_game_lost_on_time_is_rated_and_an_aborted_one_is_not(tmp_path: Path) -> None:
    fast = Server(tmp_path, args=("--limit", "clock_min_seconds=1")).start()
    try:

        async def scenario() -> None:
            headers = [await new_account(fast.url, name) for name in ("quick-1", "quick-2")]

            async def rated_seats(clock: dict[str, int]) -> list[dict[str, Any]]:
                async with client(fast.url, headers=headers[0]) as a, client(fast.url, headers=headers[1]) as b:
                    seek = (await a.post("/api/seeks", json={"clock": clock, "rated": True})).json()
                    taken = (await b.post(f"/api/seeks/{seek['seek_id']}/accept")).json()
                    own = (await a.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})).json()
                    return [own, taken]

            aborted = await rated_seats(CLOCK)
            async with websockets.connect(f"{fast.ws_url}/ws/{aborted[0]['game_id']}") as ws:
                await ws.send(json.dumps({"type": "hello", "token": aborted[0]["token"]}))
                await ws.recv()
                await ws.send(json.dumps({"type": "abort"}))
                while (message := json.loads(await ws.recv()))["type"] != "sync":
                    pass
                assert message["termination"]["reason"] == "aborted"

            timed = await rated_seats({"initial": 3})
            tasks = [
                asyncio.create_task(play_seat(fast.url, s["game_id"], s["token"], random_until(2, 7 + i)))
                for i, s in enumerate(timed)
            ]
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            assert isinstance(next(iter(done)).exception(), Stop)  # the seat to move now lets its clock run out
            for task in tasks:
                task.cancel()
            summary_url = f"{fast.url}/api/games/{timed[0]['game_id']}"
            wait_for(lambda: loopback.get(summary_url).json()["status"] == "over", "the server to end the game on time")
            assert loopback.get(summary_url).json()["result"]["reason"] == "timeout"

        asyncio.run(scenario())
        for name in ("quick-1", "quick-2"):
            realtime = fast.get(f"/api/users/{name}").json()["ratings"]["realtime"]
            assert realtime["games"] == 1 and realtime["rating"] != 1500  # the timeout only
    finally:
        fast.stop()


def test_a_levels_name_held_by_a_person_does_not_keep_the_server_from_starting(tmp_path: Path) -> None:
    engine = open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    with engine.begin() as conn:
        assert accounts.insert_account(conn, "AI-Hard", "not a real hash") is not None
        ensure_level_bots(conn, ["easy", "hard"])
        ensure_level_bots(conn, ["easy", "hard"])  # at every start: no second account
        easy = accounts.account_by_name(conn, "ai-easy")
        hard = accounts.account_by_name(conn, "ai-hard")
    engine.dispose()
    assert easy is not None and easy.is_bot
    assert hard is not None and not hard.is_bot and hard.username == "AI-Hard"


def test_a_deleted_accounts_seek_is_neither_listed_nor_accepted(server: Server) -> None:
    async def scenario() -> None:
        headers = await new_account(server.url, "leaving")
        async with client(server.url, headers=headers) as leaving, client(server.url, "127.0.4.20") as guest:
            seek = (await leaving.post("/api/seeks", json={"clock": CLOCK})).json()
            listed = [s["seek_id"] for s in (await guest.get("/api/seeks")).json()["seeks"]]
            assert seek["seek_id"] in listed
            async with client(server.url) as browser:  # deleting an account needs a signed-in session
                await browser.post("/api/session", json={"username": "leaving", "password": PASSWORD})
                csrf = {"X-CSRF-Token": browser.cookies.get("csrf") or ""}
                gone = await browser.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=csrf)
                assert gone.status_code == 204, gone.text
            status = (await guest.get(f"/api/seeks/{seek['seek_id']}")).json()
            assert status["status"] == "cancelled", status
            listed = [s["seek_id"] for s in (await guest.get("/api/seeks")).json()["seeks"]]
            assert seek["seek_id"] not in listed
            taken = await guest.post(f"/api/seeks/{seek['seek_id']}/accept", json={"name": "Late"})
            assert taken.status_code == 409

    asyncio.run(scenario())
