"""The moderators' API (issue 48) through a real server on SQLite: a chat line reported, the
reporter muted by a moderator on that report, the muted player's next line refused ``muted`` with
the time left, the mute undone (once); roles granted and revoked with ``kahuna admin`` holding on
the next request; everyone else answered the 404 of a path that does not exist; the sanctions'
refusals; the log."""

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
from test_accounts import csrf, signed_in
from test_lobby import resign
from test_moderation_reports import cookie, limited, lobby_game, refused, say, until

from kahuna.cli import main


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = limited(tmp_path_factory.mktemp("moderation"), "reports_per_address_burst=100")
    yield running
    running.stop()


def grant(server: Server, *args: str) -> None:
    """``kahuna admin grant|revoke NAME ROLE`` on the running server's database."""
    assert main(["admin", *args, "--db", server.db]) == 0


def moderator(server: Server, name: str, role: str = "moderator") -> httpx.Client:
    browser = signed_in(server, name)
    grant(server, "grant", name, role)
    return browser


def test_a_reported_chat_line_gets_its_sender_muted_until_the_mute_is_undone(server: Server) -> None:
    ann, bob = signed_in(server, "ann"), signed_in(server, "bob")
    mia = moderator(server, "mia")
    game_id, black, white = lobby_game(ann, bob)
    m = csrf(mia)

    async def scenario() -> tuple[int, int]:
        url = f"{server.ws_url}/ws/{game_id}"
        async with (
            websockets.connect(url, additional_headers=cookie(ann)) as a,
            websockets.connect(url, additional_headers=cookie(bob)) as b,
        ):
            for ws, token in ((a, black), (b, white)):
                await ws.send(json.dumps({"type": "hello", "token": token}))
                await until(ws, "sync")
            assert (await say(a, "good luck"))["line_id"] == 0
            assert (await say(b, "you will lose, idiot"))["line_id"] == 1
            body = {"username": "bob", "reason": "abuse", "note": "insult", "game_id": game_id, "line_id": 1}
            made = ann.post("/api/reports", json=body, headers=csrf(ann))
            assert made.status_code == 201, made.text
            report_id = made.json()["report_id"]

            queue = mia.get("/api/mod/reports").json()["reports"]
            assert [(r["report_id"], r["username"], r["reporter"], r["reason"], r["note"]) for r in queue] == [
                (report_id, "bob", "ann", "abuse", "insult")
            ]
            context = queue[0]["context"]
            assert (context["game_id"], context["line_id"], context["seats"]) == (game_id, 1, [1])
            lines = [(line["line_id"], line["username"], line["text"]) for line in context["lines"]]
            assert lines == [(0, "ann", "good luck"), (1, "bob", "you will lose, idiot")]

            mute = {"username": "bob", "kind": "chat_mute", "minutes": 10, "reason": "insults", "report_id": report_id}
            made = mia.post("/api/mod/sanctions", json=mute, headers=m)
            assert made.status_code == 201, made.text
            sanction_id = made.json()["sanction_id"]
            assert [r["status"] for r in ann.get("/api/me/reports").json()["reports"]] == ["acted_on"]
            assert mia.get("/api/mod/reports").json() == {"reports": []}  # no longer in the queue

            muted = await say(b, "sorry")
            assert (muted["type"], muted["code"]) == ("error", "muted")
            assert 590 <= muted["seconds_left"] <= 600 and "10 more minutes" in muted["message"]
            assert (await say(a, "are you there?"))["line_id"] == 2  # the muted line was not stored

            assert mia.delete(f"/api/mod/sanctions/{sanction_id}", headers=m).status_code == 204
            refused(mia.delete(f"/api/mod/sanctions/{sanction_id}", headers=m), 409, "already_undone")
            assert (await say(b, "sorry"))["line_id"] == 3  # the mute undone: heard again
            return report_id, sanction_id

    report_id, sanction_id = asyncio.run(scenario())
    entries = mia.get("/api/mod/log").json()["entries"]
    story = [(e["actor"], e["action"], e["target"], e["reason"]) for e in entries[:3]]
    assert story == [
        ("mia", "undo", "bob", ""),
        ("mia", "sanction", "bob", "insults"),
        (None, "grant", "mia", "kahuna admin grant"),
    ]
    assert entries[1]["detail"] == {
        "sanction_id": sanction_id,
        "kind": "chat_mute",
        "minutes": 10,
        "report_id": report_id,
    }
    for browser in (ann, bob, mia):
        browser.close()


