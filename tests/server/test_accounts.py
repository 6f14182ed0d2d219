"""Accounts over HTTP against a real server: sign-up rules, sign-in and sessions, CSRF, personal API
tokens, deleting an account, adopting a browser's games, and playing an account's seat."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import loopback
import pytest
import websockets
from server_harness import Conn, Server, run

PASSWORD = "tide-pool-basalt"


def client(server: Server, **kwargs: Any) -> httpx.Client:
    return httpx.Client(verify=loopback.NO_CA, base_url=server.url, timeout=10, **kwargs)


def sign_up(server: Server, username: str, password: str = PASSWORD) -> httpx.Response:
    return server.post("/api/accounts", {"username": username, "password": password})


def signed_in(server: Server, username: str, password: str = PASSWORD, **body: Any) -> httpx.Client:
    """A client holding the session and csrf cookies of ``username`` (created if needed)."""
    sign_up(server, username, password)
    browser = client(server)
    answer = browser.post("/api/session", json={"username": username, "password": password, **body})
    assert answer.status_code == 200, answer.text
    return browser


def csrf(browser: httpx.Client) -> dict[str, str]:
    return {"X-CSRF-Token": browser.cookies["csrf"]}


def token_request(name: str, password: str = PASSWORD, scopes: tuple[str, ...] = ("play",)) -> dict[str, Any]:
    """The body of ``POST /api/tokens``: a name, the password again and the scopes."""
    return {"name": name, "password": password, "scopes": list(scopes)}


def set_cookie_headers(response: httpx.Response) -> dict[str, str]:
    return {value.split("=", 1)[0]: value for value in response.headers.get_list("set-cookie")}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(
        tmp_path_factory.mktemp("accounts"), args=("--limit", "signups_burst=100", "--limit", "logins_burst=100")
    ).start()
    yield running
    running.stop()


# ----------------------------------------------------------------- sign-up


def test_usernames_are_unique_without_regard_to_case_and_look_alikes(server: Server) -> None:
    assert sign_up(server, "Kailani").status_code == 201
    for same in ("kailani", "KAILANI", "KaiIani", "Ka1lani", "kaiLani"):
        answer = sign_up(server, same)
        assert answer.status_code == 409 and answer.json()["error"] == "taken", same
    assert sign_up(server, "Moana_0").status_code == 201
    for same in ("moana_o", "MOANA-O", "Moana-0"):
        assert sign_up(server, same).status_code == 409, same
    assert sign_up(server, "rnakoa").status_code == 201
    assert sign_up(server, "makoa").status_code == 409


@pytest.mark.parametrize(
    ("username", "reason", "code"),
    [
        ("k", "2 to 20", {"code": "username_length", "min": 2, "max": 20}),
        ("k" * 21, "2 to 20", {"code": "username_length", "min": 2, "max": 20}),
        ("has space", "letters, digits", {"code": "username_chars"}),
        ("dot.name", "letters, digits", {"code": "username_chars"}),
        ("\u0430lani", "ASCII", {"code": "username_chars"}),  # a Cyrillic a
        ("\u03bfnu", "ASCII", {"code": "username_chars"}),  # a Greek omicron
        ("ｋａｉ", "ASCII", {"code": "username_chars"}),  # full-width letters
        ("ai-expert", "AI levels", {"code": "username_ai", "prefix": "ai-"}),  # the levels' bot accounts
        ("AI_master", "AI levels", {"code": "username_ai", "prefix": "ai-"}),
        ("a1-hard", "AI levels", {"code": "username_ai", "prefix": "ai-"}),  # a look-alike of the prefix
        ("Moderator", "reserved", {"code": "username_reserved"}),
    ],
)
def test_invalid_usernames_are_refused_with_the_reason(
    server: Server, username: str, reason: str, code: dict[str, object]
) -> None:
    answer = sign_up(server, username)
    assert answer.status_code == 422 and answer.json()["error"] == "invalid"
    assert reason in answer.json()["message"]
    assert answer.json()["reason"] == code  # for the browser to word in its language


@pytest.mark.parametrize(
    ("password", "reason", "code"),
    [("short1", "at least 8", {"code": "password_short", "min": 8}),
     ("password123", "common", {"code": "password_common"}), ("Qwerty123", "common", {"code": "password_common"}),
     ("xxLeilaniXX", "username", {"code": "password_username"}),
     ("aaaaaaaaaa", "too easy", {"code": "password_guessable"})],
)  # fmt: skip
def test_weak_passwords_are_refused(server: Server, password: str, reason: str, code: dict[str, object]) -> None:
    answer = sign_up(server, "Leilani", password)
    assert answer.status_code == 422 and reason in answer.json()["message"]
    assert answer.json()["reason"] == code


# ----------------------------------------------------------------- sessions


def test_sign_in_sets_a_session_and_csrf_cookie_and_me_answers(server: Server) -> None:
    sign_up(server, "Nalu")
    browser = client(server)
    assert browser.get("/api/me").status_code == 401
    answer = browser.post("/api/session", json={"username": "NALU", "password": PASSWORD})
    assert answer.status_code == 200 and answer.json()["username"] == "Nalu"
    cookies = set_cookie_headers(answer)
    session = cookies["session"].lower()
    assert "httponly" in session and "samesite=lax" in session and "secure" not in session and "path=/" in session
    assert "httponly" not in cookies["csrf"].lower() and "samesite=lax" in cookies["csrf"].lower()
    me = browser.get("/api/me").json()
    assert me["username"] == "Nalu" and not me["is_bot"]
    assert me["ratings"]["realtime"] == {"rating": 1500, "deviation": 350, "games": 0, "provisional": True}
    assert set(me["ratings"]) == {"realtime", "correspondence"}
    assert browser.delete("/api/session", headers=csrf(browser)).status_code == 204
    assert browser.get("/api/me").status_code == 401


def test_cookies_are_secure_behind_a_tls_proxy_on_loopback(server: Server) -> None:
    sign_up(server, "Keoni")
    answer = loopback.post(
        server.url + "/api/session",
        json={"username": "Keoni", "password": PASSWORD},
        headers={"X-Forwarded-Proto": "https"},
        timeout=10,
    )
    cookies = set_cookie_headers(answer)
    assert "secure" in cookies["session"].lower() and "secure" in cookies["csrf"].lower()


def test_wrong_password_and_unknown_user_are_the_same_401(server: Server) -> None:
    sign_up(server, "Pua")
    wrong = server.post("/api/session", {"username": "Pua", "password": "not-the-password"})
    unknown = server.post("/api/session", {"username": "Nobody_here", "password": "not-the-password"})
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json()
    assert "session" not in wrong.cookies


def test_session_fixation_a_planted_session_id_never_becomes_valid(server: Server) -> None:
    sign_up(server, "Ikaika")
    planted = "attacker-chosen-session-id-0123456789"
    browser = client(server, cookies={"session": planted})
    answer = browser.post("/api/session", json={"username": "Ikaika", "password": PASSWORD})
    issued = answer.cookies["session"]
    assert issued != planted and len(issued) >= 40
    attacker = client(server, cookies={"session": planted})
    assert attacker.get("/api/me").status_code == 401
    # every sign-in issues a new id, and the id the browser presented at sign-in is ended
    again = browser.post("/api/session", json={"username": "Ikaika", "password": PASSWORD})
    assert again.cookies["session"] != issued
    assert client(server, cookies={"session": issued}).get("/api/me").status_code == 401
    assert browser.get("/api/me").status_code == 200


# ----------------------------------------------------------------- CSRF


def test_cookie_authenticated_changes_need_the_csrf_header(server: Server) -> None:
    browser = signed_in(server, "Makana")
    refused = browser.post("/api/tokens", json=token_request("bot"))
    assert refused.status_code == 403 and refused.json()["error"] == "csrf"
    wrong = browser.post("/api/tokens", json=token_request("bot"), headers={"X-CSRF-Token": "forged"})
    assert wrong.status_code == 403
    # the csrf cookie of another session does not do either
    other = signed_in(server, "Makana")
    assert browser.post("/api/tokens", json=token_request("bot"), headers=csrf(other)).status_code == 403
    assert browser.post("/api/tokens", json=token_request("bot"), headers=csrf(browser)).status_code == 201
    # existing endpoints too, once a session cookie comes with them
    game = {"opponent": "human", "name": "Makana"}
    assert browser.post("/api/games", json=game).status_code == 403
    assert browser.post("/api/games", json=game, headers=csrf(browser)).status_code == 201
    assert browser.delete("/api/session").status_code == 403
    # reads need nothing
    assert browser.get("/api/me").status_code == 200


def test_another_sites_form_cannot_sign_a_browser_in(server: Server) -> None:
    """Login CSRF: a cross-site form can post only form encodings or text/plain, never JSON."""
    sign_up(server, "Mallory_1")
    body = json.dumps({"username": "Mallory_1", "password": PASSWORD})
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"):
        answer = loopback.post(
            server.url + "/api/session", content=body, headers={"Content-Type": content_type}, timeout=10
        )
        assert answer.status_code == 422 and "session" not in answer.cookies, content_type


def test_guests_need_no_csrf_token_and_a_dead_session_cookie_changes_nothing(server: Server) -> None:
    assert server.post("/api/games", {"opponent": "human", "name": "Guest"}).status_code == 201
    stale = client(server, cookies={"session": "expired-or-made-up", "csrf": "x"})
    created = stale.post("/api/games", json={"opponent": "hotseat", "name": "Guest"})
    assert created.status_code == 201
    tokens = created.json()["tokens"]
    assert stale.post("/api/my-games", json={"tokens": tokens}).status_code == 200


def test_bearer_requests_need_no_csrf_token(server: Server) -> None:
    browser = signed_in(server, "Alapaki")
    token = browser.post("/api/tokens", json=token_request("script"), headers=csrf(browser)).json()["token"]
    program = client(server, headers={"Authorization": f"Bearer {token}"})
    refused = program.post("/api/tokens", json=token_request("second"))  # a token never makes another
    assert refused.status_code == 403 and refused.json()["error"] == "session_required"
    assert program.post("/api/games", json={"opponent": "human", "name": "Bot"}).status_code == 201
    assert program.get("/api/me").json()["username"] == "Alapaki"


# ----------------------------------------------------------------- tokens


def test_tokens_are_shown_once_listed_without_secret_and_revocable(server: Server) -> None:
    browser = signed_in(server, "Kawika")
    made = browser.post("/api/tokens", json=token_request("my bot"), headers=csrf(browser))
    assert made.status_code == 201
    token = made.json()["token"]
    assert token.startswith("kahuna_") and len(token) > 40
    listed = browser.get("/api/tokens").json()
    assert listed == [
        {
            "id": made.json()["id"],
            "name": "my bot",
            "created": made.json()["created"],
            "last_used": None,
            "scopes": ["play"],
        }
    ]
    program = client(server, headers={"Authorization": f"Bearer {token}"})
    assert program.get("/api/me").status_code == 200
    assert browser.get("/api/tokens").json()[0]["last_used"] is not None
    assert token not in browser.get("/api/tokens").text
    assert browser.delete(f"/api/tokens/{made.json()['id']}", headers=csrf(browser)).status_code == 204
    assert program.get("/api/me").status_code == 401
    assert browser.delete(f"/api/tokens/{made.json()['id']}", headers=csrf(browser)).status_code == 404
    bad = client(server, headers={"Authorization": "Bearer kahuna_made_up"})
    assert bad.get("/api/me").status_code == 401
    assert bad.post("/api/games", json={"opponent": "human"}).status_code == 401
    # another scheme (a proxy's Basic authentication) is no token: the request is a guest's
    basic = client(server, headers={"Authorization": "Basic dXNlcjpwYXNz"})
    assert basic.get("/api/me").status_code == 401
    assert basic.post("/api/games", json={"opponent": "human"}).status_code == 201
    too_long = browser.post("/api/tokens", json=token_request("x" * 41), headers=csrf(browser))
    assert too_long.status_code == 422


def test_an_account_cannot_revoke_another_accounts_token(server: Server) -> None:
    owner = signed_in(server, "Owner_1")
    made = owner.post("/api/tokens", json=token_request("x"), headers=csrf(owner)).json()
    thief = signed_in(server, "Thief_1")
    assert thief.delete(f"/api/tokens/{made['id']}", headers=csrf(thief)).status_code == 404
    program = client(server, headers={"Authorization": f"Bearer {made['token']}"})
    assert program.get("/api/me").json()["username"] == "Owner_1"


def test_secrets_never_appear_in_the_log(server: Server) -> None:
    password = "a-secret-that-must-not-leak"
    browser = signed_in(server, "Quiet_one", password)
    session = browser.cookies["session"]
    token = browser.post("/api/tokens", json=token_request("t", password), headers=csrf(browser)).json()["token"]
    client(server, headers={"Authorization": f"Bearer {token}"}).get("/api/me")
    server.post("/api/session", {"username": "Quiet_one", "password": "wrong-" + password})
    run(_bearer_socket(server, token))
    log = server.log()
    assert '"event":"token_created"' in log and '"event":"sign_in_failed"' in log
    for secret in (password, session, token, token[len("kahuna_") :], browser.cookies["csrf"]):
        assert secret not in log


async def _bearer_socket(server: Server, token: str) -> None:
    game = server.create(opponent="human", name="x")
    async with websockets.connect(
        f"{server.ws_url}/ws/{game['game_id']}", additional_headers={"Authorization": f"Bearer {token}"}
    ) as ws:
        await ws.send(json.dumps({"type": "hello"}))
        assert json.loads(await ws.recv())["type"] == "sync"


# ----------------------------------------------------------------- deletion


def test_a_deleted_account_cannot_sign_in_and_its_games_show_a_deleted_player(server: Server) -> None:
    browser = signed_in(server, "Gone_soon")
    token = browser.post("/api/tokens", json=token_request("t"), headers=csrf(browser)).json()["token"]
    game = browser.post(
        "/api/games", json={"opponent": "ai", "level": "random", "name": "Gone_soon"}, headers=csrf(browser)
    ).json()
    refused = browser.request("DELETE", "/api/me", json={"password": "wrong-password"}, headers=csrf(browser))
    assert refused.status_code == 401
    session = browser.cookies["session"]

    async def watch_the_deletion() -> None:
        """A spectator of the game sees the deleted player's new name at once."""
        async with websockets.connect(f"{server.ws_url}/ws/{game['game_id']}") as ws:
            watcher = Conn(ws)
            await watcher.send(type="hello")
            assert (await watcher.until(lambda m: m["type"] == "sync"))["players"][game["seat"]] == "Gone_soon"
            deleted = browser.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=csrf(browser))
            assert deleted.status_code == 204
            sync = await watcher.until(lambda m: m["type"] == "sync")
            assert sync["players"][game["seat"]] == "(deleted player)"

    run(watch_the_deletion())
    assert server.post("/api/session", {"username": "Gone_soon", "password": PASSWORD}).status_code == 401
    assert client(server, cookies={"session": session}).get("/api/me").status_code == 401
    assert client(server, headers={"Authorization": f"Bearer {token}"}).get("/api/me").status_code == 401
    players = server.get(f"/api/games/{game['game_id']}").json()["players"]
    assert players[game["seat"]] == "(deleted player)"
    assert sign_up(server, "gone_soon").status_code == 409  # the name is not freed


