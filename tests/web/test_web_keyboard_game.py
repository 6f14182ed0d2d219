"""A whole game against the AI and a whole tournament game by keyboard alone (issue 53): started from
the home page's form (the tournament: from its page) and played to the end with Tab, Shift+Tab, the
arrow keys, Space and Enter only, every key counted; the tournament game in screen-reader mode, from
the mode's lists, checking what the mode announced in the accessibility tree.

The player acts as a sighted keyboard user would: it reads the page (which controls are there,
which one has the focus) and moves the focus to the control it wants, one key at a time, towards
it in the page's Tab order. On each turn it selects the hand's cards one by one (Space) until one
lights up lines, takes the first line in words (one Tab) with Enter; then it draws from the deck,
else a display card, else declines or ends; with a full hand it discards first. Every scoring is
closed with Enter on its button, where the page put the focus. Nothing is clicked and no rule is
decided here: the page's lit lines and enabled buttons come from the server's legal actions.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, CDPSession, Page, expect

OpenPage = Callable[..., Page]

SETTLED = """() => {
  const g = document.querySelector(".game");
  return !!g && g.dataset.busy === "false" && (g.dataset.turn === "mine" || g.dataset.turn === "over");
}"""

APPLIED = """(v) => {
  const g = document.querySelector(".game");
  return g.dataset.version !== v && g.dataset.busy === "false";
}"""

# Where the focus is and where the first element of ``selector`` is, in the page's Tab order (the
# elements one can Tab to, in document order: the page sets no positive tabindex).
POSITIONS = """(selector) => {
  const order = [...document.querySelectorAll("a[href], button, input, select, textarea, summary, [tabindex]")]
    .filter((e) => e.tabIndex >= 0 && !e.disabled && e.checkVisibility({ visibilityProperty: true }));
  const target = order.findIndex((e) => e.matches(selector));
  return [order.indexOf(document.activeElement), target];
}"""

ENDS = (
    '.draw[data-token="d?"][aria-disabled="false"]',
    '.draw-row button.card.draw[aria-disabled="false"]',
    '.act-pass[aria-disabled="false"]',
    '.act-end[aria-disabled="false"]',
)


class Keyboard:
    """The page's keyboard, counting every key pressed."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.presses = 0

    def press(self, key: str) -> None:
        self.page.keyboard.press(key)
        self.presses += 1

    def focused(self, selector: str) -> bool:
        return bool(self.page.evaluate("(s) => !!document.activeElement?.matches(s)", selector))

    def tab_to(self, selector: str) -> None:
        """Move the focus to the first element of ``selector`` with Tab or Shift+Tab."""
        for _ in range(150):
            if self.focused(selector):
                return
            here, there = self.page.evaluate(POSITIONS, selector)
            assert there >= 0, f"nothing to Tab to: {selector}"
            self.press("Shift+Tab" if 0 <= there < here else "Tab")
        raise AssertionError(f"150 keys did not reach {selector}")

    def act(self, key: str) -> None:
        """Press ``key`` on the focused control and wait until the page has applied the action."""
        version = self.page.locator(".game").get_attribute("data-version")
        self.press(key)
        self.page.wait_for_function(APPLIED, arg=version)


def settle(keys: Keyboard) -> str:
    """Wait for this seat's turn or the end, closing any scoring with Enter on its button."""
    page = keys.page
    while True:
        page.wait_for_function(SETTLED)
        scoring = page.locator("[data-testid=scoring]")
        if not scoring.count():
            return page.locator(".game").get_attribute("data-turn") or ""
        keys.tab_to("[data-testid=scoring] button")  # the page put the focus there: no key needed
        keys.press("Enter")
        expect(scoring).to_have_count(0)


def build(keys: Keyboard) -> bool:
    """Select the hand's cards in turn until one lights up lines; build on its first line."""
    page = keys.page
    keys.tab_to(".hand-row button.card")
    for _ in range(page.locator(".hand-row button.card").count()):
        keys.press("Space")
        if page.locator(".choice-pick.build").count():
            keys.press("Tab")
            expect(page.locator(".choice-pick.build").first).to_be_focused()
            keys.act("Enter")
            return True
        keys.press("Space")
        keys.press("ArrowRight")
    return False


