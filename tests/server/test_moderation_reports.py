"""Reports (issue 48) through a real server on SQLite: a report of a chat line stores the line and
the lines around it, a report of a game or a profile; every refusal with its code, nothing stored
by one (a guest opponent's name among them, and the accounts the server runs); the reporter's list
with the status; a player renamed by a moderator after its game reported from that game by its
seat, as the game page does; the budgets per account and per address."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from server_harness import Server
from test_accounts import csrf, signed_in

from kahuna.bench.lobby import CLOCK
from kahuna.cli import main


def limited(tmp: Path, *limits: str) -> Server:
    every = ("signups_burst=100", "logins_burst=100", *limits)
    return Server(tmp, args=tuple(part for limit in every for part in ("--limit", limit))).start()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = limited(
        tmp_path_factory.mktemp("reports"), "reports_per_account_burst=100", "reports_per_address_burst=100"
    )
    yield running
    running.stop()


def refused(answer: httpx.Response, status: int, code: str) -> None:
    assert answer.status_code == status, answer.text
    assert answer.json()["error"] == code, answer.text


def cookie(browser: httpx.Client) -> dict[str, str]:
    return {"Cookie": f"session={browser.cookies['session']}"}


def lobby_game(first: httpx.Client, second: httpx.Client) -> tuple[str, str, str]:
    """A casual lobby game between two signed-in browsers: its id and the seat tokens of both."""
    seek = first.post("/api/seeks", json={"clock": CLOCK}, headers=csrf(first)).json()
    taken = second.post(f"/api/seeks/{seek['seek_id']}/accept", json={}, headers=csrf(second)).json()
    own = first.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]}).json()
    return str(taken["game_id"]), str(own["token"]), str(taken["token"])


async def until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == kind:
            return dict(message)


async def say(ws: Any, text: str) -> dict[str, Any]:
    """Send a chat line; the answer to it: its own ``chat`` frame (then its ``ack``), or an ``error``."""
    await ws.send(json.dumps({"type": "chat", "text": text, "id": text}))
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "error" or (message["type"] == "chat" and message["text"] == text):
            return dict(message)


def talk(
    server: Server, game_id: str, seats: list[tuple[httpx.Client, str]], lines: list[tuple[int, str]]
) -> list[int]:
    """Both players connect to the game; each ``(seat, text)`` is said in turn; the lines' ids."""

    async def scenario() -> list[int]:
        url = f"{server.ws_url}/ws/{game_id}"
        async with (
            websockets.connect(url, additional_headers=cookie(seats[0][0])) as one,
            websockets.connect(url, additional_headers=cookie(seats[1][0])) as two,
        ):
            sockets = [one, two]
            for ws, (_, token) in zip(sockets, seats, strict=True):
                await ws.send(json.dumps({"type": "hello", "token": token}))
                await until(ws, "sync")
            ids = []
            for seat, text in lines:
                line = await say(sockets[seat], text)
                assert line["type"] == "chat", line
                ids.append(int(line["line_id"]))
            return ids

    return asyncio.run(scenario())


def test_a_chat_line_reported_keeps_the_lines_around_it(server: Server) -> None:
    ada, bea = signed_in(server, "ada"), signed_in(server, "bea")
    game_id, black, white = lobby_game(ada, bea)
    said = [(1, "hi"), (0, "hello"), (1, "you are a fool"), (0, "pardon?"), (1, "bye")]
    ids = talk(server, game_id, [(ada, black), (bea, white)], said)
    assert ids == [0, 1, 2, 3, 4]
    body = {"username": "bea", "reason": "abuse", "note": "insults", "game_id": game_id, "line_id": 2}
    made = ada.post("/api/reports", json=body, headers=csrf(ada))
    assert made.status_code == 201, made.text
    assert set(made.json()) == {"report_id"}
    mine = ada.get("/api/me/reports").json()["reports"]
    assert [(r["report_id"], r["username"], r["reason"], r["status"]) for r in mine] == [
        (made.json()["report_id"], "bea", "abuse", "open")
    ]
    assert set(mine[0]) == {"report_id", "username", "reason", "status", "created"}
    assert bea.get("/api/me/reports").json() == {"reports": []}  # a report is its reporter's to see
    again = {**body, "line_id": 4}
    refused(ada.post("/api/reports", json=again, headers=csrf(ada)), 409, "already_reported")
    for browser in (ada, bea):
        browser.close()


