"""Screen-reader mode (issue 53, kahuna/web/js/reader.js) in Chromium against the AI: switched on
from the game page's settings and remembered over a reload; the game in words (whose turn, the
points, the hand, the display, every island with its stone, bridges by owner and free lines); the
seat's actions as buttons grouped by kind, exactly the server's legal actions; a build chosen from
the list by keyboard, announced in words, then the AI's reply announced too; read in German."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import Page, expect
from websockets.sync.client import connect

OpenPage = Callable[..., Page]

MINE = """() => {
  const g = document.querySelector(".game");
  return !!g && g.dataset.turn === "mine" && g.dataset.busy === "false";
}"""


# Keep every sentence the game's live announcer says (window.__said), as a screen reader hears them.
LISTEN = """() => {
  window.__said = [];
  const announcer = document.querySelector(".log p[aria-live]");
  const hear = () => window.__said.push(announcer.textContent);
  new MutationObserver(hear).observe(announcer, { childList: true, characterData: true, subtree: true });
}"""


def legal_now(base: str, game_id: str, token: str) -> list[str]:
    """The seat's legal actions as the server lists them to a connection of its own."""
    with connect(base.replace("http://", "ws://") + f"/ws/{game_id}") as ws:
        ws.send(json.dumps({"type": "hello", "token": token}))
        while (message := json.loads(ws.recv(timeout=10)))["type"] != "sync":
            pass
    legal: list[str] = message["legal"]
    return legal


def test_the_game_in_words_and_its_actions_by_keyboard(
    server: str, create: Callable[..., dict[str, Any]], open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    game = create(opponent="ai", level="easy", seat="first", name="Reader")
    page = open_page(f"/play/{game['game_id']}#{game['token']}", reduced_motion=True)
    page.wait_for_function(MINE)
    reader = page.get_by_test_id("reader")
    expect(reader).to_be_hidden()  # off by default
    page.locator("#reader-mode").check()
    expect(reader.get_by_role("heading", name="The game in words")).to_be_visible()
    page.reload()  # remembered in this browser
    page.wait_for_function(MINE)
    expect(page.locator("#reader-mode")).to_be_checked()
    expect(reader.get_by_test_id("reader-status")).to_have_text("Black to move. Points: Black 0, White 0.")
    islands = reader.get_by_test_id("reader-islands").locator("li")
    expect(islands).to_have_count(12)
    expect(islands.first).to_have_text(re.compile(r"^ALOA, 3 lines, 2 bridges to control it: no stone\. .*Free lines"))
    expect(reader.get_by_role("heading", name="Your hand")).to_be_visible()

    # The lists are the server's legal actions, grouped by kind, each worded as the log words it.
    legal = legal_now(server, game["game_id"], game["token"])
    buttons = reader.locator("button.reader-act")
    expect(buttons).to_have_count(len(legal))
    assert sorted(buttons.evaluate_all("els => els.map((e) => e.dataset.token)")) == sorted(legal)
    kinds = reader.locator("h4").all_inner_texts()
    assert kinds[0] == "Build" and "Draw" in kinds, kinds
    build = reader.locator("button.reader-act").first
    token = build.get_attribute("data-token") or ""
    assert re.fullmatch(r"[A-L]>[A-L]", token), token
    words = build.inner_text()
    assert words.startswith("Black builds "), words

    # Chosen by keyboard: the build is played, announced in words, and the islands say so.
    page.evaluate(LISTEN)
    build.focus()
    page.keyboard.press("Enter")
    page.wait_for_function("(words) => window.__said.includes(words)", arg=words)
    line = "".join(sorted(token[0] + token[2]))
    expect(page.locator(f'.board .bridge[data-line="{line}"][data-owner="0"]')).to_have_count(1)
    one, other = words.split()[2].split("–")  # "Black builds ALOA–BARI with ALOA."
    island = reader.get_by_test_id("reader-islands").locator("li").filter(has_text=re.compile(f"^{one},"))
    expect(island).to_contain_text(f"Black's bridges to {other}.")

    # The turn goes on by the lists: draw from the deck; then the AI's turn is announced in words.
    page.wait_for_function(MINE)  # the build applied: the page takes the next action
    reader.locator('button.reader-act[data-token="d?"]').focus()
    page.keyboard.press("Enter")
    page.wait_for_function("() => window.__said.some((s) => s.startsWith('White '))", timeout=30000)
    page.wait_for_function(MINE)
    shot(page, "a11y-reader-1280x800")

    page.locator("#language").select_option("de")
    expect(reader.get_by_role("heading", name="Die Partie in Worten")).to_be_visible()
    expect(reader.get_by_test_id("reader-status")).to_contain_text("Schwarz ist am Zug.")
    expect(reader.get_by_role("heading", name="Bauen")).to_be_visible()
