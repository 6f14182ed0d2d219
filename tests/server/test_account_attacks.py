"""Accounts under attack, against a real server: password guesses sent at once from many
addresses, every password check through one throttle, sign-out never refused, the sign-up limit,
password strength, reserved names and stacks of combining marks.

Each test prints the figure it measured (``figure: ...``; ``pytest -s`` shows it)."""

from __future__ import annotations

import asyncio
import json
import secrets
from collections.abc import Iterator
from typing import Any

import httpx
import loopback
import pytest
import websockets
from server_harness import Conn, Server, run

PASSWORD = "tide-pool-basalt"


def sign_up(server: Server, username: str, password: str = PASSWORD, address: str | None = None) -> httpx.Response:
    with from_address(server, address) as http:
        return http.post("/api/accounts", json={"username": username, "password": password})


def from_address(server: Server, address: str | None = None, **kwargs: Any) -> httpx.Client:
    transport = httpx.HTTPTransport(verify=loopback.NO_CA, local_address=address) if address else None
    return httpx.Client(verify=loopback.NO_CA, base_url=server.url, transport=transport, timeout=30, **kwargs)


def signed_in(server: Server, username: str, address: str | None = None) -> httpx.Client:
    assert sign_up(server, username, address=address).status_code == 201
    browser = from_address(server, address)
    answer = browser.post("/api/session", json={"username": username, "password": PASSWORD})
    assert answer.status_code == 200, answer.text
    return browser