# ----------------------------------------------------------------- adopting games and playing as the account


def test_signing_in_adopts_the_browsers_games_and_lists_them_on_any_browser(server: Server) -> None:
    sign_up(server, "Lani")
    vs_friend = server.create(opponent="human", name="Lani")
    hotseat = server.create(opponent="hotseat", name="Lani")
    tokens = [vs_friend["token"], *hotseat["tokens"]]
    first = client(server)
    answer = first.post("/api/session", json={"username": "Lani", "password": PASSWORD, "tokens": tokens})
    assert answer.json()["adopted"] == 3
    elsewhere = signed_in(server, "Lani")
    games = elsewhere.get("/api/me/games").json()
    assert sorted((g["game_id"], g["seat"]) for g in games) == sorted(
        [(vs_friend["game_id"], vs_friend["seat"]), (hotseat["game_id"], 0), (hotseat["game_id"], 1)]
    )
    assert all("token" not in g for g in games)
    # a seat adopted by one account is not taken over by another
    thief = signed_in(server, "Lani_thief")
    stolen = thief.post("/api/me/games/adopt", json={"tokens": tokens}, headers=csrf(thief))
    assert stolen.json() == {"adopted": 0}
    assert thief.get("/api/me/games").json() == []


def test_a_signed_in_creator_and_joiner_own_their_seats(server: Server) -> None:
    host = signed_in(server, "Host_1")
    guest = signed_in(server, "Guest_1")
    game = host.post("/api/games", json={"opponent": "human", "name": "Host"}, headers=csrf(host)).json()
    joined = guest.post(game["invite_url"].replace("/join/", "/api/join/"), json={"name": "Guest"}, headers=csrf(guest))
    assert joined.status_code == 200
    assert [g["seat"] for g in host.get("/api/me/games").json()] == [game["seat"]]
    assert [g["seat"] for g in guest.get("/api/me/games").json()] == [1 - game["seat"]]


