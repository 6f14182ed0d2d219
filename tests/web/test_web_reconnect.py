"""The browser across an instance going away (docs/deploy.md, *Upgrading without stopping play*):
an action sent just as its server closes the socket with 1001 *going away* is never answered; the
page reconnects, is caught up by a ``sync`` at the same version, and the player plays on. And the
tournament page opens its lobby socket again.

Before, the page kept waiting for the answer to that action for ever: the sync did not clear it,
so the board stayed busy ("sending") and refused every click until the page was reloaded.
"""

from __future__ import annotations

import importlib
import json
import re
from collections.abc import Callable
from typing import Any, cast

from playwright.sync_api import BrowserContext, Page, WebSocketRoute, expect

OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""
pump_until = cast(Callable[..., None], importlib.import_module("web_watched").pump_until)

MY_TURN = """() => {
  const g = document.querySelector('.game');
  return g && g.dataset.turn === 'mine' && g.dataset.busy === 'false';
}"""


def _build(page: Page) -> str:
    """Select hand cards until one lights up a line and click it; the line."""
    cards = page.locator(".hand-row button.card")
    for i in range(cards.count()):
        card = cards.nth(i)
        card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
        pick = page.locator(".pick.build").first
        if pick.count():
            line = pick.get_attribute("data-line") or ""
            pick.click()
            return line
        card.click()
    raise AssertionError("no card could build")


def test_an_action_lost_with_a_going_away_socket_leaves_the_page_playable(
    server: str, create: Callable[..., dict[str, Any]], open_page: OpenPage
) -> None:
    game = create(opponent="ai", level="easy", seat="first", name="Mover")
    sockets: list[WebSocketRoute] = []
    dropped: list[str] = []
    hellos: list[dict[str, Any]] = []
    updates: list[dict[str, Any]] = []

    def route(ws: WebSocketRoute) -> None:
        """The first socket loses the first action and is closed going away, as by an instance
        being replaced; the later ones pass everything through."""
        upstream = ws.connect_to_server()
        sockets.append(ws)
        first = len(sockets) == 1

        def from_page(message: str | bytes) -> None:
            sent = json.loads(message) if isinstance(message, str) else {}
            if sent.get("type") == "hello":
                hellos.append(sent)
            if first and sent.get("type") == "action":
                dropped.append(str(message))
                ws.close(code=1001, reason="going away")
                return
            upstream.send(message)

        def from_server(message: str | bytes) -> None:
            got = json.loads(message) if isinstance(message, str) else {}
            if got.get("type") == "update":
                updates.append(got)
            ws.send(message)

        ws.on_message(from_page)
        upstream.on_message(from_server)

    page = open_page("/", reduced_motion=True)
    page.route_web_socket(f"**/ws/{game['game_id']}", route)
    page.goto(f"{server}/play/{game['game_id']}#{game['token']}")
    page.wait_for_function(MY_TURN)
    _build(page)
    expect(page.locator(".game")).to_have_attribute("data-version", "0")
    pump_until(page, lambda: len(sockets) >= 2, "the second socket")  # the page opens it 0.5 s after the close
    assert len(dropped) == 1
    expect(page.locator('[data-testid="message"]')).to_be_empty()  # no longer "reconnecting"
    page.wait_for_function(MY_TURN)  # caught up, and free to act again
    line = _build(page)
    expect(page.locator(f'.board .bridge[data-line="{line}"][data-owner="0"]')).to_have_count(1)
    # the page speaks protocol 3 on each socket: its updates carry neither the view nor protocol 2's
    # changes
    assert [h["protocol"] for h in hellos] == [3] * len(sockets) and hellos[-1]["version"] == 0
    assert updates and all("changed" not in u and "view" not in u for u in updates)


def test_the_tournament_page_connects_its_lobby_socket_again_after_a_going_away_close(
    open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    """The tournament page learns of its player's new game from ``/ws/lobby``: closed going away,
    that socket is opened again (before, the page fell back on its refresh every 3 s for good)."""
    sockets: list[WebSocketRoute] = []

    def route(ws: WebSocketRoute) -> None:
        ws.connect_to_server()  # everything passes through
        sockets.append(ws)

    page = open_page("/signup", new_context())
    page.locator("#username").fill("Rua_reconnect")
    page.locator("#password").fill("reef-lagoon-coral-7")
    page.locator("#signup-submit").click()
    page.wait_for_url(re.compile(r"/account$"))
    page.goto(page.url.replace("/account", "/tournaments"))
    page.locator("#tour-name").fill("Across an upgrade")
    page.locator("#tour-rounds").fill("1")
    page.route_web_socket("**/ws/lobby", route)
    page.locator("#tour-name").press("Enter")
    page.wait_for_url(re.compile(r"/tournaments/[\w-]+$"))
    expect(page.locator("h1")).to_have_text("Across an upgrade")
    pump_until(page, lambda: len(sockets) >= 1, "the lobby socket")
    sockets[-1].close(code=1001, reason="going away")
    pump_until(page, lambda: len(sockets) >= 2, "the lobby socket again")  # 2 s later
