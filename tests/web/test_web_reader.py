"""Screen-reader mode (issue 53, kahuna/web/js/reader.js) in Chromium against the AI: switched on
from the game page's settings and remembered over a reload; the game in words (whose turn, the
points, the hand, the display, every island with its stone, bridges by owner and free lines); the
seat's actions as buttons grouped by kind, exactly the server's legal actions; a build chosen from
the list by keyboard, announced in words, then the AI's reply announced too; read in German."""

from __future__ import annotations

import importlib
import json
import random
import re
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect
from websockets.sync.client import ClientConnection, connect

OpenPage = Callable[..., Page]
post_json = importlib.import_module("web_serving").post_json
BOARD = Path(__file__).resolve().parents[2] / "kahuna" / "rules" / "board.json"

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
    game = create(opponent="ai", level="easy", seat="first", name="Reader", clock={"initial": 300, "increment": 0})
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

    # The clocks in words, on request (a button of the mode), in its live region.
    reader.get_by_role("button", name="Read the clocks").focus()
    page.keyboard.press("Enter")
    clocks = re.compile(r"^Black: (5 minutes|4 minutes( \d+ seconds?)?) left, running\. White: 5 minutes left\.$")
    expect(reader.get_by_test_id("reader-said")).to_have_text(clocks)
    print(f"the clocks read: {reader.get_by_test_id('reader-said').inner_text()}")

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
    page.wait_for_function("(words) => window.__said.some((s) => s.startsWith(words))", arg=words)
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