def test_an_account_plays_its_seat_over_the_websocket_and_no_other(server: Server) -> None:
    owner = signed_in(server, "Player_a")
    stranger = signed_in(server, "Player_b")
    game = owner.post("/api/games", json={"opponent": "ai", "level": "random", "name": "A"}, headers=csrf(owner)).json()
    token = owner.post("/api/tokens", json=token_request("ws"), headers=csrf(owner)).json()["token"]
    seat = game["seat"]

    async def scenario() -> None:
        url = f"{server.ws_url}/ws/{game['game_id']}"
        cookie = {"Cookie": f"session={owner.cookies['session']}"}
        async with websockets.connect(url, additional_headers=cookie) as ws:
            conn = Conn(ws)
            await conn.send(type="hello", seat=seat)
            sync = await conn.until(lambda m: m["type"] == "sync")
            assert sync["seat"] == seat
        async with websockets.connect(url, additional_headers={"Authorization": f"Bearer {token}"}) as ws:
            conn = Conn(ws)
            await conn.send(type="hello", seat=seat)
            assert (await conn.until(lambda m: m["type"] == "sync"))["seat"] == seat
        for headers in ({"Cookie": f"session={stranger.cookies['session']}"}, {}):
            async with websockets.connect(url, additional_headers=headers) as ws:
                conn = Conn(ws)
                await conn.send(type="hello", seat=seat)
                refused = await conn.recv()
                assert refused["type"] == "error" and refused["code"] == "forbidden"
                with pytest.raises(websockets.ConnectionClosed) as closed:
                    await ws.recv()
                assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403
        # a page of another site cannot use the owner's cookie
        cross = {**cookie, "Origin": "https://evil.example"}
        async with websockets.connect(url, additional_headers=cross) as ws:
            conn = Conn(ws)
            await conn.send(type="hello", seat=seat)
            assert (await conn.recv())["code"] == "forbidden"
        async with websockets.connect(url, additional_headers={"Authorization": "Bearer kahuna_wrong"}) as ws:
            assert json.loads(await ws.recv())["code"] == "unauthorized"
            with pytest.raises(websockets.ConnectionClosed) as closed:
                await ws.recv()
            assert closed.value.rcvd is not None and closed.value.rcvd.code == 4403

    run(scenario())