def test_bad_reports_are_refused_and_store_nothing(server: Server) -> None:
    cid, dee, eli = signed_in(server, "cid"), signed_in(server, "dee"), signed_in(server, "eli")
    game_id, black, white = lobby_game(cid, dee)
    talk(server, game_id, [(cid, black), (dee, white)], [(0, "gl"), (1, "hf")])  # lines 0 (cid), 1 (dee)
    h = csrf(cid)

    def report(**body: Any) -> httpx.Response:
        return cid.post("/api/reports", json={"username": "dee", "reason": "abuse", **body}, headers=h)

    refused(server.post("/api/reports", {"username": "dee", "reason": "spam"}), 401, "unauthorized")
    refused(cid.post("/api/reports", json={"username": "dee", "reason": "spam"}), 403, "csrf")
    refused(report(username="cid"), 422, "own_account")
    refused(report(username="nobody"), 404, "not_found")
    refused(report(reason="ugly"), 422, "invalid")
    refused(report(note="x" * 501), 422, "note_too_long")
    refused(report(username="eli", game_id=game_id), 422, "not_in_game")  # eli did not play it
    refused(report(game_id="nosuchgame"), 422, "not_in_game")
    refused(report(line_id=1), 422, "invalid")  # a line needs its game
    refused(report(game_id=game_id, line_id=0), 422, "not_their_line")  # cid's own line
    refused(report(game_id=game_id, line_id=7), 404, "no_such_line")
    players = server.get(f"/api/games/{game_id}").json()["players"]
    own, theirs = players.index("cid"), players.index("dee")

    def by_seat(**body: Any) -> httpx.Response:
        return cid.post("/api/reports", json={"reason": "abuse", "game_id": game_id, **body}, headers=h)

    refused(by_seat(seat=own), 422, "own_account")
    refused(by_seat(seat=theirs, line_id=0), 422, "not_their_line")
    refused(by_seat(seat=theirs, game_id="nosuchgame"), 404, "not_found")  # no account plays it
    refused(by_seat(seat=theirs, username="dee"), 422, "invalid")  # the player once, not twice
    refused(by_seat(), 422, "invalid")  # nobody named
    refused(by_seat(seat=theirs, game_id=None), 422, "invalid")  # a seat needs its game
    refused(by_seat(seat=2), 422, "invalid")
    assert cid.get("/api/me/reports").json() == {"reports": []}
    assert report(note="x" * 500, reason="spam").status_code == 201  # 500 characters are allowed
    made = report(username="eli", reason="offensive_name")  # from a profile: no game
    assert made.status_code == 201, made.text
    listed = [(r["username"], r["reason"]) for r in cid.get("/api/me/reports").json()["reports"]]
    assert listed == [("eli", "offensive_name"), ("dee", "spam")]  # the newest first
    for browser in (cid, dee, eli):
        browser.close()


def test_a_guest_opponent_has_no_account_to_report(server: Server) -> None:
    """A guest who took the invitation of a signed-in player's game is refused as a target (its
    name is no account's, or the account of its name did not play the game), and the game's
    ratings say its seat has no account: what the game page offers "Report opponent" from."""
    fay, hal = signed_in(server, "fay"), signed_in(server, "hal")
    for guest_name, status, code in (("gus", 404, "not_found"), ("hal", 422, "not_in_game")):
        made = fay.post("/api/games", json={"opponent": "human", "seat": "first"}, headers=csrf(fay)).json()
        invite = made["invite_url"].rsplit("/", 1)[1]
        joined = server.post(f"/api/join/{invite}", {"name": guest_name})  # no session: a guest
        assert joined.status_code == 200, joined.text
        game_id = made["game_id"]
        body = {"username": guest_name, "reason": "abuse", "game_id": game_id}
        refused(fay.post("/api/reports", json=body, headers=csrf(fay)), status, code)
        by_seat = {"seat": 1, "reason": "abuse", "game_id": game_id}  # as the game page would send it
        refused(fay.post("/api/reports", json=by_seat, headers=csrf(fay)), 404, "not_found")
        seats = server.get(f"/api/games/{game_id}/ratings").json()["players"]
        assert [seat["account"] for seat in seats] == [True, False]
    assert fay.get("/api/me/reports").json() == {"reports": []}
    for browser in (fay, hal):
        browser.close()


