"""A complete game against the random AI, played by clicks only."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Locator, Page, expect

OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""


SETTLED = """() => {
  const g = document.querySelector('.game');
  return g && g.dataset.busy === 'false' && (g.dataset.turn === 'mine' || g.dataset.turn === 'over');
}"""

APPLIED = """v => {
  const g = document.querySelector('.game');
  return g.dataset.version !== v && g.dataset.busy === 'false';
}"""


def wait_my_turn(page: Page) -> str:
    """Wait until this seat may act (or the game is over); returns the page's turn state."""
    page.wait_for_function(SETTLED)
    return page.locator(".game").get_attribute("data-turn") or ""


def click_and_wait(page: Page, target: Locator) -> None:
    """Click, then wait until the page has applied the resulting action and is idle again."""
    version = page.locator(".game").get_attribute("data-version")
    target.click()
    page.wait_for_function(APPLIED, arg=version)


def build_once(page: Page) -> None:
    """Select cards one by one until one lights up a line, then click that line."""
    cards = page.locator(".hand-row button.card")
    for i in range(cards.count()):
        card = cards.nth(i)
        card.click()
        expect(card).to_have_attribute("aria-pressed", "true")
        picks = page.locator(".pick.build")
        if picks.count():
            click_and_wait(page, picks.first)
            return
        card.click()


def end_turn(page: Page) -> None:
    """Take the deck, a display card, decline or end — whichever is enabled; discard first if the hand is full."""
    for selector in (
        '.draw[data-token="d?"][aria-disabled="false"]',
        '.draw-row button.card.draw[aria-disabled="false"]',
        '.act-pass[aria-disabled="false"]',
        '.act-end[aria-disabled="false"]',
    ):
        choice = page.locator(selector)
        if choice.count():
            choice.first.click()
            return
    page.locator(".hand-row button.card").first.click()
    click_and_wait(page, page.locator(".act-discard"))
    end_turn(page)


def test_full_game_against_random_ai_by_clicks(open_page: OpenPage, shot: Callable[[Page, str], Path]) -> None:
    page = open_page("/", reduced_motion=True)  # no transitions to wait for: clicks land at once
    page.get_by_label("Against the computer").check()
    page.locator("#level").select_option("random")
    page.locator("#name").fill("Clicker")
    page.locator("#start").click()
    page.wait_for_url("**/play/**")
    expect(page.locator("#speed")).to_have_value("off")
    turns = 0
    while wait_my_turn(page) == "mine":
        turns += 1
        assert turns < 300, "the game should end"
        if turns == 3:
            shot(page, "game-vs-ai-1280x800")
        build_once(page)
        if page.locator(".game").get_attribute("data-turn") == "mine":
            end_turn(page)
    summary = page.locator(".summary")
    expect(summary).to_be_visible()
    expect(summary.locator(".summary-outcome")).not_to_be_empty()
    expect(summary.locator("tbody tr")).to_have_count(2)
    expect(page.locator(".log-list li").first).to_be_visible()
    shot(page, "game-over-1280x800")

    expect(page.locator(".summary a", has_text="Watch the replay")).to_have_attribute("href", re.compile("^/replay/"))
