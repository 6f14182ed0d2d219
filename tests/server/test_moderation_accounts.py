"""The account sanctions (issue 48; docs/moderation.md, *Account sanctions*) through a real server
on SQLite: a cheating mark giving an opponent back the points a rated game took (the mark off the
leaderboard, refused rated games, its undo keeping the refund, a second mark giving nothing twice);
a closed account's running game ended through the end hook (the opponent sees the resignation, the
record has its termination), its sessions and tokens revoked, its sign-in refused until the undo;
sign-ups blocked from its browser and address until the undo; the queue's rating history and
other accounts seen on the same browser; the refusals, with nothing changed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import loopback
import pytest
import websockets
from server_harness import Server
from test_accounts import PASSWORD, csrf, signed_in
from test_lobby import play_then_resign
from test_moderation import grant, moderator
from test_moderation_reports import cookie, lobby_game, refused, until
from test_social import rated_seats

from kahuna.bench.lobby import CLOCK, client, new_account


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    args = ("signups_burst=100", "logins_burst=100", "reports_per_address_burst=100")
    running = Server(tmp_path_factory.mktemp("accounts"), args=tuple(p for a in args for p in ("--limit", a))).start()
    yield running
    running.stop()


def sanction(mod: httpx.Client, username: str, kind: str, **more: Any) -> httpx.Response:
    body = {"username": username, "kind": kind, "reason": f"{kind} of {username}", **more}
    return mod.post("/api/mod/sanctions", json=body, headers=csrf(mod))


def made(answer: httpx.Response) -> int:
    assert answer.status_code == 201, answer.text
    return int(answer.json()["sanction_id"])


def rating(server: Server, name: str) -> int:
    return int(server.get(f"/api/users/{name}").json()["ratings"]["realtime"]["rating"])


def board(server: Server) -> set[str]:
    found = server.get("/api/leaderboard").json()
    return {entry["username"] for entry in found["players"] + found["unranked"]}


def log_of(mod: httpx.Client) -> list[dict[str, Any]]:
    return list(mod.get("/api/mod/log").json()["entries"])


def test_a_cheating_mark_gives_the_opponent_its_points_back_and_keeps_the_account_out_of_rated_play(
    server: Server,
) -> None:
    async def accounts() -> list[dict[str, str]]:
        return [await new_account(server.url, name) for name in ("cheat", "victim")]

    headers = asyncio.run(accounts())
    seats = asyncio.run(rated_seats(server.url, headers))
    game_id = seats[0]["game_id"]
    final = asyncio.run(play_then_resign(server.url, seats, 2, seed=3, loser=1))  # the victim resigns
    assert final["termination"]["reason"] == "resign"
    lost = rating(server, "victim")
    event = {"kind": "swiss", "name": "Rated", "clock": CLOCK, "rounds": 3, "rated": True}
    tid = loopback.post(f"{server.url}/api/tournaments", json=event, headers=headers[1]).json()["tournament_id"]
    assert loopback.post(f"{server.url}/api/tournaments/{tid}/join", headers=headers[0]).status_code == 204
    assert lost < 1500 < rating(server, "cheat")
    assert {"cheat", "victim"} <= board(server)
    mod = moderator(server, "marta")
    reporter = signed_in(server, "witness")
    report = reporter.post("/api/reports", json={"username": "cheat", "reason": "cheating"}, headers=csrf(reporter))
    assert report.status_code == 201, report.text
    queued = mod.get("/api/mod/reports").json()["reports"][0]["target"]
    assert [(c["game_id"], c["kind"], c["before"]) for c in queued["rating_history"]] == [(game_id, "game", 1500)]

    mark = made(sanction(mod, "cheat", "mark_cheating", report_id=report.json()["report_id"]))
    assert rating(server, "victim") == 1500  # what the game took, given back
    assert rating(server, "cheat") > 1500  # the mark's own rating is left as it is
    assert "cheat" not in board(server) and "victim" in board(server)
    entrants = server.get(f"/api/tournaments/{tid}").json()["players"]
    assert {"username": "cheat", "active": False} in entrants  # it left the rated tournament
    refused(loopback.post(f"{server.url}/api/tournaments/{tid}/join", headers=headers[0]), 403, "rating_marked")
    entry = log_of(mod)[0]
    assert (entry["action"], entry["target"], entry["detail"]["kind"]) == ("sanction", "cheat", "mark_cheating")
    assert [(r["username"], r["game_id"], r["before"], r["after"]) for r in entry["detail"]["refunds"]] == [
        ("victim", game_id, lost, 1500)
    ]
    changes = server.get(f"/api/games/{game_id}/ratings").json()["players"]
    assert sorted(p["before"] for p in changes) == [1500, 1500]  # the game's own change is unchanged
    mine = [s["kind"] for s in loopback.get(f"{server.url}/api/me/sanctions", headers=headers[0]).json()["sanctions"]]
    assert mine == ["mark_cheating"]  # the player's notice

    async def offers() -> None:
        async with client(server.url, headers=headers[0]) as cheat, client(server.url, headers=headers[1]) as victim:
            rated = await cheat.post("/api/seeks", json={"clock": CLOCK, "rated": True})
            refused(rated, 403, "rating_marked")
            casual = await cheat.post("/api/seeks", json={"clock": CLOCK})
            assert casual.status_code == 201, casual.text
            await cheat.delete(f"/api/seeks/{casual.json()['seek_id']}")
            theirs = (await victim.post("/api/seeks", json={"clock": CLOCK, "rated": True})).json()
            refused(await cheat.post(f"/api/seeks/{theirs['seek_id']}/accept"), 403, "rating_marked")
            await victim.delete(f"/api/seeks/{theirs['seek_id']}")

    asyncio.run(offers())
    refused(sanction(mod, "cheat", "mark_rating_manipulation"), 409, "already_marked")
    assert mod.delete(f"/api/mod/sanctions/{mark}", headers=csrf(mod)).status_code == 204
    refused(mod.delete(f"/api/mod/sanctions/{mark}", headers=csrf(mod)), 409, "already_undone")
    assert "cheat" in board(server) and rating(server, "victim") == 1500  # the refund stays
    again = made(sanction(mod, "cheat", "mark_rating_manipulation", minutes=60))
    assert log_of(mod)[0]["detail"]["refunds"] == []  # nothing given back twice
    assert rating(server, "victim") == 1500
    assert mod.delete(f"/api/mod/sanctions/{again}", headers=csrf(mod)).status_code == 204


def test_closing_an_account_resigns_its_running_game_and_refuses_its_sign_in_until_reopened(server: Server) -> None:
    ann, bob = signed_in(server, "ann"), signed_in(server, "bob")
    mod = moderator(server, "mo")
    token = bob.post("/api/tokens", json={"name": "bot", "password": PASSWORD, "scopes": ["play"]}, headers=csrf(bob))
    assert token.status_code == 201, token.text
    bearer = {"Authorization": f"Bearer {token.json()['token']}"}
    game_id, black, white = lobby_game(ann, bob)  # ann's seek, bob's seat is ``white``
    seek = bob.post("/api/seeks", json={"clock": CLOCK}, headers=csrf(bob)).json()

    listed = {s["seek_id"] for s in server.get("/api/seeks").json()["seeks"]}
    assert seek["seek_id"] in listed

    async def scenario() -> tuple[dict[str, Any], int, bool]:
        url = f"{server.ws_url}/ws/{game_id}"
        async with (
            websockets.connect(url, additional_headers=cookie(ann)) as a,
            websockets.connect(url, additional_headers=cookie(bob)) as b,
            websockets.connect(f"{server.ws_url}/ws/lobby", additional_headers=cookie(bob)) as lobby,
        ):
            assert (await until(lobby, "challenges"))["username"] == "bob"  # signed in there
            seat = 0
            for ws, seat_token in ((a, black), (b, white)):
                await ws.send(json.dumps({"type": "hello", "token": seat_token}))
                seat = (await until(ws, "sync"))["seat"]  # bob's, the last
            await asyncio.to_thread(lambda: made(sanction(mod, "bob", "close")))
            while True:
                message = json.loads(await a.recv())
                if message.get("status") == "over":
                    break
            await until(lobby, "account_closed")  # bob's lobby connection is told, then closed
            with pytest.raises(websockets.ConnectionClosed) as lobby_closed:
                await asyncio.wait_for(lobby.recv(), 10)
            assert lobby_closed.value.rcvd is not None and lobby_closed.value.rcvd.code == 4403
            try:  # bob's game socket is closed once it was told
                while True:
                    await asyncio.wait_for(b.recv(), 10)
            except websockets.ConnectionClosed:
                return message, seat, True
            return message, seat, False

    ended, bob_seat, closed = asyncio.run(scenario())
    assert closed
    assert ended["termination"] == {"reason": "resign", "seat": bob_seat}  # what ann saw
    record = server.get(f"/api/games/{game_id}/record").json()
    assert record["termination"] == {"reason": "resign", "seat": bob_seat}, record
    assert server.get(f"/api/games/{game_id}").json()["status"] == "over"
    refused(bob.get("/api/me"), 401, "unauthorized")  # its session is over
    assert loopback.get(f"{server.url}/api/me", headers=bearer).status_code == 401  # and its token
    assert seek["seek_id"] not in {s["seek_id"] for s in server.get("/api/seeks").json()["seeks"]}
    signing_in = signed_in_answer(server, "bob")
    refused(signing_in, 403, "account_closed")
    refused(sanction(mod, "bob", "close"), 409, "already_closed")
    closing = next(e for e in log_of(mod) if e["detail"].get("kind") == "close")
    assert (closing["target"], closing["detail"]["sessions"], closing["detail"]["tokens"]) == ("bob", 1, 1)
    sanction_id = closing["detail"]["sanction_id"]
    assert mod.delete(f"/api/mod/sanctions/{sanction_id}", headers=csrf(mod)).status_code == 204
    assert signed_in_answer(server, "bob").status_code == 200  # reopened


def signed_in_answer(server: Server, name: str) -> httpx.Response:
    return server.post("/api/session", {"username": name, "password": PASSWORD})


def test_the_refusals_change_nothing(server: Server) -> None:
    mod = moderator(server, "mona")
    signed_in(server, "boss")
    grant(server, "grant", "boss", "admin")
    signed_in(server, "pat")
    before = log_of(mod)
    refused(sanction(mod, "boss", "close"), 403, "target_is_admin")
    refused(sanction(mod, "pat", "close", minutes=5), 422, "invalid")
    refused(sanction(mod, "pat", "block_signups"), 422, "invalid")
    refused(sanction(mod, "nobody", "mark_cheating"), 404, "not_found")
    refused(sanction(mod, "mona", "close"), 422, "own_account")
    refused(sanction(mod, "ai-easy", "mark_cheating"), 422, "ai_level")  # its losers would be refunded
    assert log_of(mod) == before
    assert signed_in_answer(server, "pat").status_code == 200


def test_sign_ups_are_refused_from_a_blocked_accounts_browser_and_address_until_the_undo(server: Server) -> None:
    def browser(address: str) -> httpx.Client:
        transport = httpx.HTTPTransport(local_address=address, verify=loopback.NO_CA)
        return httpx.Client(base_url=server.url, transport=transport, timeout=10)

    def sign_up(http: httpx.Client, name: str) -> httpx.Response:
        return http.post("/api/accounts", json={"username": name, "password": PASSWORD})

    home = browser("127.0.9.1")
    for name in ("carl", "carl2"):  # two accounts signed up and in on one browser
        assert sign_up(home, name).status_code == 201
        assert signed_in_answer_on(home, name).status_code == 200
    mod = moderator(server, "moe")
    ann = signed_in(server, "ann")
    assert ann.post("/api/reports", json={"username": "carl", "reason": "spam"}, headers=csrf(ann)).status_code == 201
    target = next(r for r in mod.get("/api/mod/reports").json()["reports"] if r["username"] == "carl")["target"]
    assert target["alternates"] == [{"username": "carl2", "via": ["address", "browser"]}]
    assert target["rating_history"] == []

    block = made(sanction(mod, "carl", "block_signups", minutes=30))
    assert log_of(mod)[0]["detail"] | {"sanction_id": 0} == {
        "sanction_id": 0, "kind": "block_signups", "minutes": 30, "report_id": None, "browsers": 1, "addresses": 1,
    }  # fmt: skip
    refused(sign_up(home, "carl3"), 403, "signups_blocked")  # its browser, its address
    refused(sign_up(browser("127.0.9.1"), "carl4"), 403, "signups_blocked")  # its address, a new browser
    elsewhere = browser("127.0.9.2")
    elsewhere.cookies.set("browser", home.cookies["browser"], path="/api/")
    refused(sign_up(elsewhere, "carl5"), 403, "signups_blocked")  # its browser, another address
    assert sign_up(browser("127.0.9.3"), "dora").status_code == 201  # anyone else
    assert signed_in_answer_on(home, "carl").status_code == 200  # signing in is not signing up
    assert mod.delete(f"/api/mod/sanctions/{block}", headers=csrf(mod)).status_code == 204
    assert sign_up(home, "carl3").status_code == 201


def signed_in_answer_on(http: httpx.Client, name: str) -> httpx.Response:
    return http.post("/api/session", json={"username": name, "password": PASSWORD})


def test_a_rated_game_running_when_a_player_is_marked_is_not_rated(server: Server) -> None:
    """The mark refunds the games rated before it; the one being played takes and gives nothing."""

    async def accounts() -> list[dict[str, str]]:
        return [await new_account(server.url, name) for name in ("midgame", "rival")]

    headers = asyncio.run(accounts())
    seats = asyncio.run(rated_seats(server.url, headers))
    game_id = seats[0]["game_id"]
    mod = moderator(server, "mira")
    mark = made(sanction(mod, "midgame", "mark_rating_manipulation"))
    final = asyncio.run(play_then_resign(server.url, seats, 2, seed=5, loser=1))  # the rival resigns
    assert final["termination"]["reason"] == "resign"
    changes = server.get(f"/api/games/{game_id}/ratings").json()["players"]
    assert [(p["before"], p["after"]) for p in changes] == [(None, None), (None, None)]
    assert mod.delete(f"/api/mod/sanctions/{mark}", headers=csrf(mod)).status_code == 204