def test_a_bot_account_does_not_report(server: Server) -> None:
    fox = signed_in(server, "fox")
    signed_in(server, "gil").close()
    assert fox.post("/api/me/bot", headers=csrf(fox)).status_code == 200
    refused(fox.post("/api/reports", json={"username": "gil", "reason": "spam"}, headers=csrf(fox)), 403, "bot_account")
    refused(fox.post("/api/reports", json={"username": "fox", "reason": "spam"}, headers=csrf(fox)), 403, "bot_account")
    fox.close()


def test_the_accounts_the_server_runs_cannot_be_reported(server: Server) -> None:
    """The site's own account (``kahuna``, by any spelling) and an AI level's (from its profile or
    from a lobby game against it) are refused ``server_account``, nothing stored: nobody stands behind
    them for a moderator to act on. Their profiles say so (the page's "Report this player" follows);
    an online bot, a person's account turned into a program, is reported like anyone."""
    ivy, kit = signed_in(server, "ivy"), signed_in(server, "kit")
    challenge = {"opponent": "ai-easy", "clock": CLOCK, "rated": False}
    game = ivy.post("/api/challenges", json=challenge, headers=csrf(ivy))
    assert game.status_code == 201 and game.json()["status"] == "accepted", game.text
    game_id = game.json()["game_id"]
    assert [seat["account"] for seat in server.get(f"/api/games/{game_id}/ratings").json()["players"]] == [True] * 2
    ai_seat = server.get(f"/api/games/{game_id}").json()["players"].index("ai-easy")
    for body in (
        {"username": "kahuna", "reason": "spam"},
        {"username": "KAHUNA", "reason": "offensive_name"},
        {"username": "ai-easy", "reason": "other"},
        {"username": "ai-easy", "reason": "abuse", "game_id": game_id},
        {"seat": ai_seat, "reason": "abuse", "game_id": game_id},
    ):
        refused(ivy.post("/api/reports", json=body, headers=csrf(ivy)), 422, "server_account")
    assert ivy.get("/api/me/reports").json() == {"reports": []}
    assert [server.get(f"/api/users/{name}").json()["reportable"] for name in ("kahuna", "ai-easy", "ivy")] == [
        False,
        False,
        True,
    ]
    assert kit.post("/api/me/bot", headers=csrf(kit)).status_code == 200
    assert server.get("/api/users/kit").json()["reportable"]
    made = ivy.post("/api/reports", json={"username": "kit", "reason": "offensive_name"}, headers=csrf(ivy))
    assert made.status_code == 201, made.text
    for browser in (ivy, kit):
        browser.close()


