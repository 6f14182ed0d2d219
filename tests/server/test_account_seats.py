"""An account's seat played without its seat token (``hello`` with ``seat``) may ask for hints,
start the post-game analysis and agree on a rematch, whose new seats are the accounts' too; no other
account and no guest may do any of it. Against a real server with a SQLite file."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import loopback
import pytest
import websockets
from server_harness import Conn, Server, run

PASSWORD = "tide-pool-basalt"


def signed_in(server: Server, username: str) -> httpx.Client:
    """A browser holding the session and csrf cookies of a new account ``username``."""
    assert server.post("/api/accounts", {"username": username, "password": PASSWORD}).status_code == 201
    browser = httpx.Client(verify=loopback.NO_CA, base_url=server.url, timeout=30)
    assert browser.post("/api/session", json={"username": username, "password": PASSWORD}).status_code == 200
    return browser


def csrf(browser: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": browser.cookies["csrf"]}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    limits = ("signups_burst=100", "logins_burst=100", "analysis_iterations=2", "hints_burst=20")
    running = Server(
        tmp_path_factory.mktemp("account-seats"), args=tuple(x for limit in limits for x in ("--limit", limit))
    ).start()
    yield running
    running.stop()


async def claim(server: Server, browser: httpx.Client, game_id: str, seat: int) -> Conn:
    """A WebSocket of ``browser``'s account playing ``seat`` without its token, past the first sync."""
    cookie = {"Cookie": f"session={browser.cookies['session']}"}
    conn = Conn(await websockets.connect(f"{server.ws_url}/ws/{game_id}", additional_headers=cookie))
    await conn.send(type="hello", seat=seat)
    assert (await conn.until(lambda m: m["type"] == "sync"))["seat"] == seat
    return conn


def test_an_account_gets_hints_for_its_seat_and_nobody_else_does(server: Server) -> None:
    owner = signed_in(server, "Hinted")
    stranger = signed_in(server, "Peeker")
    game = owner.post(
        "/api/games", json={"opponent": "ai", "level": "random", "seat": "first"}, headers=csrf(owner)
    ).json()
    path = f"/api/games/{game['game_id']}/hint"
    given = owner.post(path, json={}, headers=csrf(owner))
    assert given.status_code == 200, given.text
    assert given.json()["version"] == 0 and given.json()["why"].startswith(given.json()["action"])
    bearer = owner.post(
        "/api/tokens", json={"name": "hints", "password": PASSWORD, "scopes": ["play"]}, headers=csrf(owner)
    ).json()["token"]
    program = loopback.post(f"{server.url}{path}", json={}, headers={"Authorization": f"Bearer {bearer}"}, timeout=30)
    assert program.status_code == 200, program.text
    assert owner.post(path, json={}).json()["error"] == "csrf"  # the cookie alone: another site's form
    assert stranger.post(path, json={}, headers=csrf(stranger)).json()["error"] == "forbidden"
    assert server.post(path, {}).json()["error"] == "forbidden"  # a guest
    # a person's game stays without hints, whoever asks
    person = owner.post("/api/games", json={"opponent": "human", "seat": "first"}, headers=csrf(owner)).json()
    refused = owner.post(f"/api/games/{person['game_id']}/hint", json={}, headers=csrf(owner))
    assert refused.status_code == 403 and refused.json()["error"] == "no_hints"


def test_an_account_starts_the_analysis_of_its_finished_game_and_nobody_else_does(server: Server) -> None:
    owner = signed_in(server, "Analyst")
    stranger = signed_in(server, "Onlooker")
    game = owner.post("/api/games", json={"opponent": "ai", "level": "random"}, headers=csrf(owner)).json()
    game_id, seat = game["game_id"], game["seat"]
    path = f"/api/games/{game_id}/analysis"
    assert owner.post(path, json={}, headers=csrf(owner)).json()["error"] == "not_over"

    async def resign() -> None:
        conn = await claim(server, owner, game_id, seat)
        await conn.send(type="resign", id="r")
        await conn.until(lambda m: m["type"] == "ack")
        await conn.close()

    run(resign())
    assert stranger.post(path, json={}, headers=csrf(stranger)).json()["error"] == "not_a_player"
    assert server.post(path, {}).json()["error"] == "not_a_player"
    assert owner.post(path, json={}).json()["error"] == "csrf"
    assert server.get(path).json() == {"state": "none"}
    started = owner.post(path, json={}, headers=csrf(owner))
    assert started.status_code == 200 and started.json()["state"] in ("running", "done"), started.text


def test_account_seats_agree_on_a_rematch_whose_seats_are_theirs(server: Server) -> None:
    host = signed_in(server, "Rematcher")
    guest = signed_in(server, "Rival")
    stranger = signed_in(server, "Gatecrash")
    game = host.post("/api/games", json={"opponent": "human", "seat": "first"}, headers=csrf(host)).json()
    joined = guest.post(game["invite_url"].replace("/join/", "/api/join/"), json={}, headers=csrf(guest))
    assert joined.status_code == 200
    game_id = game["game_id"]

    async def scenario() -> str:
        black = await claim(server, host, game_id, 0)
        white = await claim(server, guest, game_id, 1)
        await white.send(type="resign", id="r")
        await white.until(lambda m: m["type"] == "ack")
        await black.send(type="rematch", id="o")
        await black.until(lambda m: m["type"] == "ack")
        await white.until(lambda m: m["type"] == "rematch_offered")
        await white.send(type="rematch", id="a")
        links = [await conn.until(lambda m: m["type"] == "rematch") for conn in (black, white)]
        new_id = links[0]["game_id"]
        assert [link["seat_url"] for link in links] == [f"/play/{new_id}#seat:1", f"/play/{new_id}#seat:0"]
        for conn in (black, white):
            await conn.close()
        # each account opens its new seat without a token, and comes back to the same link
        for browser, seat in ((host, 1), (guest, 0)):
            await (await claim(server, browser, new_id, seat)).close()
        again = await claim(server, host, game_id, 0)
        assert (await again.until(lambda m: m["type"] == "rematch"))["seat_url"] == f"/play/{new_id}#seat:1"
        await again.close()
        for browser, seat in ((stranger, 0), (guest, 1)):  # another account's seat, or a seat of nobody's
            cookie = {"Cookie": f"session={browser.cookies['session']}"}
            async with websockets.connect(f"{server.ws_url}/ws/{new_id}", additional_headers=cookie) as ws:
                conn = Conn(ws)
                await conn.send(type="hello", seat=seat)
                assert (await conn.recv())["code"] == "forbidden"
        return str(new_id)

    new_id = run(scenario())
    assert [g["seat"] for g in host.get("/api/me/games").json() if g["game_id"] == new_id] == [1]
    assert [g["seat"] for g in guest.get("/api/me/games").json() if g["game_id"] == new_id] == [0]