class Seat:
    """One seat of a game driven over the WebSocket protocol (no browser): its latest state."""

    def __init__(self, ws: ClientConnection, token: str) -> None:
        self.ws = ws
        self.ws.send(json.dumps({"type": "hello", "version": None, "token": token}))
        self.last = self.until(lambda m: m["type"] == "sync")

    def until(self, wanted: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            message: dict[str, Any] = json.loads(self.ws.recv(timeout=15))
            if message["type"] in ("sync", "update"):
                self.last = message
            if wanted(message):
                return message

    def reach(self, version: int) -> None:
        if self.last["version"] < version:
            self.until(lambda m: m["type"] in ("sync", "update") and m["version"] >= version)

    def foresee(self) -> dict[str, Any]:
        self.ws.send(json.dumps({"type": "foresee", "version": self.last["version"], "id": "f"}))
        return self.until(lambda m: m["type"] == "foreseen")

    def play(self, token: str) -> None:
        version = self.last["version"]
        self.ws.send(json.dumps({"type": "action", "action": token, "version": version, "id": "a"}))
        self.reach(version + 1)


def to_a_foreseen_claim(base: str, game_id: str, tokens: list[str], rng: random.Random) -> tuple[int, str, list[Any]]:
    """Play both seats (a random build, then a draw, else whatever ends the turn) until the seat to
    move has an action the referee foresees claiming an island and costing the other seat a stone
    or a bridge (or, after 30 turns, any claim); its seat, token and foreseen events."""
    url = base.replace("http://", "ws://") + f"/ws/{game_id}"
    with ExitStack() as stack:
        seats = [Seat(stack.enter_context(connect(url)), token) for token in tokens]
        for turn in range(200):
            mover = seats[seats[0].last["view"]["to_move"]]
            mover.reach(seats[0].last["version"])
            found = mover.foresee()["actions"]
            claims = {k: v for k, v in found.items() if any(e["type"] == "island_claimed" for e in v)}
            costly = {k: v for k, v in claims.items() if any(e["type"] in ("stone_lost", "bridge_returned") for e in v)}
            best = costly or (claims if turn >= 30 else {})
            if best:
                token = max(best, key=lambda k: (len(best[k]), k))
                return mover.last["view"]["to_move"], token, best[token]
            legal = mover.last["legal"]
            builds = [k for k in legal if ">" in k]
            if builds:
                mover.play(builds[rng.randrange(len(builds))])
            legal = mover.last["legal"]
            ends = [k for k in ("d?", *sorted(k for k in legal if k[0] == "d"), "pass", "end") if k in legal]
            mover.play(ends[0] if ends else sorted(legal)[0])
            for seat in seats:
                seat.reach(mover.last["version"])
    raise AssertionError("no claim foreseen in 200 turns")


NAMES = {island["letter"]: island["name"] for island in json.loads(BOARD.read_text())["islands"]}
COLOURS = ("Black", "White")


def consequence_words(event: dict[str, Any]) -> str:
    """The words reader.js gives a foreseen event, in English (the claim and what it costs)."""
    line = "–".join(NAMES[x] for x in event.get("line", ""))
    if event["type"] == "island_claimed":
        return f"wins the majority on {NAMES[event['island']]}"
    if event["type"] == "bridge_returned":
        return f"{COLOURS[event['owner']]}'s bridge {line} returned"
    if event["type"] == "stone_lost":
        return f"{COLOURS[event['owner']]}'s stone on {NAMES[event['island']]} lost"
    raise AssertionError(f"not expected here: {event}")


def test_between_two_browsers_each_action_is_read_with_its_consequence(
    server: str,
    create: Callable[..., dict[str, Any]],
    new_context: Callable[..., BrowserContext],
    open_page: OpenPage,
) -> None:
    """A game between two people, both in screen-reader mode: driven over the protocol to a position
    where the seat to move has a claim the referee foresees, then the mover's list reads that action
    with its consequence, the islands say which majorities are close (to a spectator in the mode too,
    who has no actions), and the action played from the list is announced in the other browser and
    the spectator's."""
    host = create(opponent="human", seat="first", name="Ann")
    friend = post_json(server, f"/api/join/{host['invite_url'].rsplit('/', 1)[1]}", {"name": "Bob"})
    tokens = [host["token"], friend["token"]]
    seat, token, events = to_a_foreseen_claim(server, host["game_id"], tokens, random.Random(53))
    pages = []
    for path in (
        f"/play/{host['game_id']}#{tokens[seat]}",
        f"/play/{host['game_id']}#{tokens[1 - seat]}",
        f"/watch/{host['game_id']}",
    ):
        context = new_context(reduced_motion=True)
        context.add_init_script("localStorage.setItem('kahuna.reader', 'on')")
        pages.append(open_page(path, context=context))
    mine, theirs, watcher = pages
    mine.wait_for_function(MINE)
    button = mine.locator(f'button.reader-act[data-token="{token}"]')
    what = ", ".join(consequence_words(e) for e in events)
    expect(button).to_have_text(re.compile(f" — {re.escape(what)}\\.$"))
    words = button.inner_text()
    print(f"foreseen in the list: {words}")
    # The close majorities: the islands' lines say what the referee foresees for them.
    with connect(server.replace("http://", "ws://") + f"/ws/{host['game_id']}") as ws:
        foreseen = Seat(ws, tokens[1 - seat]).foresee()
    islands = mine.get_by_test_id("reader-islands").locator("li")
    changes = {"claim": "wins it with one more bridge", "lose": "loses the stone with one bridge fewer"}
    for entry in foreseen["close"]:
        line = islands.filter(has_text=re.compile(f"^{NAMES[entry['island']]},"))
        expect(line).to_contain_text(f"Close: {COLOURS[entry['seat']]} {changes[entry['change']]}.")
    assert foreseen["close"], "a claim is foreseen: its island is close"
    # A spectator in the mode: the game in words and the close majorities, no actions of its own.
    first = foreseen["close"][0]
    spectated = (
        watcher.get_by_test_id("reader-islands")
        .locator("li")
        .filter(has_text=re.compile(f"^{NAMES[first['island']]},"))
    )
    expect(spectated).to_contain_text(f"Close: {COLOURS[first['seat']]} {changes[first['change']]}.")
    expect(watcher.get_by_test_id("reader").locator("button.reader-act")).to_have_count(0)
    theirs.evaluate(LISTEN)
    watcher.evaluate(LISTEN)
    button.focus()
    mine.keyboard.press("Enter")
    claimed = next(e for e in events if e["type"] == "island_claimed")
    heard = f"{COLOURS[seat]} claims {NAMES[claimed['island']]} and places a stone."
    theirs.wait_for_function("(words) => window.__said.some((s) => s.includes(words))", arg=heard)
    watcher.wait_for_function("(words) => window.__said.some((s) => s.includes(words))", arg=heard)
    said = theirs.evaluate("(words) => window.__said.find((s) => s.includes(words))", heard)
    print(f"heard in the other browser: {said} (close islands: {len(foreseen['close'])})")


def test_hot_seat_in_the_mode_hides_the_seat_behind_the_curtain_and_says_the_low_clock(
    create: Callable[..., dict[str, Any]], new_context: Callable[..., BrowserContext], open_page: OpenPage
) -> None:
    """Hot-seat in screen-reader mode: behind the hand-over curtain the game in words has no hand and no
    actions; revealed, the seat's lists come; the low-clock warning is said in the mode's words."""
    game = create(opponent="hotseat", seat="first", clock={"initial": 14, "increment": 0})  # runs from now
    context = new_context(reduced_motion=True)
    context.add_init_script("localStorage.setItem('kahuna.reader', 'on')")
    page = open_page(f"/play/{game['game_id']}#{','.join(game['tokens'])}", context=context)
    reader = page.get_by_test_id("reader")
    expect(reader.get_by_test_id("reader-status")).to_have_text("Black to move. Points: Black 0, White 0.")
    expect(page.get_by_test_id("curtain")).to_be_visible()
    expect(reader.locator("button.reader-act")).to_have_count(0)
    expect(reader.get_by_role("heading", name="Your hand")).to_have_count(0)
    page.get_by_test_id("curtain").locator(".reveal").focus()
    page.keyboard.press("Enter")
    expect(reader.get_by_role("heading", name="Your hand")).to_be_visible()
    assert reader.locator("button.reader-act").count() > 0
    # Black's own clock below ten seconds: said once, in words, in the mode's live region.
    said = reader.get_by_test_id("reader-said")
    expect(said).to_have_text(re.compile(r"^Your clock: (10|[1-9]) seconds? left\.$"), timeout=30000)
    print(f"the low clock said: {said.inner_text()}")