MOD_REQUESTS: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/api/mod/reports", None),
    ("POST", "/api/mod/reports/1/close", {"reason": "fine"}),
    ("POST", "/api/mod/sanctions", {"username": "cy", "kind": "warn", "reason": "x"}),
    ("DELETE", "/api/mod/sanctions/1", None),
    ("GET", "/api/mod/log", None),
    ("GET", "/api/mod/appeals", None),
    ("POST", "/api/mod/appeals/1", {"decision": "upheld", "reason": "x"}),
]


def test_everyone_but_a_moderator_gets_the_404_of_a_path_that_does_not_exist(server: Server) -> None:
    cy = signed_in(server, "cy")
    nothing = server.get("/api/mod/nothing-here")
    assert nothing.status_code == 404
    for method, path, body in MOD_REQUESTS:
        as_guest = loopback.request(method, server.url + path, json=body, timeout=10)
        as_player = cy.request(method, path, json=body, headers=csrf(cy))
        without_csrf = cy.request(method, path, json=body)
        for answer in (as_guest, as_player, without_csrf):
            assert (answer.status_code, answer.json()) == (404, nothing.json()), (method, path, answer.text)
    assert not [path for path in server.get("/openapi.json").json()["paths"] if path.startswith("/api/mod")]
    cy.close()


def test_a_revoked_moderator_loses_access_on_the_next_request(server: Server) -> None:
    dot = moderator(server, "dot")
    assert dot.get("/api/mod/log").status_code == 200
    assert dot.get("/api/me").json()["moderates"] is True  # the page's header links /mod
    grant(server, "revoke", "dot", "moderator")
    assert dot.get("/api/mod/log").status_code == 404
    assert dot.get("/api/me").json()["moderates"] is False
    grant(server, "grant", "dot", "admin")  # an admin may do what a moderator may
    assert dot.get("/api/mod/reports").status_code == 200
    assert dot.get("/api/me").json()["moderates"] is True
    grant(server, "revoke", "dot", "admin")
    assert dot.get("/api/mod/reports").status_code == 404
    assert dot.get("/api/me").json()["moderates"] is False
    dot.close()