def end_turn(keys: Keyboard) -> None:
    """Draw, decline or end, whichever the page offers; with a full hand, discard a card first."""
    page = keys.page
    for selector in ENDS:
        if page.locator(selector).count():
            keys.tab_to(selector)
            keys.act("Enter")
            return
    keys.tab_to(".hand-row button.card")
    keys.press("Space")
    keys.tab_to(".act-discard")
    keys.act("Enter")
    end_turn(keys)


@pytest.mark.long  # a whole game: a minute and more on a loaded machine
@pytest.mark.timeout(900)
def test_a_whole_game_against_the_ai_by_keyboard_alone(open_page: OpenPage) -> None:
    page = open_page("/", reduced_motion=True)
    keys = Keyboard(page)
    page.wait_for_selector("#start")
    expect(page.locator("input[name=opponent][value=ai]")).to_be_checked()  # the form's defaults
    expect(page.locator("#level")).to_have_value("easy")
    keys.tab_to("#start")
    keys.press("Enter")
    page.wait_for_url(re.compile(r"/play/"))
    turns = 0
    while settle(keys) == "mine":
        turns += 1
        assert turns < 300, "the game should end"
        build(keys)
        if settle(keys) == "mine":
            end_turn(keys)
    expect(page.locator(".summary-outcome")).not_to_be_empty()
    log = page.get_by_role("list", name="Game log")
    expect(log.get_by_role("listitem").filter(has_text=re.compile("builds"))).not_to_have_count(0)
    print(f"a whole game against the AI by keyboard: {turns} turns, {keys.presses} key presses")


def live_texts(cdp: CDPSession) -> list[str]:
    """What the page's live regions hold now, read from Chromium's accessibility tree (what a screen
    reader is told), not from the DOM or the pixels: each region's text, in the tree's order."""
    nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    by_id = {node["nodeId"]: node for node in nodes}

    def text(node: dict[str, Any]) -> str:
        if node["role"]["value"] == "StaticText":
            return str(node.get("name", {}).get("value", ""))
        return "".join(text(by_id[child]) for child in node.get("childIds", []) if child in by_id)

    live = [n for n in nodes if any(p["name"] == "live" for p in n.get("properties", []))]
    return [text(node) for node in live]


def heard(cdp: CDPSession, start: str) -> str:
    """The live region's text that starts with ``start`` (it must be there)."""
    texts = live_texts(cdp)
    found = next((s for s in texts if s.startswith(start)), None)
    assert found is not None, f"no live region says {start!r}: {texts}"
    return found


READER_ENDS = tuple(f"button.reader-act[data-token{match}]" for match in ('="d?"', "^=d", '="pass"', '="end"'))


class ReaderTurns:
    """One seat's turns played from the screen-reader mode's lists by keyboard, each checked against
    what the page's live regions then say; counts what it saw."""

    def __init__(self, keys: Keyboard, cdp: CDPSession) -> None:
        self.keys = keys
        self.cdp = cdp
        self.colour = ""
        self.turns = self.foreseen = self.builds = self.heard_opponent = 0

    def actions(self) -> list[tuple[str, str]]:
        """The lists' buttons once they say what the referee foresees: (token, words)."""
        page = self.keys.page
        page.wait_for_selector("[data-testid=reader][data-foreseen=yes]")
        found: list[tuple[str, str]] = page.evaluate(
            "() => [...document.querySelectorAll('button.reader-act')].map((b) => [b.dataset.token, b.textContent])"
        )
        return found

    def turn(self) -> None:
        """Build (a foreseen claim first), then draw, take, decline or end; with a full hand discard first."""
        self.turns += 1
        acts = self.actions()
        self.colour = self.colour or acts[0][1].split()[0]  # "Black builds …": the words name the seat
        if self.turns > 1 or self.colour == "White":
            other = "White" if self.colour == "Black" else "Black"
            heard(self.cdp, other)  # the opponent's last action, said in words
            self.heard_opponent += 1
        builds = [(token, words) for token, words in acts if ">" in token]
        if builds:
            token, words = next(((t, w) for t, w in builds if " — " in w), builds[0])
            self.keys.tab_to(f'button.reader-act[data-token="{token}"]')
            self.keys.act("Enter")
            self.builds += 1
            said = heard(self.cdp, words.split(" — ")[0].rstrip("."))
            if " — " in words:  # the foreseen claim came true, and was said
                self.foreseen += 1
                for island in re.findall(r"wins the majority on (\w+)", words):
                    assert f"{self.colour} claims {island} and places a stone." in said, (words, said)
            if settle(self.keys) != "mine":
                return
        self.end_turn()

    def end_turn(self) -> None:
        page = self.keys.page
        for selector in READER_ENDS:
            if page.locator(selector).count():
                self.keys.tab_to(selector)
                self.keys.act("Enter")
                return
        self.keys.tab_to("button.reader-act[data-token^='-']")
        self.keys.act("Enter")
        self.end_turn()


