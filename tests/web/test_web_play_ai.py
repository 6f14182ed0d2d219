"""A complete game against the AI, played by clicks only: feedback in view, the AI's moves marked
on the board, every scoring shown as a moment of its own, and a tidy end of the game."""

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


IN_VIEW = """el => {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
}"""


def in_viewport(page: Page, selector: str) -> bool:
    """Whether the element is shown entirely inside the window (no scrolling needed)."""
    return bool(page.eval_on_selector(selector, IN_VIEW))


def wait_my_turn(page: Page, scorings: list[str] | None = None) -> str:
    """Wait until this seat may act (or the game is over), noting and closing any scoring shown."""
    page.wait_for_function(SETTLED)
    scoring = page.locator('[data-testid="scoring"]')
    if scoring.count():
        if scorings is not None:
            scorings.append(scoring.locator("h2").inner_text())
            assert in_viewport(page, '[data-testid="scoring"]')
        scoring.locator("button").click()
        expect(scoring).to_have_count(0)
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
            wait_my_turn(page)  # a build may take the last card of a round: close its scoring
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


def test_full_game_against_the_ai_by_clicks(open_page: OpenPage, shot: Callable[[Page, str], Path]) -> None:
    page = open_page("/", reduced_motion=True)  # no transitions to wait for: clicks land at once
    page.wait_for_selector("#start")  # the lobby is drawn once the board and the levels have come
    assert in_viewport(page, "#start"), "Start game is in view without scrolling"
    page.get_by_label("Against the computer").check()
    page.locator("#level").select_option("medium")
    page.locator("#seat").select_option("second")  # the AI moves first
    page.locator("#name").fill("Clicker")
    page.locator("#start").click()
    page.wait_for_url("**/play/**")
    expect(page.locator("#speed")).to_have_value("off")
    expect(page.locator("#confirm-moves")).not_to_be_checked()  # a mouse: no confirmation by default
    expect(page.locator(".player.seat0 .player-name")).to_have_text("Kahuna AI (Medium)")  # the level in words

    # 1: a click that cannot work says why, in view, whatever was clicked.
    wait_my_turn(page)
    page.locator(".board .route-group").first.click(force=True)
    message = page.locator('[data-testid="message"]')
    expect(message).to_have_text("Select a card in your hand first.")
    assert in_viewport(page, '[data-testid="message"]')
    page.locator(".act-discard").click(force=True)  # aria-disabled, yet clickable: it explains itself
    expect(message).to_have_text("Select one card to discard.")
    assert in_viewport(page, '[data-testid="message"]')
    shot(page, "game-vs-ai-message-1280x800")

    turns = 0
    marked_turns = 0
    scorings: list[str] = []
    while wait_my_turn(page, scorings) == "mine":
        turns += 1
        assert turns < 300, "the game should end"
        # 2: the AI's turn is marked on the board until the next move.
        if page.locator('[data-testid="last-move"]').count():
            marked_turns += 1
        if turns == 3:
            shot(page, "game-vs-ai-1280x800")
        build_once(page)
        if page.locator(".game").get_attribute("data-turn") == "mine":
            end_turn(page)
    assert marked_turns >= turns // 2, f"the AI's moves were marked in only {marked_turns} of {turns} turns"
    # 3: rounds 1 and 2 and the final scoring each had their moment (unless the game ended early).
    assert scorings[:1] == ["ROUND 1 IS SCORED"], scorings
    outcome = page.locator(".summary-outcome").inner_text()
    if "no bridge left" not in outcome:
        assert scorings == ["ROUND 1 IS SCORED", "ROUND 2 IS SCORED", "FINAL SCORING"], scorings

    # 9: the end shows the stones and leaves out what is no use any more.
    summary = page.locator(".summary")
    expect(summary).to_be_visible()
    expect(summary.locator(".summary-outcome")).not_to_be_empty()
    expect(summary.locator("thead th")).to_have_count(3)  # a column for each player
    expect(summary.locator("tbody tr")).to_have_count(5)  # stones, rounds 1 and 2, final, total
    expect(summary.locator("tbody tr.stones th")).to_have_text("Stones")
    expect(summary.locator("tbody tr.stones td").first).to_have_text(re.compile(r"^\d+$"))
    expect(page.locator(".notation")).to_be_hidden()
    expect(page.locator(".tracker")).to_have_count(0)
    expect(page.locator(".log-list li").first).to_be_visible()
    shot(page, "game-over-1280x800")

    expect(page.locator(".summary a", has_text="Watch the replay")).to_have_attribute("href", re.compile("^/replay/"))