# ----------------------------------------------------------------- throttling


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    limits = ("login_failures_burst=3", "client_login_failures_burst=6", "logins_burst=100", "signups_burst=100")
    args = tuple(arg for limit in limits for arg in ("--limit", limit))
    running = Server(tmp_path_factory.mktemp("throttle"), args=args).start()
    yield running
    running.stop()


def test_repeated_failures_on_one_account_are_refused_with_retry_after(strict: Server) -> None:
    sign_up(strict, "Victim")
    for _ in range(3):
        assert strict.post("/api/session", {"username": "victim", "password": "guess-guess"}).status_code == 401
    flooded = strict.post("/api/session", {"username": "VICTIM", "password": PASSWORD})
    assert flooded.status_code == 429 and flooded.json()["error"] == "rate_limited"
    assert int(flooded.headers["Retry-After"]) >= 1
    # another address is refused too: the budget is the account's
    other = httpx.Client(
        verify=loopback.NO_CA,
        base_url=strict.url,
        transport=httpx.HTTPTransport(verify=loopback.NO_CA, local_address="127.0.0.9"),
        timeout=10,
    )
    assert other.post("/api/session", json={"username": "Victim", "password": PASSWORD}).status_code == 429


def test_repeated_failures_from_one_client_are_refused_whatever_the_username(strict: Server) -> None:
    sign_up(strict, "Bystander")
    flooder = httpx.Client(
        verify=loopback.NO_CA,
        base_url=strict.url,
        transport=httpx.HTTPTransport(verify=loopback.NO_CA, local_address="127.0.0.5"),
        timeout=10,
    )
    for n in range(6):
        assert flooder.post("/api/session", json={"username": f"user{n}", "password": "guess-guess"}).status_code == 401
    refused = flooder.post("/api/session", json={"username": "Bystander", "password": PASSWORD})
    assert refused.status_code == 429 and "Retry-After" in refused.headers
    elsewhere = httpx.Client(
        verify=loopback.NO_CA,
        base_url=strict.url,
        transport=httpx.HTTPTransport(verify=loopback.NO_CA, local_address="127.0.0.6"),
        timeout=10,
    )
    assert elsewhere.post("/api/session", json={"username": "Bystander", "password": PASSWORD}).status_code == 200


