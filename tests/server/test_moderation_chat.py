"""The chat sanctions (issue 48) through a real server on SQLite: a shadow mute (the player's lines
accepted and shown to it only, the others' frames and ``sync`` without them, its undo), a hidden
line (a ``chat_hidden`` frame to the connections, gone from ``sync``, shown again on its undo),
a rename (a neutral name at once, the old one signs in, the player chooses once; the undo; both
names reaching a finished game still in memory), and every refusal with nothing changed."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import websockets
from server_harness import Server
from test_accounts import PASSWORD, client, csrf, signed_in
from test_moderation import moderator
from test_moderation_reports import cookie, limited, lobby_game, refused, say, until


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = limited(tmp_path_factory.mktemp("moderation_chat"), "reports_per_address_burst=100")
    yield running
    running.stop()


def sanction(mod: httpx.Client, **body: Any) -> httpx.Response:
    return mod.post("/api/mod/sanctions", json={"reason": "r", **body}, headers=csrf(mod))


def made(answer: httpx.Response) -> int:
    assert answer.status_code == 201, answer.text
    return int(answer.json()["sanction_id"])


async def hello(url: str, browser: httpx.Client | None, token: str | None) -> Any:
    """A connection to the game (a seat's with its token, a spectator's without), after its ``sync``."""
    ws = await websockets.connect(url, additional_headers=cookie(browser) if browser else {})
    await ws.send(json.dumps({"type": "hello", **({"token": token} if token else {})}))
    return ws


async def heard(ws: Any, text: str) -> list[str]:
    """The texts of the chat frames ``ws`` receives up to the line ``text``."""
    texts: list[str] = []
    while not texts or texts[-1] != text:
        texts.append((await asyncio.wait_for(until(ws, "chat"), 10))["text"])
    return texts


async def synced_chat(url: str, browser: httpx.Client | None, token: str | None) -> list[str]:
    """The texts of a fresh connection's ``sync``."""
    async with await hello(url, browser, token) as ws:
        return [line["text"] for line in (await until(ws, "sync"))["chat"]]


def test_a_shadow_muted_player_is_answered_as_ever_and_heard_by_nobody_else(server: Server) -> None:
    ann, bob, cy = signed_in(server, "ann"), signed_in(server, "bob"), signed_in(server, "cy")
    mia = moderator(server, "mia")
    game_id, black, white = lobby_game(ann, bob)
    url = f"{server.ws_url}/ws/{game_id}"

    async def scenario() -> int:
        a, b = await hello(url, ann, black), await hello(url, bob, white)
        c, guest = await hello(url, cy, None), await hello(url, None, None)
        for ws in (a, b, c, guest):
            await until(ws, "sync")
        assert (await say(b, "hi"))["line_id"] == 0
        assert (await until(a, "chat"))["text"] == "hi"
        shadow = made(sanction(mia, username="bob", kind="shadow_mute", minutes=30))
        made(sanction(mia, username="cy", kind="shadow_mute", minutes=30))

        spam = await say(b, "buy gold")  # accepted: its own frame, then its ack, no error
        assert (spam["type"], spam["line_id"]) == ("chat", 1)
        assert (await until(b, "ack"))["id"] == "buy gold"
        await a.send(json.dumps({"type": "chat", "text": "anyone?"}))
        assert await heard(a, "anyone?") == ["anyone?"]  # never "buy gold"
        assert await heard(b, "anyone?") == ["anyone?"]
        assert (await say(c, "spectator spam"))["type"] == "chat"  # the spectators' room, shadowed too
        await guest.send(json.dumps({"type": "chat", "text": "nice game"}))
        assert await heard(guest, "nice game") == ["nice game"]
        assert await heard(c, "nice game") == ["nice game"]

        assert await synced_chat(url, ann, black) == ["hi", "anyone?"]
        assert await synced_chat(url, bob, white) == ["hi", "buy gold", "anyone?"]  # its own, as sent
        assert await synced_chat(url, None, None) == ["nice game"]

        assert mia.delete(f"/api/mod/sanctions/{shadow}", headers=csrf(mia)).status_code == 204
        assert (await say(b, "sorry"))["line_id"] == 5
        assert await heard(a, "sorry") == ["sorry"]  # heard again
        assert await synced_chat(url, ann, black) == ["hi", "anyone?", "sorry"]  # the shadowed line stays unseen
        for ws in (a, b, c, guest):
            await ws.close()
        return shadow

    shadow = asyncio.run(scenario())
    kinds = [(s["kind"], s["undone"]) for s in bob.get("/api/me/sanctions").json()["sanctions"]]
    assert kinds == [("shadow_mute", True)]  # told once it is undone
    assert cy.get("/api/me/sanctions").json() == {"sanctions": []}  # still running: not told
    assert cy.get("/api/me").json()["notices"] == 0
    entries = mia.get("/api/mod/log").json()["entries"]
    assert [(e["action"], e["target"], e["detail"]["kind"]) for e in entries[:3]] == [
        ("undo", "bob", "shadow_mute"),
        ("sanction", "cy", "shadow_mute"),
        ("sanction", "bob", "shadow_mute"),
    ]
    assert entries[2]["detail"]["sanction_id"] == shadow and entries[2]["detail"]["minutes"] == 30
    for browser in (ann, bob, cy, mia):
        browser.close()