def csrf(browser: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": browser.cookies["csrf"]}


def unique(prefix: str) -> str:
    """A username no other run shares (the Redis budgets of parallel runs are keyed by username)."""
    return f"{prefix}_{secrets.token_hex(3)}"


async def burst(url: str, addresses: list[str], per_address: int, request: Any) -> list[int]:
    """``per_address`` requests sent at once from each address; their status codes."""
    clients = [
        httpx.AsyncClient(
            verify=loopback.NO_CA,
            base_url=url,
            transport=httpx.AsyncHTTPTransport(verify=loopback.NO_CA, local_address=a),
            timeout=120,
        )
        for a in addresses
    ]
    try:
        answers = await asyncio.gather(*(request(http) for http in clients for _ in range(per_address)))
    finally:
        for http in clients:
            await http.aclose()
    return [answer.status_code for answer in answers]


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """The default limits, except more sign-ups and password work per address (the tests sign up many
    accounts from one address)."""
    args = ("--limit", "signups_burst=200", "--limit", "logins_burst=200")
    running = Server(tmp_path_factory.mktemp("attacks"), args=args).start()
    yield running
    running.stop()


# ----------------------------------------------------------------- guesses sent at once


def test_guesses_sent_at_once_from_five_addresses_are_checked_at_most_the_accounts_budget(server: Server) -> None:
    """5 addresses x 20 wrong passwords at once against one account: the per-account budget (5)
    holds, whatever the concurrency; the rest are refused before any password is checked."""
    victim = unique("victim")
    assert sign_up(server, victim).status_code == 201
    addresses = [f"127.0.27.{n}" for n in range(1, 6)]

    async def guess(http: httpx.AsyncClient) -> httpx.Response:
        return await http.post("/api/session", json={"username": victim, "password": secrets.token_hex(8)})

    codes = asyncio.run(burst(server.url, addresses, 20, guess))
    checked = codes.count(401)
    print(f"figure: {checked} of {len(codes)} guesses checked against one account")
    assert checked <= 5, f"{checked} of 100 guesses were checked"
    assert codes.count(429) == len(codes) - checked
    # the account's owner is refused too until the budget refills (and no excess was forgotten)
    right = server.post("/api/session", {"username": victim, "password": PASSWORD})
    assert right.status_code == 429 and int(right.headers["Retry-After"]) >= 200


def test_a_right_password_gives_back_its_attempt(server: Server) -> None:
    owner = unique("owner")
    assert sign_up(server, owner).status_code == 201
    for _ in range(12):  # more than the per-account burst: each success refunds its attempt
        assert server.post("/api/session", {"username": owner, "password": PASSWORD}).status_code == 200


# ----------------------------------------------------------------- every password check


def test_deleting_an_account_checks_its_password_through_the_sign_in_throttle(server: Server) -> None:
    """Wrong passwords to ``DELETE /api/me`` count against the account, from any address."""
    name = unique("deleter")
    browsers = [signed_in(server, name, "127.0.27.11")]
    browsers.append(from_address(server, "127.0.27.12"))
    assert browsers[1].post("/api/session", json={"username": name, "password": PASSWORD}).status_code == 200
    codes = []
    for n in range(12):
        browser = browsers[n % 2]
        answer = browser.request("DELETE", "/api/me", json={"password": f"wrong-{n}"}, headers=csrf(browser))
        codes.append(answer.status_code)
    checked = codes.count(401)
    print(f"figure: {checked} of 12 wrong passwords to DELETE /api/me checked")
    assert checked <= 5 and codes.count(429) == 12 - checked, codes
    signing_in = server.post("/api/session", {"username": name, "password": PASSWORD})
    assert signing_in.status_code == 429  # one budget: sign-in is refused too


# ----------------------------------------------------------------- sign-out


def test_signing_out_is_never_refused_and_draws_on_no_sign_in_budget(server: Server) -> None:
    """A neighbour's failed sign-ins from the same address do not keep anyone from signing out."""
    address = "127.0.27.21"
    name = unique("leaver")
    browser = signed_in(server, name, address)
    with from_address(server, address) as neighbour:
        for n in range(40):
            neighbour.post("/api/session", json={"username": f"nobody{n}", "password": "wrong-guess-here"})
        refused = neighbour.post("/api/session", json={"username": name, "password": PASSWORD})
        assert refused.status_code == 429  # the address's budgets are spent
    gone = browser.delete("/api/session", headers=csrf(browser))
    print(f"figure: sign-out after a neighbour's 40 failures answered {gone.status_code}")
    assert gone.status_code == 204
    assert browser.get("/api/me").status_code == 401


# ----------------------------------------------------------------- the sign-up limit


def test_refused_sign_ups_do_not_count_against_the_address(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Only accounts created count: a person whose attempts were refused (a weak password, a taken
    name) still signs up, and so does a second person on the same address."""
    running = Server(tmp_path_factory.mktemp("signups")).start()
    try:
        with from_address(running, "127.0.31.9") as http:
            refused = [
                http.post("/api/accounts", json={"username": unique("first"), "password": "short"}).status_code
                for _ in range(8)
            ]
            assert set(refused) == {422}, refused
            created = http.post("/api/accounts", json={"username": unique("second"), "password": PASSWORD})
            print(f"figure: after 8 refused sign-ups, a sign-up answered {created.status_code}")
            assert created.status_code == 201
            made = [
                http.post("/api/accounts", json={"username": unique("more"), "password": PASSWORD}).status_code
                for _ in range(5)
            ]
            assert made == [201, 201, 201, 201, 429], made  # 5 accounts at once, then the hourly rate
    finally:
        running.stop()


# ----------------------------------------------------------------- passwords and names


@pytest.mark.parametrize(
    "password",
    [" " * 8, "kahuna2026", "Kahuna!!", "REVERSED!!", "password123", "adgangskode1"],
)
def test_weak_passwords_are_refused_by_estimated_strength(server: Server, password: str) -> None:
    name = unique("Strong")
    if password == "REVERSED!!":
        password = name[::-1] + "!!"
    answer = sign_up(server, name, password)
    assert answer.status_code == 422 and answer.json()["error"] == "invalid", (password, answer.text)


@pytest.mark.parametrize("password", ["tide-pool-basalt", "a long bench passphrase 7", "Wh1sper#Orchid$Lake"])
def test_strong_passwords_are_accepted(server: Server, password: str) -> None:
    assert sign_up(server, unique("Fine"), password).status_code == 201


@pytest.mark.parametrize(
    "username", ["admin", "Administrator", "kahuna", "KAHUNA_team", "root", "moderator", "support", "system", "adm1n"]
)
def test_reserved_names_cannot_be_registered(server: Server, username: str) -> None:
    answer = sign_up(server, username)
    assert answer.status_code == 422 and "reserved" in answer.json()["message"], answer.text


def test_stacks_of_combining_marks_are_refused_in_names_and_chat(server: Server) -> None:
    zalgo = "a" + "\u0301" * 300
    refused = server.post("/api/games", {"opponent": "human", "name": zalgo})
    assert refused.status_code == 422 and "combining" in refused.json()["message"], refused.text
    refused = server.post("/api/games", {"opponent": "human", "name": "Kax" + "\u0301" * 5 + "i"})
    assert refused.status_code == 422
    # real writing passes: decomposed Vietnamese, Thai, Devanagari, a keycap
    for name in ("Nguye\u0302\u0303n", "สวัสดี", "क्षत्रिय", "1\ufe0f\u20e3"):
        assert server.post("/api/games", {"opponent": "human", "name": name}).status_code == 201, name


def test_a_chat_line_with_a_stack_of_combining_marks_is_refused(server: Server) -> None:
    game = server.create(opponent="human", name="Host")

    async def scenario() -> dict[str, Any]:
        async with websockets.connect(f"{server.ws_url}/ws/{game['game_id']}") as ws:
            conn = Conn(ws, game["token"])
            await conn.hello(None)
            await conn.until(lambda m: m["type"] == "sync")
            await conn.send(type="chat", text="a" + "\u0301" * 300, id="c1")
            return await conn.until(lambda m: m["type"] in ("error", "ack"))

    answer = run(scenario())
    assert answer["type"] == "error" and "combining" in answer["message"], answer


# ----------------------------------------------------------------- token scopes, sessions, password


def make_token(browser: httpx.Client, name: str, scopes: list[str]) -> httpx.Response:
    body = {"name": name, "password": PASSWORD, "scopes": scopes}
    return browser.post("/api/tokens", json=body, headers=csrf(browser))


def test_a_token_cannot_make_tokens_or_manage_the_account(server: Server) -> None:
    name = unique("scoped")
    browser = signed_in(server, name)
    parent = make_token(browser, "parent", ["play"]).json()["token"]
    program = from_address(server, headers={"Authorization": f"Bearer {parent}"})
    child = program.post("/api/tokens", json={"name": "child", "password": PASSWORD, "scopes": ["play"]})
    print(f"figure: a Bearer token asking for a new token answered {child.status_code}")
    assert child.status_code == 403 and child.json()["error"] == "session_required"
    for method, path, body in (
        ("GET", "/api/tokens", None),
        ("GET", "/api/sessions", None),
        ("DELETE", "/api/sessions", None),
        ("POST", "/api/me/password", {"password": PASSWORD, "new_password": "another-long-phrase"}),
        ("DELETE", "/api/me", {"password": PASSWORD}),
        ("POST", "/api/me/bot", None),
    ):
        answer = program.request(method, path, json=body)
        assert answer.status_code == 403 and answer.json()["error"] == "session_required", (method, path)
    # making a token needs the password again, even with a session
    wrong = browser.post(
        "/api/tokens", json={"name": "x", "password": "not-it-at-all", "scopes": ["read"]}, headers=csrf(browser)
    )
    assert wrong.status_code == 401
    assert program.get("/api/me").json()["username"] == name  # the token still plays and reads


def test_a_read_token_reads_and_cannot_play(server: Server) -> None:
    browser = signed_in(server, unique("reader"))
    made = make_token(browser, "stats", ["read"]).json()
    assert made["scopes"] == ["read"]
    reader = from_address(server, headers={"Authorization": f"Bearer {made['token']}"})
    assert reader.get("/api/me").status_code == 200 and reader.get("/api/me/games").status_code == 200
    refused = reader.post("/api/games", json={"opponent": "human", "name": "Bot"})
    assert refused.status_code == 403 and refused.json()["error"] == "insufficient_scope"
    assert reader.post("/api/seeks", json={"clock": {"initial": 300, "increment": 3}}).status_code == 403

    async def socket() -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {made['token']}"}
        async with websockets.connect(f"{server.ws_url}/ws/lobby", additional_headers=headers) as ws:
            first: dict[str, Any] = json.loads(await ws.recv())
            return first

    assert run(socket())["code"] == "insufficient_scope"
    listed = browser.get("/api/tokens").json()
    assert [token["scopes"] for token in listed] == [["read"]]


def test_changing_the_password_signs_out_every_other_session_and_revokes_every_token(server: Server) -> None:
    name = unique("changer")
    here = signed_in(server, name)
    elsewhere = from_address(server, headers={"User-Agent": "Other browser/1.0"})
    assert elsewhere.post("/api/session", json={"username": name, "password": PASSWORD}).status_code == 200
    token = make_token(here, "bot", ["play"]).json()["token"]
    sessions = here.get("/api/sessions").json()
    assert len(sessions) == 2 and sum(s["current"] for s in sessions) == 1
    assert {s["user_agent"] for s in sessions if not s["current"]} == {"Other browser/1.0"}
    assert all(len(s["id"]) == 16 and s["id"] not in here.cookies["session"] for s in sessions)
    weak = here.post("/api/me/password", json={"password": PASSWORD, "new_password": "kahuna2026"}, headers=csrf(here))
    assert weak.status_code == 422
    wrong = here.post("/api/me/password", json={"password": "nope-nope-nope", "new_password": "x"}, headers=csrf(here))
    assert wrong.status_code == 401
    new = "orchid-harbour-lantern"
    changed = here.post("/api/me/password", json={"password": PASSWORD, "new_password": new}, headers=csrf(here))
    print(f"figure: a password change answered {changed.json()}")
    assert changed.status_code == 200 and changed.json() == {"signed_out": 1, "revoked_tokens": 1}
    assert here.get("/api/me").status_code == 200
    assert elsewhere.get("/api/me").status_code == 401
    assert from_address(server, headers={"Authorization": f"Bearer {token}"}).get("/api/me").status_code == 401
    assert server.post("/api/session", {"username": name, "password": PASSWORD}).status_code == 401
    assert server.post("/api/session", {"username": name, "password": new}).status_code == 200


def test_one_session_is_ended_from_the_list_and_sign_out_everywhere_ends_all(server: Server) -> None:
    name = unique("mover")
    browsers = [signed_in(server, name)]
    for _ in range(2):
        browser = from_address(server)
        assert browser.post("/api/session", json={"username": name, "password": PASSWORD}).status_code == 200
        browsers.append(browser)
    listed = browsers[0].get("/api/sessions").json()
    other = next(s for s in listed if not s["current"])
    assert browsers[0].delete(f"/api/sessions/{other['id']}", headers=csrf(browsers[0])).status_code == 204
    assert browsers[0].delete(f"/api/sessions/{other['id']}", headers=csrf(browsers[0])).status_code == 404
    assert [b.get("/api/me").status_code for b in browsers].count(401) == 1
    stranger = signed_in(server, unique("stranger"))
    assert stranger.delete(f"/api/sessions/{listed[0]['id']}", headers=csrf(stranger)).status_code == 404
    everywhere = browsers[0].delete("/api/sessions", headers=csrf(browsers[0]))
    assert everywhere.status_code == 200 and everywhere.json() == {"signed_out": 2}
    assert [b.get("/api/me").status_code for b in browsers] == [401, 401, 401]
    assert stranger.get("/api/me").status_code == 200
