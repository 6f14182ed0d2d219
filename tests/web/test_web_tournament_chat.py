"""An event's chat (issue 51) in Chromium on the real server: two players of a tournament, each in
a browser of their own on the event's page, see each other's line at once; a visitor who is not
playing reads it with no field to write in."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]
Shot = Callable[[Page, str], Any]
PASSWORD = "reef-lagoon-coral-7"


def sign_up(page: Page, username: str) -> None:
    page.locator("#username").fill(username)
    page.locator("#password").fill(PASSWORD)
    page.locator("#signup-submit").click()
    page.wait_for_url(re.compile(r"/account$"))


def api(page: Page, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """The page's own request (its session and csrf cookie): the answer's JSON, or its status."""
    return page.evaluate(
        """async ([method, path, body]) => {
          const csrf = document.cookie.split("; ").find((c) => c.startsWith("csrf="))?.slice(5);
          const headers = { "Content-Type": "application/json", "X-CSRF-Token": decodeURIComponent(csrf || "") };
          const answer = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
          return answer.ok ? answer.json() : answer.status;
        }""",
        [method, path, body],
    )


def new_swiss(page: Page, name: str) -> str:
    body = {"kind": "swiss", "name": name, "clock": {"initial": 300, "increment": 3}, "rounds": 1, "join": True}
    made = api(page, "POST", "/api/tournaments", body)
    assert isinstance(made, dict), f"POST /api/tournaments answered {made}"  # a status: refused
    return f"/tournaments/{made['tournament_id']}"


def say(page: Page, text: str) -> None:
    page.locator("#tour-chat-input").fill(text)
    page.get_by_test_id("tour-chat").get_by_role("button", name="Send").click()


def test_two_players_see_each_others_line_live(
    open_page: OpenPage, new_context: Callable[..., BrowserContext], shot: Shot
) -> None:
    host = open_page("/signup", new_context())
    sign_up(host, "Ari_chat")
    event = new_swiss(host, "Chat Swiss")
    other = open_page("/signup", new_context())
    sign_up(other, "Lani_chat")
    frames: list[str] = []  # what Lani's page hears on /ws/lobby
    other.on("websocket", lambda ws: ws.on("framereceived", lambda frame: frames.append(str(frame))))
    other.goto(other.url.replace("/account", event))
    other.get_by_test_id("tour-join").click()
    expect(other.get_by_test_id("tour-leave")).to_be_visible()
    host.goto(host.url.replace("/account", event))
    expect(other.locator("#tour-chat-input")).to_be_visible()  # a player writes
    expect(host.locator("#tour-chat-input")).to_be_visible()

    say(host, "Good luck, Lani!")
    lines = other.get_by_test_id("tour-chat-lines")
    expect(lines).to_contain_text("Ari_chat: Good luck, Lani!")  # without a reload
    assert any("tournament_chat" in frame and "Good luck" in frame for frame in frames)  # over the socket
    say(other, "And to you")
    expect(host.get_by_test_id("tour-chat-lines")).to_contain_text("Lani_chat: And to you")
    expect(lines.get_by_test_id("tour-chat-line")).to_have_count(2)
    expect(other.locator("#tour-chat-input")).to_have_value("")
    shot(other, "tourney-chat")

    visitor = open_page(event, new_context())  # a guest reads, and is told who writes
    expect(visitor.get_by_test_id("tour-chat-lines").get_by_test_id("tour-chat-line")).to_have_count(2)
    expect(visitor.locator("#tour-chat-input")).to_be_hidden()
    expect(visitor.get_by_test_id("tour-chat-note")).to_have_text("Sign in and join the tournament to write here.")
    assert api(visitor, "GET", f"/api{event}/chat")["lines"][0]["username"] == "Ari_chat"
