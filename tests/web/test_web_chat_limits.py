"""The chat's limits in Chromium: a player who sends lines faster than the
budget allows is told, in the page's language, how long to wait; and a line typed before the
game's socket is open is shown as not sent yet and sent once it opens."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]


def test_a_player_over_the_chat_budget_is_told_how_long_to_wait(
    create: Callable[..., dict[str, Any]], open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    created = create(opponent="human", seat="first", name="Ana")
    page = open_page(f"/play/{created['game_id']}#{created['token']}", new_context(locale="nl-NL"))
    lines = page.get_by_test_id("chat-lines")
    for n in range(5):  # the burst: five lines at once
        page.locator("#chat-input").fill(f"regel {n}")
        page.locator("#chat-input").press("Enter")
        expect(lines).to_contain_text(f"regel {n}")
        expect(page.get_by_test_id("chat-unsent")).to_have_count(0)  # sent, not only typed
    page.locator("#chat-input").fill("regel 5")
    page.locator("#chat-input").press("Enter")
    expect(page.get_by_test_id("message")).to_contain_text("Te snel: wacht")
    expect(lines).not_to_contain_text("regel 5")


# Holds every WebSocket of the page in CONNECTING (its `open` event kept back, `readyState` 0)
# until the test calls `window.openSockets()`: the moments after a page loads, made to last.
HOLD_SOCKETS = """(() => {
  const Real = window.WebSocket;
  let opened = false;
  const waiting = [];
  window.openSockets = () => { opened = true; waiting.splice(0).forEach((go) => go()); };
  window.WebSocket = function (url, protocols) {
    const socket = new Real(url, protocols);
    let onopen = null;
    socket.addEventListener("open", (event) => {
      const go = () => onopen && onopen.call(socket, event);
      if (opened) go(); else waiting.push(go);
    });
    return new Proxy(socket, {
      get(target, key) {
        if (key === "readyState" && !opened && target.readyState === Real.OPEN) return Real.CONNECTING;
        const value = Reflect.get(target, key);
        return typeof value === "function" ? value.bind(target) : value;
      },
      set(target, key, value) {
        if (key === "onopen") onopen = value; else target[key] = value;
        return true;
      },
    });
  };
  Object.assign(window.WebSocket, { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 });
})();"""


def test_a_line_typed_before_the_socket_opens_is_sent_once_it_does(
    create: Callable[..., dict[str, Any]], new_context: Callable[..., BrowserContext], open_page: OpenPage
) -> None:
    """Before, the line stayed in the field unsent and nothing said why (a page just loaded
    under load: the CI run at ff65836 failed on it)."""
    created = create(opponent="human", seat="first", name="Early")
    context = new_context()
    context.add_init_script(HOLD_SOCKETS)
    page = open_page(f"/play/{created['game_id']}#{created['token']}", context)
    page.locator("#chat-input").fill("first words")
    page.locator("#chat-input").press("Enter")
    unsent = page.get_by_test_id("chat-unsent")
    expect(unsent).to_have_text("first words (not sent yet: waiting for the connection)")
    expect(page.locator("#chat-input")).to_have_value("")
    page.evaluate("window.openSockets()")
    expect(unsent).to_have_count(0)
    expect(page.get_by_test_id("chat-lines")).to_contain_text("first words")