def test_a_hidden_line_is_dropped_by_every_connection_and_shown_again_on_undo(server: Server) -> None:
    dan, eli = signed_in(server, "dan"), signed_in(server, "eli")
    mo = moderator(server, "mo")
    game_id, black, white = lobby_game(dan, eli)
    url = f"{server.ws_url}/ws/{game_id}"

    async def scenario() -> int:
        d, e = await hello(url, dan, black), await hello(url, eli, white)
        for ws in (d, e):
            await until(ws, "sync")
        await say(d, "good luck")
        await until(e, "chat")
        assert (await say(e, "you are trash"))["line_id"] == 1
        assert (await until(d, "chat"))["line_id"] == 1
        body = {"username": "eli", "reason": "abuse", "game_id": game_id, "line_id": 1}
        report = dan.post("/api/reports", json=body, headers=csrf(dan)).json()["report_id"]
        queued = mo.get("/api/mod/reports").json()["reports"]
        assert [(r["report_id"], r["context"]["line_id"]) for r in queued] == [(report, 1)]

        hide = made(
            sanction(
                mo, username="eli", kind="hide_line", game_id=game_id, line_id=1, report_id=report, reason="insult"
            )
        )
        for ws in (d, e):
            assert await asyncio.wait_for(until(ws, "chat_hidden"), 10) == {"type": "chat_hidden", "line_id": 1}
        assert await synced_chat(url, dan, black) == ["good luck"]
        assert await synced_chat(url, eli, white) == ["good luck"]  # hidden for its author too
        assert mo.get("/api/mod/reports").json() == {"reports": []}  # acted on

        assert mo.delete(f"/api/mod/sanctions/{hide}", headers=csrf(mo)).status_code == 204
        assert await synced_chat(url, dan, black) == ["good luck", "you are trash"]
        for ws in (d, e):
            await ws.close()
        return hide

    hide = asyncio.run(scenario())
    [notice] = eli.get("/api/me/sanctions").json()["sanctions"]
    assert (notice["kind"], notice["reason"], notice["undone"]) == ("hide_line", "insult", True)
    entries = mo.get("/api/mod/log").json()["entries"][:2]
    assert [(e["action"], e["target"]) for e in entries] == [("undo", "eli"), ("sanction", "eli")]
    assert entries[1]["detail"] == {
        "sanction_id": hide,
        "kind": "hide_line",
        "minutes": None,
        "report_id": entries[1]["detail"]["report_id"],
        "game_id": game_id,
        "line_id": 1,
    }
    for browser in (dan, eli, mo):
        browser.close()


