"""A sanctioned player's notices and appeals (issue 48) through a real server on SQLite: a warning
seen with its reason and acknowledged once; an appeal, once; the sanctioning moderator refused the
decision while another moderates, the other overturning it and the chat mute lifted; the only
moderator deciding the appeal of its own sanction; the refusals, which change nothing; the log."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import loopback
import pytest
import websockets
from server_harness import Server
from test_accounts import csrf, signed_in
from test_moderation import moderator
from test_moderation_reports import cookie, limited, lobby_game, refused, say, until


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = limited(tmp_path_factory.mktemp("appeals"))
    yield running
    running.stop()


def sanction(by: httpx.Client, username: str, kind: str = "warn", reason: str = "r", **more: Any) -> int:
    made = by.post(
        "/api/mod/sanctions", json={"username": username, "kind": kind, "reason": reason, **more}, headers=csrf(by)
    )
    assert made.status_code == 201, made.text
    return int(made.json()["sanction_id"])


def appeal(by: httpx.Client, sanction_id: int, note: str) -> httpx.Response:
    return by.post(f"/api/me/sanctions/{sanction_id}/appeal", json={"note": note}, headers=csrf(by))


def decide(by: httpx.Client, appeal_id: int, decision: str, reason: str) -> httpx.Response:
    return by.post(f"/api/mod/appeals/{appeal_id}", json={"decision": decision, "reason": reason}, headers=csrf(by))


def mine(player: httpx.Client) -> list[dict[str, Any]]:
    return list(player.get("/api/me/sanctions").json()["sanctions"])


def test_a_warned_player_sees_the_notice_with_its_reason_until_acknowledged_and_appeals_once(server: Server) -> None:
    mia, bob = moderator(server, "mia"), signed_in(server, "bob")
    assert bob.get("/api/me").json()["notices"] == 0
    sanction_id = sanction(mia, "bob", reason="spam in the lobby chat")

    assert bob.get("/api/me").json()["notices"] == 1
    listed = bob.get("/api/me/sanctions")
    assert "mia" not in listed.text  # never who sanctioned
    [warning] = listed.json()["sanctions"]
    assert {k: v for k, v in warning.items() if k != "created"} == {
        "sanction_id": sanction_id,
        "kind": "warn",
        "reason": "spam in the lobby chat",
        "expires": None,
        "seconds_left": None,
        "undone": False,
        "seen": False,
        "appeal": None,
    }
    seen = f"/api/me/sanctions/{sanction_id}/seen"
    assert bob.post(seen, headers=csrf(bob)).status_code == 204
    assert bob.post(seen, headers=csrf(bob)).status_code == 204  # again: nothing changes
    assert bob.get("/api/me").json()["notices"] == 0
    assert [s["seen"] for s in mine(bob)] == [True]  # not shown again

    made = appeal(bob, sanction_id, "It was a joke between friends.")
    assert made.status_code == 201, made.text
    appeal_id = made.json()["appeal_id"]
    refused(appeal(bob, sanction_id, "Please!"), 409, "already_appealed")
    [appealed] = mine(bob)
    assert appealed["appeal"]["note"] == "It was a joke between friends."
    assert (appealed["appeal"]["decision"], appealed["appeal"]["reason"]) == (None, None)

    queue = mia.get("/api/mod/appeals").json()["appeals"]
    assert [(a["appeal_id"], a["username"], a["note"]) for a in queue if a["username"] == "bob"] == [
        (appeal_id, "bob", "It was a joke between friends.")
    ]
    [ours] = [a for a in queue if a["username"] == "bob"]
    assert {k: ours["sanction"][k] for k in ("sanction_id", "kind", "reason", "moderator")} == {
        "sanction_id": sanction_id,
        "kind": "warn",
        "reason": "spam in the lobby chat",
        "moderator": "mia",
    }
    [entry] = [e for e in mia.get("/api/mod/log").json()["entries"] if e["action"] == "appeal" and e["actor"] == "bob"]
    assert (entry["target"], entry["reason"]) == ("bob", "It was a joke between friends.")
    assert entry["detail"] == {"sanction_id": sanction_id, "appeal_id": appeal_id}
    for browser in (mia, bob):
        browser.close()


def test_another_moderator_overturns_a_mute_on_appeal_and_the_player_is_heard_again(server: Server) -> None:
    ann, cal = signed_in(server, "ann"), signed_in(server, "cal")
    max_, ned = moderator(server, "max"), moderator(server, "ned")
    game_id, black, white = lobby_game(ann, cal)

    async def scenario() -> None:
        url = f"{server.ws_url}/ws/{game_id}"
        async with (
            websockets.connect(url, additional_headers=cookie(ann)) as a,
            websockets.connect(url, additional_headers=cookie(cal)) as c,
        ):
            for ws, token in ((a, black), (c, white)):
                await ws.send(json.dumps({"type": "hello", "token": token}))
                await until(ws, "sync")
            sanction_id = sanction(max_, "cal", kind="chat_mute", minutes=30, reason="insults")
            assert (await say(c, "hello?"))["code"] == "muted"
            [muted] = mine(cal)
            assert 1790 <= muted["seconds_left"] <= 1800 and muted["kind"] == "chat_mute"

            made = appeal(cal, sanction_id, "I did not insult anyone.")
            assert made.status_code == 201, made.text
            appeal_id = made.json()["appeal_id"]
            refused(decide(max_, appeal_id, "overturned", "mine"), 403, "own_sanction")  # ned moderates too
            assert (await say(c, "hello?"))["code"] == "muted"  # the refusal changed nothing

            assert decide(ned, appeal_id, "overturned", "the line was a quote").status_code == 204
            assert (await say(c, "thank you"))["line_id"] == 0  # the mute lifted: heard again
            refused(decide(ned, appeal_id, "upheld", "again"), 409, "appeal_decided")
            [lifted] = mine(cal)
            assert (lifted["undone"], lifted["seconds_left"]) == (True, None)
            decided = lifted["appeal"]
            assert (decided["decision"], decided["reason"]) == ("overturned", "the line was a quote")
            assert "moderator" not in lifted and "decided_by" not in decided  # never who
            assert appeal_id not in [a["appeal_id"] for a in ned.get("/api/mod/appeals").json()["appeals"]]

            story = [
                (e["actor"], e["action"], e["target"], e["reason"], e["detail"].get("sanction_id"))
                for e in ned.get("/api/mod/log").json()["entries"][:4]
            ]
            assert story == [
                ("ned", "decide_appeal", "cal", "the line was a quote", sanction_id),
                ("ned", "undo", "cal", "the line was a quote", sanction_id),
                ("cal", "appeal", "cal", "I did not insult anyone.", sanction_id),
                ("max", "sanction", "cal", "insults", sanction_id),
            ]

    asyncio.run(scenario())
    for browser in (ann, cal, max_, ned):
        browser.close()


def test_bad_appeals_and_decisions_are_refused_and_change_nothing(server: Server) -> None:
    oz, pia, quinn = moderator(server, "oz"), signed_in(server, "pia"), signed_in(server, "quinn")
    warned = sanction(oz, "pia", reason="rude")
    undone = sanction(oz, "pia", kind="chat_mute", minutes=5, reason="flood")
    assert oz.delete(f"/api/mod/sanctions/{undone}", headers=csrf(oz)).status_code == 204
    before, pia_before = oz.get("/api/mod/log").json(), mine(pia)

    refused(appeal(quinn, warned, "not mine"), 404, "no_such_sanction")  # someone else's
    refused(quinn.post(f"/api/me/sanctions/{warned}/seen", headers=csrf(quinn)), 404, "no_such_sanction")
    refused(appeal(pia, 999999, "what?"), 404, "no_such_sanction")
    refused(appeal(pia, undone, "it is over"), 409, "already_undone")
    refused(appeal(pia, warned, "x" * 501), 422, "note_too_long")
    refused(appeal(pia, warned, ""), 422, "invalid")
    refused(
        pia.post(f"/api/me/sanctions/{warned}/appeal", json={"note": "hi", "extra": 1}, headers=csrf(pia)),
        422,
        "invalid",
    )
    refused(pia.post(f"/api/me/sanctions/{warned}/appeal", json={"note": "no csrf"}), 403, "csrf")
    guest = loopback.get(f"{server.url}/api/me/sanctions", timeout=10)
    assert guest.status_code == 401
    assert mine(pia) == pia_before and oz.get("/api/mod/log").json() == before

    appeal_id = appeal(pia, warned, "I was not rude.").json()["appeal_id"]
    before = oz.get("/api/mod/log").json()
    refused(decide(oz, 999999, "upheld", "x"), 404, "no_such_appeal")
    refused(decide(oz, appeal_id, "maybe", "x"), 422, "invalid")
    refused(decide(oz, appeal_id, "upheld", ""), 422, "invalid")
    nothing = server.get("/api/mod/nothing-here").json()
    as_player = decide(quinn, appeal_id, "overturned", "I say so")  # not a moderator: no such path
    assert (as_player.status_code, as_player.json()) == (404, nothing)
    assert quinn.get("/api/mod/appeals").status_code == 404
    assert oz.get("/api/mod/log").json() == before
    assert mine(pia)[1]["appeal"]["decision"] is None
    for browser in (oz, pia, quinn):
        browser.close()


def test_the_only_moderator_decides_the_appeal_of_its_own_sanction(tmp_path: Path) -> None:
    alone = limited(tmp_path)
    try:
        sol, tim = moderator(alone, "sol"), signed_in(alone, "tim")
        sanction_id = sanction(sol, "tim", reason="offensive name")
        appeal_id = appeal(tim, sanction_id, "It is my real name.").json()["appeal_id"]
        assert decide(sol, appeal_id, "upheld", "it is not").status_code == 204
        [upheld] = mine(tim)
        assert (upheld["undone"], upheld["appeal"]["decision"], upheld["appeal"]["reason"]) == (
            False,
            "upheld",
            "it is not",
        )
        entry = sol.get("/api/mod/log").json()["entries"][0]
        assert (entry["actor"], entry["action"], entry["target"], entry["reason"]) == (
            "sol",
            "decide_appeal",
            "tim",
            "it is not",
        )
        assert entry["detail"] == {"appeal_id": appeal_id, "sanction_id": sanction_id, "decision": "upheld"}
        for browser in (sol, tim):
            browser.close()
    finally:
        alone.stop()
