"""A whole game against the AI by keyboard alone (issue 53): started from the home page's form and
played to its end with Tab, Shift+Tab, the arrow keys, Space and Enter only, every key counted.

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

import pytest
from playwright.sync_api import Page, expect

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