def test_bad_chat_sanctions_are_refused_and_change_nothing(server: Server) -> None:
    fox, gil = signed_in(server, "fox"), signed_in(server, "gil")
    mod = moderator(server, "max")
    game_id, black, white = lobby_game(fox, gil)
    url = f"{server.ws_url}/ws/{game_id}"

    async def lines() -> None:
        f, g = await hello(url, fox, black), await hello(url, gil, white)
        for ws in (f, g):
            await until(ws, "sync")
        await say(f, "from fox")
        await say(g, "from gil")
        await f.close()
        await g.close()

    asyncio.run(lines())
    before = mod.get("/api/mod/log").json()
    line = {"game_id": game_id, "line_id": 1}
    refused(sanction(mod, username="gil", kind="hide_line"), 422, "invalid")  # no line named
    refused(sanction(mod, username="gil", kind="hide_line", line_id=1), 422, "invalid")  # no game
    refused(sanction(mod, username="gil", kind="hide_line", minutes=5, **line), 422, "invalid")
    refused(sanction(mod, username="gil", kind="warn", **line), 422, "invalid")  # only a hide_line names a line
    refused(sanction(mod, username="gil", kind="shadow_mute"), 422, "invalid")  # no minutes
    refused(sanction(mod, username="gil", kind="rename", minutes=5), 422, "invalid")
    refused(sanction(mod, username="gil", kind="hide_line", game_id=game_id, line_id=9), 404, "no_such_line")
    refused(sanction(mod, username="gil", kind="hide_line", game_id="nogame", line_id=0), 404, "no_such_line")
    refused(sanction(mod, username="gil", kind="hide_line", game_id=game_id, line_id=0), 422, "not_their_line")
    refused(sanction(mod, username="gil", kind="hide_line", line_id=-1, game_id=game_id), 422, "invalid")
    assert mod.get("/api/mod/log").json() == before
    assert gil.get("/api/me/sanctions").json() == {"sanctions": []}
    assert asyncio.run(synced_chat(url, fox, black)) == ["from fox", "from gil"]

    first = made(sanction(mod, username="gil", kind="hide_line", **line))
    refused(sanction(mod, username="gil", kind="hide_line", **line), 409, "already_hidden")
    assert mod.delete(f"/api/mod/sanctions/{first}", headers=csrf(mod)).status_code == 204
    again = made(sanction(mod, username="gil", kind="hide_line", **line))  # hidden again after the undo
    assert asyncio.run(synced_chat(url, fox, black)) == ["from fox"]

    appealed = gil.post(f"/api/me/sanctions/{again}/appeal", json={"note": "it was a joke"}, headers=csrf(gil))
    assert appealed.status_code == 201, appealed.text
    other = moderator(server, "max2")  # not the moderator who hid it
    decision = {"decision": "overturned", "reason": "a joke between friends"}
    path = f"/api/mod/appeals/{appealed.json()['appeal_id']}"
    assert other.post(path, json=decision, headers=csrf(other)).status_code == 204
    assert asyncio.run(synced_chat(url, fox, black)) == ["from fox", "from gil"]  # shown again
    for browser in (fox, gil, mod, other):
        browser.close()


def sign_in(server: Server, username: str) -> httpx.Response:
    return client(server).post("/api/session", json={"username": username, "password": PASSWORD})


def test_a_renamed_player_chooses_a_new_name_once(server: Server) -> None:
    rude, taker = signed_in(server, "Stinker"), signed_in(server, "taker")
    mod = moderator(server, "mod1")
    game_id, _black, _white = lobby_game(rude, taker)
    renamed = made(sanction(mod, username="Stinker", kind="rename", reason="offensive name"))
    neutral = f"renamed-{renamed}"
    me = rude.get("/api/me").json()
    assert (me["username"], me["must_rename"]) == (neutral, True)
    assert server.get("/api/users/Stinker").status_code == 404
    assert server.get(f"/api/users/{neutral}").status_code == 200
    assert sorted(server.get(f"/api/games/{game_id}").json()["players"]) == sorted([neutral, "taker"])  # its game too
    assert taker.get("/api/me").json()["must_rename"] is False
    refused(sanction(mod, username=neutral, kind="rename"), 409, "already_renamed")  # it chooses first

    again = sign_in(server, "stinker")  # the next sign-in: the old name still opens the account
    assert again.status_code == 200 and again.json()["username"] == neutral
    assert sign_in(server, neutral).status_code == 200

    def choose(name: str) -> httpx.Response:
        return rude.post("/api/me/name", json={"username": name}, headers=csrf(rude))

    refused(choose("a"), 422, "invalid")
    refused(choose("admin_2"), 422, "invalid")  # reserved words, as at sign-up
    refused(choose("TAKER"), 409, "taken")
    refused(choose("renamed-999"), 409, "taken")  # the moderators' neutral names
    refused(taker.post("/api/me/name", json={"username": "other"}, headers=csrf(taker)), 409, "no_rename")
    assert rude.get("/api/me").json()["username"] == neutral
    assert choose("Gentle").status_code == 204
    me = rude.get("/api/me").json()
    assert (me["username"], me["must_rename"]) == ("Gentle", False)
    refused(choose("Gentler"), 409, "no_rename")  # once
    refused(sign_in(server, "Stinker"), 401, "unauthorized")  # the old name no longer signs in
    assert sign_in(server, "gentle").status_code == 200

    assert mod.delete(f"/api/mod/sanctions/{renamed}", headers=csrf(mod)).status_code == 204
    assert rude.get("/api/me").json()["username"] == "Gentle"  # the undo keeps the name chosen
    [notice] = rude.get("/api/me/sanctions").json()["sanctions"]
    assert (notice["kind"], notice["reason"], notice["undone"]) == ("rename", "offensive name", True)
    entries = mod.get("/api/mod/log").json()["entries"][:3]
    assert [(e["actor"], e["action"], e["target"]) for e in entries] == [
        ("mod1", "undo", "Gentle"),
        ("Gentle", "choose_name", "Gentle"),
        ("mod1", "sanction", "Gentle"),
    ]
    assert entries[0]["detail"]["restored"] is False
    assert (entries[2]["detail"]["old_name"], entries[2]["detail"]["new_name"]) == ("Stinker", neutral)
    for browser in (rude, taker, mod):
        browser.close()


