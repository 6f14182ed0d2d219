"""The browser across an instance going away: an action sent just as its server closes the socket
with 1001 *going away* (docs/deploy.md, *Upgrading without stopping play*) is never answered; the
page reconnects, is caught up by a ``sync`` at the same version, and the player plays on.

Before, the page kept waiting for the answer to that action for ever: the sync did not clear it,
so the board stayed busy ("sending") and refused every click until the page was reloaded.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""

MY_TURN = """() => {
  const g = document.querySelector('.game');
  return g && g.dataset.turn === 'mine' && g.dataset.busy === 'false';
}"""


def _create(server: str, **body: object) -> dict[str, Any]:
    request = urllib.request.Request(
        server + "/api/games", json.dumps(body).encode(), {"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        game: dict[str, Any] = json.loads(answer.read())
        return game


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


def test_an_action_lost_with_a_going_away_socket_leaves_the_page_playable(server: str, open_page: OpenPage) -> None:
    game = _create(server, opponent="ai", level="easy", seat="first", name="Mover")
    sockets: list[WebSocketRoute] = []
    dropped: list[str] = []

    def route(ws: WebSocketRoute) -> None:
        """The first socket loses the first action and is closed going away, as by an instance
        being replaced; the later ones pass everything through."""
        upstream = ws.connect_to_server()
        sockets.append(ws)
        first = len(sockets) == 1

        def from_page(message: str | bytes) -> None:
            if first and isinstance(message, str) and json.loads(message)["type"] == "action":
                dropped.append(message)
                ws.close(code=1001, reason="going away")
                return
            upstream.send(message)

        ws.on_message(from_page)
        upstream.on_message(ws.send)

    page = open_page("/", reduced_motion=True)
    page.route_web_socket(f"**/ws/{game['game_id']}", route)
    page.goto(f"{server}/play/{game['game_id']}#{game['token']}")
    page.wait_for_function(MY_TURN)
    _build(page)
    expect(page.locator(".game")).to_have_attribute("data-version", "0")
    for _ in range(200):  # the page opens a new socket 0.5 s after the close
        if len(sockets) >= 2:
            break
        page.wait_for_timeout(50)
    assert len(dropped) == 1 and len(sockets) >= 2
    expect(page.locator('[data-testid="message"]')).to_be_empty()  # no longer "reconnecting"
    page.wait_for_function(MY_TURN)  # caught up, and free to act again
    line = _build(page)
    expect(page.locator(f'.board .bridge[data-line="{line}"][data-owner="0"]')).to_have_count(1)
