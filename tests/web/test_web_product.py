"""Issue 51, one product, in the browser: a signed-in player's game from the home page bears its
name, says Casual and is on its profile, which downloads all its games; a rated game's rematch
says Rated; a replay of a resigned game says how it ended, and downloads its record."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
from playwright.sync_api import BrowserContext, Page, expect
from websockets.sync.client import connect

OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""
PASSWORD = "reef-lagoon-coral-7"


def sign_up(page: Page, username: str) -> None:
    """Create an account on the sign-up page (the browser context stays signed in)."""
    page.locator("#username").fill(username)
    page.locator("#password").fill(PASSWORD)
    page.locator("#signup-submit").click()
    page.wait_for_url(re.compile(r"/account$"))


def test_a_signed_in_players_game_from_the_home_page_is_on_its_profile(
    open_page: OpenPage, new_context: Callable[..., BrowserContext], shot: Callable[[Page, str], Path]
) -> None:
    page = open_page("/signup", new_context())
    sign_up(page, "Homeplayer")
    page.goto(page.url.replace("/account", "/"))
    page.wait_for_selector("#start")
    page.get_by_label("Against the computer").check()
    page.locator("#seat").select_option("first")
    page.locator("#start").click()
    page.wait_for_url("**/play/**")
    expect(page.locator(".player.seat0 .player-name")).to_have_text("Homeplayer")  # not "Guest 7416"
    expect(page.get_by_test_id("casual-mark")).to_have_text("Casual")
    shot(page, "issue51-1-home-game-of-an-account")
    game_id = page.url.split("/play/")[1].split("#")[0]
    page.goto(page.url.split("/play/")[0] + "/users/Homeplayer")
    expect(page.locator(f'.profile a[href="/watch/{game_id}"]')).to_be_visible()  # its games list
    link = page.locator("#download-all")
    expect(link).to_have_text("Download all my games")
    assert link.get_attribute("href") == "/api/users/Homeplayer/games.jsonl"
    shot(page, "issue51-1-profile-download-all")


def rated_seats(server: str) -> list[dict[str, Any]]:
    """Two accounts' seats (with their tokens) of a rated correspondence game from the lobby."""
    clients = []
    for name in ("Rematch_a", "Rematch_b"):
        http = httpx.Client(base_url=server, timeout=30)
        assert http.post("/api/accounts", json={"username": name, "password": PASSWORD}).status_code == 201
        assert http.post("/api/session", json={"username": name, "password": PASSWORD}).status_code == 200
        http.headers["X-CSRF-Token"] = http.cookies["csrf"]
        clients.append(http)
    seek = clients[0].post("/api/seeks", json={"clock": {"days": 2}, "rated": True}).json()
    taken = clients[1].post(f"/api/seeks/{seek['seek_id']}/accept").json()
    own = clients[0].get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]}).json()
    for http in clients:
        http.close()
    return [own, taken]


def until(sock: Any, kind: str) -> dict[str, Any]:
    while True:
        message: dict[str, Any] = json.loads(sock.recv(timeout=15))
        if message["type"] == kind:
            return message


def test_the_rematch_of_a_rated_game_says_rated(
    server: str, open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    seats = rated_seats(server)
    ws_url = server.replace("http://", "ws://") + f"/ws/{seats[0]['game_id']}"
    with connect(ws_url) as first, connect(ws_url) as second:
        for sock, seat in ((first, seats[0]), (second, seats[1])):
            sock.send(json.dumps({"type": "hello", "version": None, "token": seat["token"]}))
            until(sock, "sync")
        first.send(json.dumps({"type": "abort", "id": "a"}))
        until(second, "sync")  # the end
        first.send(json.dumps({"type": "rematch", "id": "o"}))
        until(second, "rematch_offered")
        second.send(json.dumps({"type": "rematch", "id": "r"}))
        new_id = until(second, "rematch")["game_id"]
    page = open_page(f"/watch/{new_id}")
    expect(page.get_by_test_id("rated-mark")).to_have_text("Rated")
    expect(page.locator(".player-name").first).to_have_text(re.compile("Rematch_[ab]"))
    shot(page, "issue51-2-rated-rematch")


def test_the_replay_of_a_resigned_game_says_how_it_ended_and_downloads_it(
    server: str, create: Callable[..., dict[str, Any]], open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    game = create(opponent="hotseat", seat="first", name="Quitter")
    with connect(server.replace("http://", "ws://") + f"/ws/{game['game_id']}") as sock:
        sock.send(json.dumps({"type": "hello", "version": None, "token": game["tokens"][0]}))
        until(sock, "sync")
        sock.send(json.dumps({"type": "resign", "id": "r"}))
        until(sock, "sync")  # the end
    page = open_page(f"/replay/{game['game_id']}")
    expect(page.locator(".replay-step")).to_contain_text("Black resigned: White wins.")  # one step: the end
    expect(page.locator(".summary-outcome")).to_have_text("Black resigned: White wins.")
    expect(page.locator(".turn-flag")).to_have_count(0)  # nobody is "to move" in a finished game
    with page.expect_download() as caught:
        page.get_by_test_id("replay-download").locator("a").click()
    assert caught.value.suggested_filename == f"kahuna-{game['game_id']}.json"
    shot(page, "issue51-3-replay-resigned")
    german = open_page(f"/replay/{game['game_id']}", locale="de-DE")
    expect(german.locator(".replay-step")).to_contain_text("Schwarz hat aufgegeben: Weiß gewinnt.")