def test_sanctions_refused_with_their_reasons_change_nothing(server: Server) -> None:
    eve, fay = moderator(server, "eve"), moderator(server, "fay", "admin")
    gus, hal = signed_in(server, "gus"), signed_in(server, "hal")
    e, f = csrf(eve), csrf(fay)
    report_id = hal.post("/api/reports", json={"username": "gus", "reason": "spam"}, headers=csrf(hal)).json()[
        "report_id"
    ]
    other = gus.post("/api/reports", json={"username": "hal", "reason": "spam"}, headers=csrf(gus)).json()["report_id"]
    second = fay.post("/api/reports", json={"username": "gus", "reason": "abuse"}, headers=f).json()["report_id"]
    queue = [(r["username"], r["reporter"]) for r in eve.get("/api/mod/reports").json()["reports"]]
    assert queue == [("gus", "hal"), ("gus", "fay"), ("hal", "gus")]  # the most reported player first
    before = eve.get("/api/mod/log").json()

    def sanction(by: httpx.Client, headers: dict[str, str], **body: Any) -> httpx.Response:
        return by.post(
            "/api/mod/sanctions", json={"username": "gus", "kind": "warn", "reason": "r", **body}, headers=headers
        )

    refused(sanction(eve, e, username="fay"), 403, "target_is_admin")  # a moderator does not sanction an admin
    refused(sanction(eve, e, username="eve"), 422, "own_account")
    refused(sanction(eve, e, username="nobody"), 404, "not_found")
    refused(sanction(eve, e, kind="chat_mute"), 422, "invalid")  # a mute needs its minutes
    refused(sanction(eve, e, minutes=5), 422, "invalid")  # a warning has none
    refused(sanction(eve, e, kind="ban"), 422, "invalid")
    refused(sanction(eve, e, reason=""), 422, "invalid")
    refused(sanction(eve, e, report_id=other), 422, "not_that_report")  # that report is about hal
    refused(sanction(eve, e, report_id=999999), 404, "no_such_report")
    refused(eve.delete("/api/mod/sanctions/999999", headers=e), 404, "no_such_sanction")
    assert eve.get("/api/mod/log").json() == before
    assert [r["status"] for r in hal.get("/api/me/reports").json()["reports"]] == ["open"]

    warned = sanction(fay, f, username="eve", reason="rude to a player")  # an admin sanctions a moderator
    assert warned.status_code == 201, warned.text
    refused(eve.delete(f"/api/mod/sanctions/{warned.json()['sanction_id']}", headers=e), 422, "own_account")
    assert sanction(eve, e, report_id=report_id).status_code == 201
    assert [r["status"] for r in hal.get("/api/me/reports").json()["reports"]] == ["acted_on"]
    assert eve.post(f"/api/mod/reports/{other}/close", json={"reason": "nothing there"}, headers=e).status_code == 204
    refused(eve.post(f"/api/mod/reports/{other}/close", json={"reason": "again"}, headers=e), 409, "report_not_open")
    refused(eve.post("/api/mod/reports/999999/close", json={"reason": "x"}, headers=e), 404, "no_such_report")
    assert [r["status"] for r in gus.get("/api/me/reports").json()["reports"]] == ["closed"]
    assert [r["report_id"] for r in eve.get("/api/mod/reports").json()["reports"]] == [second]
    assert eve.post(f"/api/mod/reports/{second}/close", json={"reason": "same"}, headers=e).status_code == 204
    actions = [(x["actor"], x["action"], x["target"]) for x in eve.get("/api/mod/log").json()["entries"][:4]]
    assert actions == [
        ("eve", "close_report", "gus"),
        ("eve", "close_report", "hal"),
        ("eve", "sanction", "gus"),
        ("fay", "sanction", "eve"),
    ]
    for browser in (eve, fay, gus, hal):
        browser.close()


def test_the_queue_shows_the_target_s_account_age_reports_sanctions_and_finished_games(server: Server) -> None:
    ivy, jon, kit = signed_in(server, "ivy"), signed_in(server, "jon"), signed_in(server, "kit")
    mod = moderator(server, "moe")
    finished = []
    for _ in range(2):
        game_id, black, _white = lobby_game(ivy, jon)
        asyncio.run(resign(server.url, game_id, black))
        finished.append(game_id)
    lobby_game(ivy, jon)  # still playing: not among the finished games
    closed = kit.post("/api/reports", json={"username": "jon", "reason": "spam"}, headers=csrf(kit)).json()
    closing = mod.post(f"/api/mod/reports/{closed['report_id']}/close", json={"reason": "fine"}, headers=csrf(mod))
    assert closing.status_code == 204
    warn = {"username": "jon", "kind": "warn", "reason": "be nice"}
    assert mod.post("/api/mod/sanctions", json=warn, headers=csrf(mod)).status_code == 201
    made = ivy.post(
        "/api/reports", json={"username": "jon", "reason": "cheating", "game_id": finished[0]}, headers=csrf(ivy)
    )
    assert made.status_code == 201, made.text

    queue = [r for r in mod.get("/api/mod/reports").json()["reports"] if r["username"] == "jon"]
    assert [r["report_id"] for r in queue] == [made.json()["report_id"]]
    target = queue[0]["target"]
    assert target["created"].endswith("Z")  # the account's creation, ISO 8601
    assert target["reports"] == 2  # the closed one and the open one
    assert [(s["kind"], s["undone"]) for s in target["sanctions"]] == [("warn", False)]
    assert sorted(target["games"]) == sorted(finished)
    left = mod.post(f"/api/mod/reports/{queue[0]['report_id']}/close", json={"reason": "seen"}, headers=csrf(mod))
    assert left.status_code == 204  # the queue empty again for the other tests, in any order
    for browser in (ivy, jon, kit, mod):
        browser.close()