def test_a_renamed_opponent_is_reported_from_the_game_by_its_seat(server: Server) -> None:
    """A moderator renames a player once its game is over; its opponent, still on the game, reports
    it as the game page does: by the seat (the page shows the name the game was played under, no
    account's any more), the game and the line. The report is stored against the renamed account,
    and again once the player has chosen its own name."""
    amy, rude = signed_in(server, "amy"), signed_in(server, "Rotter")
    mod = signed_in(server, "mod_rn")
    assert main(["admin", "grant", "mod_rn", "moderator", "--db", server.db]) == 0
    game_id, amy_token, rude_token = lobby_game(amy, rude)
    seat = server.get(f"/api/games/{game_id}").json()["players"].index("Rotter")

    async def play() -> int:
        """Rotter insults Amy and resigns, Amy's page seeing the end; the line's id."""
        url = f"{server.ws_url}/ws/{game_id}"
        async with (
            websockets.connect(url, additional_headers=cookie(amy)) as mine,
            websockets.connect(url, additional_headers=cookie(rude)) as theirs,
        ):
            for ws, token in ((mine, amy_token), (theirs, rude_token)):
                await ws.send(json.dumps({"type": "hello", "token": token}))
                await until(ws, "sync")
            line = await say(theirs, "you are a fool")
            await theirs.send(json.dumps({"type": "resign", "id": "r"}))
            while (await until(mine, "sync"))["status"] != "over":
                pass
            return int(line["line_id"])

    line_id = asyncio.run(play())
    renamed = mod.post(
        "/api/mod/sanctions", json={"username": "Rotter", "kind": "rename", "reason": "offensive"}, headers=csrf(mod)
    )
    assert renamed.status_code == 201, renamed.text
    neutral = f"renamed-{renamed.json()['sanction_id']}"
    # What the page reads before it offers "Report opponent": an account plays the seat.
    assert server.get(f"/api/games/{game_id}/ratings").json()["players"][seat]["account"] is True

    def report(**body: Any) -> httpx.Response:
        return amy.post("/api/reports", json={"seat": seat, "game_id": game_id, **body}, headers=csrf(amy))

    made = report(reason="offensive_name")  # "Report opponent": the game, no line
    assert made.status_code == 201, made.text
    assert [(r["username"], r["reason"]) for r in amy.get("/api/me/reports").json()["reports"]] == [
        (neutral, "offensive_name")
    ]
    [queued] = [r for r in mod.get("/api/mod/reports").json()["reports"] if r["reporter"] == "amy"]
    assert (queued["username"], queued["context"]) == (neutral, {"game_id": game_id, "seats": [seat]})

    assert rude.post("/api/me/name", json={"username": "Polite"}, headers=csrf(rude)).status_code == 204
    refused(report(reason="abuse", line_id=line_id), 409, "already_reported")  # the same account
    closing = mod.post(f"/api/mod/reports/{queued['report_id']}/close", json={"reason": "renamed"}, headers=csrf(mod))
    assert closing.status_code == 204, closing.text
    made = report(reason="abuse", line_id=line_id)  # a chat line's "Report"
    assert made.status_code == 201, made.text
    [queued] = [r for r in mod.get("/api/mod/reports").json()["reports"] if r["reporter"] == "amy"]
    assert (queued["username"], queued["context"]["line_id"], queued["context"]["seats"]) == ("Polite", line_id, [seat])
    [line] = [line for line in queued["context"]["lines"] if line["line_id"] == line_id]
    assert (line["username"], line["text"]) == ("Polite", "you are a fool")
    for browser in (amy, rude, mod):
        browser.close()


def test_a_flood_of_reports_is_refused_per_account_and_per_address(tmp_path: Path) -> None:
    small = limited(tmp_path, "reports_per_account_burst=2", "reports_per_address_burst=3")
    try:
        hal, ian = signed_in(small, "hal"), signed_in(small, "ian")
        for name in ("jo", "kai", "lou"):
            signed_in(small, name).close()

        def report(browser: httpx.Client, name: str) -> httpx.Response:
            return browser.post("/api/reports", json={"username": name, "reason": "spam"}, headers=csrf(browser))

        assert [report(hal, name).status_code for name in ("jo", "kai")] == [201, 201]
        flood = report(hal, "lou")
        refused(flood, 429, "rate_limited")  # hal's own budget of 2
        assert flood.json()["retry_after"] > 0
        assert report(ian, "jo").status_code == 201  # the address's third
        refused(report(ian, "kai"), 429, "rate_limited")  # the address's budget of 3
        assert [r["username"] for r in hal.get("/api/me/reports").json()["reports"]] == ["kai", "jo"]
        assert [r["username"] for r in ian.get("/api/me/reports").json()["reports"]] == ["jo"]
        hal.close()
        ian.close()
    finally:
        small.stop()
