"""Accounts under attack, round three (issue 45), against a real server and a real SMTP server:
secrets in the request log, reset links that outlive a password change or a new address, the
mail budgets that strangers could spend, tournament names the name check refuses, and games a
follower may not see.

Each test prints the figure it measured (``figure: ...``; ``pytest -s`` shows it)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
import socket
import time
from collections.abc import Iterator
from http.client import HTTPConnection, IncompleteRead
from pathlib import Path

import httpx
import loopback
import pytest
import websockets
from mail_harness import MailServer, link_token, mail_options, smtp
from server_harness import Server, eventually, wait_for
from test_accounts import PASSWORD, csrf, signed_in

from kahuna.server.accounts.passwords import username_key
from kahuna.server.db import schema
from kahuna.server.db.migrations import migrate
from kahuna.server.db.store import open_engine

__all__ = ["smtp"]  # the module-scoped mail server fixture, shared from mail_harness

NEW_PASSWORD = "lagoon-ember-tern"


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, smtp: MailServer) -> Iterator[Server]:
    args = mail_options(smtp)
    limits = ("--limit", "signups_burst=100", "--limit", "logins_burst=200")
    running = Server(tmp_path_factory.mktemp("round3"), args=(*args, *limits)).start()
    yield running
    running.stop()


def verified(server: Server, smtp: MailServer, username: str, address: str) -> httpx.Client:
    """A signed-in client whose account verified ``address`` (through its mailed link)."""
    browser = signed_in(server, username)
    answer = browser.put("/api/me/email", json={"email": address}, headers=csrf(browser))
    assert answer.status_code == 202, answer.text
    _, token = link_token(smtp.inbox.wait(address)[-1])
    assert loopback.post(f"{server.url}/api/email/verify", json={"token": token}).status_code == 204
    return browser


def reset_link(server: Server, smtp: MailServer, address: str) -> str:
    """The token of a new reset link mailed to ``address``."""
    before = len(smtp.inbox.to(address))
    assert loopback.post(f"{server.url}/api/password-reset", json={"email": address}).status_code == 202
    _, token = link_token(smtp.inbox.wait(address, before + 1)[-1])
    return token


# ----------------------------------------------------------------- 1. secrets in the request log


def test_no_token_of_a_path_reaches_the_log(server: Server, smtp: MailServer) -> None:
    """A reset link answered ``422`` (a weak password), unsubscribe links (page, API, one-click),
    invite links and a token in a query: none of the secrets is in any log line."""
    verified(server, smtp, "logged1", "logged1@example.org")
    reset = reset_link(server, smtp, "logged1@example.org")
    weak = loopback.post(f"{server.url}/api/password-reset/{reset}", json={"password": "kahuna2026"})
    assert weak.status_code == 422
    sent = [reset]
    for method, path in (
        ("GET", "/unsubscribe/{}"),
        ("POST", "/unsubscribe/{}"),
        ("GET", "/api/unsubscribe/{}"),
        ("GET", "/join/{}"),
        ("POST", "/api/join/{}"),
        ("GET", "/api/games/x?token={}"),
    ):
        secret = f"7.turn.{secrets.token_urlsafe(32)}"
        loopback.request(method, f"{server.url}{path.format(secret)}")
        sent.append(secret)
    loopback.get(f"{server.url}/api/games/x")  # a line after them all: every one is written
    log = server.log()
    assert '"path":"/api/games/x"' in log
    leaked = [secret for secret in sent if secret in log]
    print(f"\nfigure: secrets in the log: {len(leaked)} of {len(sent)}")
    assert leaked == []
    assert '"path":"/api/password-reset/{token}"' in log and '"path":"/unsubscribe/{token}"' in log
    # the token stays usable by its owner after a weak password (the rules are said, nothing changed)
    assert loopback.post(f"{server.url}/api/password-reset/{reset}", json={"password": NEW_PASSWORD}).status_code == 204


def test_a_password_change_a_reset_and_a_new_address_void_the_reset_links(server: Server, smtp: MailServer) -> None:
    """Links mailed before the owner changed its password, before a completed reset, or to an
    address the owner has since replaced, are refused afterwards."""
    alive = []
    browser = verified(server, smtp, "stale1", "stale1@example.org")
    before_change = reset_link(server, smtp, "stale1@example.org")
    body = {"password": PASSWORD, "new_password": NEW_PASSWORD}
    assert browser.post("/api/me/password", json=body, headers=csrf(browser)).status_code == 200
    alive.append(
        loopback.post(f"{server.url}/api/password-reset/{before_change}", json={"password": "basalt-heron-quay"})
    )

    browser = verified(server, smtp, "stale2", "old2@example.org")
    to_old_address = reset_link(server, smtp, "old2@example.org")
    assert browser.put("/api/me/email", json={"email": "new2@example.org"}, headers=csrf(browser)).status_code == 202
    _, token = link_token(smtp.inbox.wait("new2@example.org")[-1])
    assert loopback.post(f"{server.url}/api/email/verify", json={"token": token}).status_code == 204
    alive.append(
        loopback.post(f"{server.url}/api/password-reset/{to_old_address}", json={"password": "basalt-heron-quay"})
    )

    verified(server, smtp, "stale3", "stale3@example.org")
    used = reset_link(server, smtp, "stale3@example.org")
    assert loopback.post(f"{server.url}/api/password-reset/{used}", json={"password": NEW_PASSWORD}).status_code == 204
    alive.append(loopback.post(f"{server.url}/api/password-reset/{used}", json={"password": "basalt-heron-quay"}))

    working = [answer.status_code for answer in alive if answer.status_code < 400]
    print(f"\nfigure: stale reset links that still work: {len(working)} of {len(alive)}")
    assert working == []
    assert [answer.json()["error"] for answer in alive] == ["token_unknown", "token_unknown", "token_used"]


# ----------------------------------------------------------------- 3. mail budgets strangers could spend


def from_address(server: Server, address: str, browser: httpx.Client | None = None) -> httpx.Client:
    """A client on the loopback ``address`` (with ``browser``'s cookies: the same account)."""
    cookies = None if browser is None else browser.cookies
    transport = httpx.HTTPTransport(verify=loopback.NO_CA, local_address=address)
    return httpx.Client(verify=loopback.NO_CA, base_url=server.url, transport=transport, timeout=30, cookies=cookies)


def resets_looked_up(server: Server) -> list[int]:
    """The ``mails`` of each ``password_reset_asked`` log line so far."""
    lines = [json.loads(line) for line in server.log().splitlines() if '"event":"password_reset_asked"' in line]
    return [int(line["mails"]) for line in lines]


def ask_reset(server: Server, address: str, client: str) -> int:
    """Ask for a reset of ``address`` from the loopback ``client``: how many mails it queued."""
    before = len(resets_looked_up(server))
    with from_address(server, client) as http:
        assert http.post("/api/password-reset", json={"email": address}).status_code == 202
    wait_for(lambda: len(resets_looked_up(server)) > before, "the reset looked up")
    return resets_looked_up(server)[before]


def put_address(browser: httpx.Client, address: str) -> int:
    return browser.put("/api/me/email", json={"email": address}, headers=csrf(browser)).status_code


@pytest.mark.slow
def test_mails_strangers_trigger_do_not_spend_the_owners_budget(server: Server, smtp: MailServer) -> None:
    """Three anonymous resets of a victim's address from another client address, then the victim's
    own reset and re-verification; three strangers putting a newcomer's address, then the newcomer
    putting it; an attacker's own ``PUT`` of a verified and an unverified address after spending
    their resets. Each owner is served, and the attacker's two answers are the same."""
    served = []
    victim = verified(server, smtp, "owner1", "owner1@example.org")
    for _ in range(3):
        ask_reset(server, "owner1@example.org", "127.0.0.21")
    served.append(ask_reset(server, "owner1@example.org", "127.0.0.22") == 1)  # the owner's reset mailed
    served.append(put_address(victim, "owner1@example.org") == 202)  # the owner re-verifies

    for n in range(3):
        stranger = signed_in(server, f"stranger{n}")
        assert put_address(stranger, "newcomer1@example.org") == 202
    newcomer = signed_in(server, "newcomer1")
    served.append(put_address(newcomer, "newcomer1@example.org") == 202)

    verified(server, smtp, "known1", "known1@example.org")
    attacker = signed_in(server, "prober1")
    for address in ("known1@example.org", "unknown1@example.org"):
        for _ in range(3):
            ask_reset(server, address, "127.0.0.23")
    with from_address(server, "127.0.0.23", attacker) as probe:
        told = {put_address(probe, "known1@example.org"), put_address(probe, "unknown1@example.org")}
    served.append(told == {202})
    print(f"\nfigure: owners served and probes told nothing: {sum(served)} of {len(served)}")
    assert served == [True] * 4


def test_one_mailbox_is_one_mailbox(server: Server, smtp: MailServer) -> None:
    """One account puts five spellings of one mailbox (``+tags``, upper case, and dots where Gmail
    ignores them): the mailbox gets the three mails of one mailbox's budget, not five."""
    browser = signed_in(server, "tagger1")
    spellings = [
        "tag.ger+1@gmail.com",
        "Tag.Ger+2@Gmail.com",
        "tagger+3@gmail.com",
        "t.a.g.g.e.r@googlemail.com",
        "TAGGER+5@GMAIL.COM",
    ]
    answers = [put_address(browser, address) for address in spellings]
    sent = [address for address, status in zip(spellings, answers, strict=True) if status == 202]
    for address in sent:
        smtp.inbox.wait(address)
    print(f"\nfigure: mails to one mailbox from one account through its spellings: {len(sent)} of {len(spellings)}")
    assert answers == [202, 202, 202, 429, 429]


# ----------------------------------------------------------------- 9. tournament names


def test_a_tournament_name_the_name_check_refuses_is_422_with_the_reason(server: Server) -> None:
    """Whitespace only, over 40 graphemes, a control and an invisible character: each ``422
    invalid`` naming why, and the next request on the same connection is answered."""
    browser = signed_in(server, "organiser1")
    clock = {"initial": 300, "increment": 0}
    bad = {
        "   ": "at least one visible character",
        "x" * 41: "at most 40 characters",
        "Cup\u0007": "a control character",
        "Cup\u200b2": "an invisible formatting character",
    }
    answers, lost = {}, 0
    for name in bad:
        body = {"kind": "swiss", "name": name, "clock": clock, "rounds": 3}
        answers[name] = browser.post("/api/tournaments", json=body, headers=csrf(browser))
        try:  # the next request on the same keep-alive connection
            browser.get("/api/tournaments")
        except httpx.TransportError:
            lost += 1
    refused = [name for name, answer in answers.items() if answer.status_code == 422]
    print(f"\nfigure: refused tournament names answered 422: {len(refused)} of {len(bad)}; next request lost: {lost}")
    assert lost == 0
    for name, reason in bad.items():
        assert (answers[name].status_code, answers[name].json()["error"]) == (422, "invalid"), answers[name].text
        assert reason in answers[name].json()["message"]
    made = browser.post(
        "/api/tournaments", json={"kind": "swiss", "name": " Cup ", "clock": clock, "rounds": 3}, headers=csrf(browser)
    )
    assert made.status_code == 201
    assert browser.get(f"/api/tournaments/{made.json()['tournament_id']}").json()["name"] == "Cup"


# ----------------------------------------------------------------- 8. games a follower may not see


def test_following_shows_only_listed_games(server: Server) -> None:
    """Followed accounts in an unlisted game against the AI, a hot-seat game and a listed game:
    the follower sees each online, and ``playing`` (with its watch link) for the listed game only."""
    follower = signed_in(server, "watcher1")
    players = {kind: signed_in(server, f"{kind}1") for kind in ("unlisted", "hotseat", "listed")}
    for name in players:
        assert follower.post(f"/api/users/{name}1/follow", headers=csrf(follower)).status_code == 204
    bodies = {
        "unlisted": {"opponent": "ai", "level": "easy", "seat": "first", "unlisted": True},
        "hotseat": {"opponent": "hotseat"},
        "listed": {"opponent": "ai", "level": "easy", "seat": "first"},
    }
    games = {}
    for kind, browser in players.items():
        made = browser.post("/api/games", json=bodies[kind], headers=csrf(browser))
        assert made.status_code == 201, made.text
        games[kind] = made.json()

    async def scenario() -> dict[str, dict[str, object]]:
        async with contextlib.AsyncExitStack() as stack:
            for kind in ("unlisted", "hotseat", "listed"):  # the listed one last: seen, the others are too
                cookie = {"Cookie": f"session={players[kind].cookies['session']}"}
                ws = await stack.enter_async_context(
                    websockets.connect(f"{server.ws_url}/ws/{games[kind]['game_id']}", additional_headers=cookie)
                )
                await ws.send(json.dumps({"type": "hello", "token": games[kind]["token"]}))
                while json.loads(await ws.recv())["type"] != "sync":
                    pass

            def shown() -> dict[str, dict[str, object]]:
                users = follower.get("/api/me/following").json()["users"]
                return {str(user["username"])[:-1]: user for user in users}

            await eventually(lambda: _true(shown()["listed"]["playing"] is not None), "the listed game shown")
            return shown()

    seen = asyncio.run(scenario())
    assert all(user["online"] for user in seen.values())
    hidden = [kind for kind in ("unlisted", "hotseat") if seen[kind]["playing"] is None]
    print(f"\nfigure: unlisted and hot-seat games shown to followers: {2 - len(hidden)} of 2")
    assert hidden == ["unlisted", "hotseat"]
    assert seen["hotseat"]["watch_url"] is None and seen["unlisted"]["watch_url"] is None
    listed = games["listed"]["game_id"]
    assert (seen["listed"]["playing"], seen["listed"]["watch_url"]) == (listed, f"/watch/{listed}")


async def _true(value: bool) -> bool:
    return value


# ----------------------------------------------------------------- 7. exports cut by the body deadline

EXPORTED = 1000
BODY_TIMEOUT = 1.0


def _finished_games(url: str, count: int) -> None:
    """``count`` finished lobby games of account 1 (``exporter``) against account 2, written
    straight into a new database (the export reads only the stored rows)."""
    engine = open_engine(url)
    migrate(engine)
    with engine.begin() as conn:
        conn.execute(
            schema.accounts.insert(),
            [
                {
                    "id": n,
                    "username": name,
                    "username_key": username_key(name),
                    "created": "2026-01-01T00:00:00Z",
                    "is_bot": False,
                }
                for n, name in ((1, "exporter"), (2, "partner"))
            ],
        )
        stamps = [f"2026-01-01T{g // 3600:02d}:{g // 60 % 60:02d}:{g % 60:02d}Z" for g in range(count)]
        conn.execute(
            schema.games.insert(),
            [
                {"id": f"g{g:06d}", "created": stamp, "updated": stamp, "variant": "{}", "deal": "A" * 24,
                 "kind0": "human", "kind1": "human", "name0": "exporter", "name1": "partner", "status": "over",
                 "result": json.dumps({"winner": g % 2, "reason": "points"})}
                for g, stamp in enumerate(stamps)
            ],
        )  # fmt: skip
        conn.execute(
            schema.game_accounts.insert(),
            [{"game_id": f"g{g:06d}", "account0": 1, "account1": 2, "rated": False} for g in range(count)],
        )
    engine.dispose()


@pytest.mark.slow
def test_an_export_read_slower_than_the_body_deadline_is_not_cut(tmp_path: Path) -> None:
    """A reader that takes longer than the request-body deadline (``body_timeout`` 1 s here, 10 s by
    default) to download a long history gets every line: the deadline ends with the request body.
    The reader holds a small receive window and pauses past the deadline after the first line, so
    the stream is still being written when the deadline passes."""
    server = Server(tmp_path, args=("--limit", f"body_timeout={BODY_TIMEOUT}"))
    _finished_games(server.db, EXPORTED)
    server.start()
    try:
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.connect(("127.0.0.1", server.port))
        http = HTTPConnection("127.0.0.1", server.port, timeout=30)
        http.sock = sock
        http.request("GET", "/api/users/exporter/games.jsonl")
        answer = http.getresponse()
        assert answer.status == 200
        lines = [answer.readline()]
        time.sleep(2 * BODY_TIMEOUT)  # the slow reader: past the deadline with most of the stream unsent
        try:
            while line := answer.readline():
                lines.append(line)
        except (IncompleteRead, ConnectionError):
            pass
        http.close()
        whole = [line for line in lines if line.endswith(b"\n")]
        print(f"\nfigure: export lines received: {len(whole)} of {EXPORTED}")
        assert len(whole) == EXPORTED
        assert [json.loads(line)["meta"]["game_id"] for line in whole] == [f"g{g:06d}" for g in range(EXPORTED)]
        refused = '"error":"BodyRefused"' in server.log() or '"status":408' in server.log()
        assert not refused
    finally:
        server.stop()