@pytest.mark.long  # a whole game: a minute and more on a loaded machine
@pytest.mark.timeout(1200)
def test_a_whole_tournament_game_in_screen_reader_mode_by_keyboard_alone(
    open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    """A player signs up, makes a one-round Swiss (10+5), invites the easy AI level and starts it,
    then plays the tournament game to its end in screen-reader mode from the mode's lists, by
    keyboard alone, and goes back to the event by the finished page's link (in this mode the page
    does not leave by itself); what the mode announced is read from the accessibility tree."""
    context = new_context(reduced_motion=True)
    context.add_init_script("localStorage.setItem('kahuna.reader', 'on')")
    page = open_page("/signup", context)
    keys = Keyboard(page)
    page.locator("#username").fill("Reader_tour")
    page.locator("#password").fill("reef-lagoon-coral-7")
    keys.tab_to("#signup-submit")
    keys.press("Enter")
    page.wait_for_url(re.compile(r"/account$"))
    page.goto(page.url.replace("/account", "/tournaments"))
    page.locator("#tour-name").fill("Reader Swiss")
    page.locator("#tour-clock").select_option("600+5")
    page.locator("#tour-rounds").fill("1")
    keys.tab_to("#tour-name")
    keys.press("Enter")  # the keyboard submits the form
    page.wait_for_url(re.compile(r"/tournaments/[\w-]+$"))
    page.locator("#tour-invite").select_option("ai-easy")
    keys.tab_to("[data-testid=tour-invite] button")
    keys.press("Enter")
    expect(page.get_by_test_id("standings")).to_contain_text("ai-easy")
    keys.tab_to("[data-testid=tour-start]")
    keys.press("Enter")
    page.wait_for_url(re.compile(r"/play/[\w-]+\?tournament="))
    setup = keys.presses
    keys.presses = 0

    cdp = context.new_cdp_session(page)
    player = ReaderTurns(keys, cdp)
    clocks = False
    while settle(keys) == "mine":
        assert player.turns < 300, "the game should end"
        if not clocks:  # once: the clocks read on request, said in words
            keys.tab_to("[data-testid=reader-clocks]")
            keys.press("Enter")
            said = heard(cdp, "Black: ")
            assert re.fullmatch(r"Black: .+ left(, running)?\. White: .+ left(, running)?\.", said), said
            clocks = True
        player.turn()
    # The page stays (in this mode it does not go back to the event by itself): the end is said,
    # then the way back, which the player takes when it likes
    stay = "Game over: this page stays until you go back to the tournament. Back to the tournament"
    expect(page.get_by_test_id("tour-back")).to_have_text(stay)
    said_at_end = live_texts(cdp)
    ending = page.locator(".summary-outcome").inner_text()
    assert ending and any(ending in text for text in said_at_end), (ending, said_at_end)  # the end was said
    heard(cdp, "Game over: this page stays until you go back to the tournament.")  # the way back, said too
    keys.tab_to("[data-testid=back-to-tournament]")
    keys.press("Enter")
    page.wait_for_url(re.compile(r"/tournaments/[\w-]+$"))
    expect(page.get_by_test_id("tour-summary")).to_contain_text("finished")
    print(
        f"a whole tournament game in screen-reader mode by keyboard: {player.turns} turns as {player.colour}, "
        f"{keys.presses} key presses ({setup} more to sign up, make the event and start it), "
        f"{player.builds} builds from the lists ({player.foreseen} with a foreseen claim, each said when played), "
        f"the opponent's last action heard {player.heard_opponent} times; the clocks said: {said}; the end: {ending}"
    )