def test_accounts_survive_a_restart(tmp_path: Path) -> None:
    first = Server(tmp_path).start()
    try:
        assert sign_up(first, "Keeper").status_code == 201
    finally:
        first.stop()
    second = Server(tmp_path).start()
    try:
        assert second.post("/api/session", {"username": "keeper", "password": PASSWORD}).status_code == 200
    finally:
        second.stop()


def test_the_browser_code_never_parses_text_as_html() -> None:
    """Usernames, player names, chat and token names reach the page only as text: no script of the
    web UI uses an HTML-parsing sink (the browser test shows a markup-like token name as text)."""
    web = Path(__file__).resolve().parents[2] / "kahuna" / "web"
    sinks = ("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "DOMParser", "createContextualFragment")
    scripts = sorted(web.rglob("*.js"))
    assert len(scripts) > 10
    for script in scripts:
        text = script.read_text()
        for sink in sinks:
            assert sink not in text, f"{script.name} uses {sink}"


def test_a_rematch_between_accounts_is_both_accounts_game(server: Server) -> None:
    host = signed_in(server, "Rematch_a")
    guest = signed_in(server, "Rematch_b")
    game = host.post("/api/games", json={"opponent": "human", "name": "A"}, headers=csrf(host)).json()
    joined = guest.post(
        game["invite_url"].replace("/join/", "/api/join/"), json={"name": "B"}, headers=csrf(guest)
    ).json()

    async def resign_and_rematch() -> str:
        url = f"{server.ws_url}/ws/{game['game_id']}"
        async with websockets.connect(url) as first, websockets.connect(url) as second:
            a, b = Conn(first, game["token"]), Conn(second, joined["token"])
            for conn in (a, b):
                await conn.hello(None)
                await conn.until(lambda m: m["type"] == "sync")
            await a.send(type="resign", id="r")
            await a.until(lambda m: m["type"] == "ack")
            await a.send(type="rematch", id="m1")
            await a.until(lambda m: m["type"] == "ack")
            await b.send(type="rematch", id="m2")
            rematch = await b.until(lambda m: m["type"] == "rematch")
            return str(rematch["game_id"])

    new_id = run(resign_and_rematch())
    host_games = {(g["game_id"], g["seat"]) for g in host.get("/api/me/games").json()}
    guest_games = {(g["game_id"], g["seat"]) for g in guest.get("/api/me/games").json()}
    assert (new_id, 1 - game["seat"]) in host_games and (new_id, game["seat"]) in guest_games