def test_undoing_a_rename_gives_the_old_name_back_only_while_it_is_free(server: Server) -> None:
    one, two = signed_in(server, "Badname"), signed_in(server, "Worse")
    mod = moderator(server, "mod2")
    first = made(sanction(mod, username="Badname", kind="rename"))
    assert mod.delete(f"/api/mod/sanctions/{first}", headers=csrf(mod)).status_code == 204
    me = one.get("/api/me").json()
    assert (me["username"], me["must_rename"]) == ("Badname", False)  # given back

    second = made(sanction(mod, username="Worse", kind="rename"))
    signed_in(server, "worse").close()  # someone took the old name meanwhile
    assert mod.delete(f"/api/mod/sanctions/{second}", headers=csrf(mod)).status_code == 204
    me = two.get("/api/me").json()
    assert (me["username"], me["must_rename"]) == (f"renamed-{second}", True)  # it still chooses
    assert two.post("/api/me/name", json={"username": "Better"}, headers=csrf(two)).status_code == 204
    for browser in (one, two, mod):
        browser.close()


def test_a_rename_reaches_a_finished_game_held_in_memory(server: Server) -> None:
    """A player renamed once its game is over: the game, still in memory, names it anew in
    ``GET /api/games/<id>`` and a fresh connection's ``sync``, and the opponent's connection, open
    all along, gets a ``sync`` with the new name; so again once the player has chosen its own."""
    rude, stayer = signed_in(server, "Sorehead"), signed_in(server, "stayer")
    mod = moderator(server, "mod3")
    game_id, black, white = lobby_game(rude, stayer)
    url = f"{server.ws_url}/ws/{game_id}"
    seat = server.get(f"/api/games/{game_id}").json()["players"].index("Sorehead")
    theirs, mine = ((rude, black), (stayer, white)) if seat == 0 else ((rude, white), (stayer, black))

    def named(name: str) -> list[str]:
        return [name, "stayer"] if seat == 0 else ["stayer", name]

    async def scenario() -> None:
        r, s = await hello(url, *theirs), await hello(url, *mine)
        for ws in (r, s):
            await until(ws, "sync")
        await r.send(json.dumps({"type": "resign", "id": "r"}))
        while (await until(s, "sync"))["status"] != "over":
            pass
        await r.close()

        async def shown(name: str) -> None:
            assert (await asyncio.wait_for(until(s, "sync"), 10))["players"] == named(name)  # open all along
            assert server.get(f"/api/games/{game_id}").json()["players"] == named(name)
            async with await hello(url, None, None) as fresh:
                assert (await until(fresh, "sync"))["players"] == named(name)

        await shown(f"renamed-{made(sanction(mod, username='Sorehead', kind='rename'))}")
        assert rude.post("/api/me/name", json={"username": "Mended"}, headers=csrf(rude)).status_code == 204
        await shown("Mended")
        await s.close()

    asyncio.run(scenario())
    for browser in (rude, stayer, mod):
        browser.close()
