"""A phone (390×844, touch): everything needed in view, names readable, 44 px targets, moves confirmed.

The page is opened in a touch context of its own (conftest's contexts have no touch screen);
like ``open_page`` it fails on any JavaScript error.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import cast

import pytest
from playwright.sync_api import Browser, Page, ViewportSize, expect

PHONE: ViewportSize = {"width": 390, "height": 844}

in_view = cast(Callable[[Page, str], bool], importlib.import_module("test_web_fit").in_view)
"""Whether the element lies wholly in the window once the layout has settled (waited for: checked
at one instant, the points were once out of view in a run at load 8, a moment after the AI's turn)."""

SETTLED = """() => {
  const g = document.querySelector('.game');
  return g && g.dataset.busy === 'false' && g.dataset.turn === 'mine';
}"""

# The width on screen (CSS px) of a lit line's click band: the distance between its 2nd and 3rd corner.
BAND_PX = """el => {
  const n = el.getAttribute('d').match(/-?[\\d.]+/g).map(Number);
  const svg = el.ownerSVGElement;
  return Math.hypot(n[4] - n[2], n[5] - n[3]) * svg.getScreenCTM().a;
}"""


@pytest.fixture
def phone(browser: Browser, server: str) -> Iterator[Callable[[str], Page]]:
    """phone(path) -> a page on a touch screen of 390×844; the test fails on any JavaScript error."""
    errors: list[str] = []
    context = browser.new_context(
        viewport=PHONE, has_touch=True, is_mobile=True, locale="en-GB", reduced_motion="reduce"
    )
    context.set_default_timeout(20000)

    def opener(path: str) -> Page:
        page = context.new_page()
        page.on("console", lambda msg: errors.append(f"console: {msg.text}") if msg.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        page.goto(server + path)
        return page

    yield opener
    context.close()
    assert not errors, "JavaScript errors:\n" + "\n".join(errors)


def test_a_game_on_a_phone(phone: Callable[[str], Page], shot: Callable[[Page, str], Path]) -> None:
    page = phone("/")
    assert in_view(page, "#start"), "Start game is in view without scrolling"
    expect(page.locator("#tutorial-start")).to_be_visible()  # the tutorial is one tap away
    for code in ("de", "nl", "es", "da"):  # 10: the header stays on one line in every language
        page.locator("#language").select_option(code)
        assert page.locator("header.top").evaluate("el => el.getBoundingClientRect().height") < 50, code
    page.locator("#language").select_option("en")
    shot(page, "lobby-390x844")
    page.locator("#level").select_option("medium")
    page.locator("#seat").select_option("second")
    page.locator("#start").tap()
    page.wait_for_url("**/play/**")
    page.wait_for_function(SETTLED)

    # 10: points and the opponent above the fold; island names readable; 2: the AI's turn marked.
    assert in_view(page, ".player.seat0 .stat-points")
    assert in_view(page, ".player.seat1 .stat-points")
    label_px = page.locator(".board .island-name").first.evaluate("el => el.getBoundingClientRect().height")
    assert label_px >= 12, f"island names are {label_px:.1f} px high"
    # The AI's first turn (drawn: a card taken marks nothing) marks each bridge it built, on an empty board.
    built = page.locator('.board .bridge[data-owner="0"]').count()
    expect(page.locator('[data-testid="last-move"][data-kind="built"][data-seat="0"]')).to_have_count(built)
    expect(page.locator("#confirm-moves")).to_be_checked()  # 8: on by default on a touch screen

    # 1: feedback in view on a phone too.
    page.locator(".board .route-group").first.tap(force=True)
    expect(page.locator('[data-testid="message"]')).not_to_be_empty()
    assert in_view(page, '[data-testid="message"]')

    # A disabled button's reason is not drawn on a phone, yet screen readers still have it.
    expect(page.locator(".act-discard + .why")).to_be_hidden()
    expect(page.locator(".act-discard")).to_have_accessible_description("Select one card to discard.")

    # 10 and 8: a lit line is a 44 px target; the first tap only proposes the move.
    cards = page.locator(".hand-row button.card")
    for i in range(cards.count()):
        cards.nth(i).tap()
        if page.locator(".pick.build").count():
            break
        cards.nth(i).tap()
    pick = page.locator(".pick.build").first
    band = pick.locator(".hit").evaluate(BAND_PX)
    assert band >= 43.5, f"the lit line is {band:.1f} px wide to tap"
    line = pick.get_attribute("data-line")
    bridges = page.locator(".board .bridge").count()
    pick.dispatch_event("click")
    confirm = page.locator('[data-testid="confirm"]')
    expect(confirm).to_be_visible()
    assert in_view(page, '[data-testid="confirm"]')
    expect(page.locator(".board .bridge")).to_have_count(bridges)  # nothing played yet
    # A touch screen's prompt speaks of taps, not of clicks and Escape.
    expect(page.locator("#action-hint")).to_have_text("Tap it again or tap Confirm to play it; Cancel to choose again.")
    shot(page, "confirm-move-390x844")
    page.locator("#confirm-cancel").tap()  # changed one's mind: nothing happens
    expect(confirm).to_have_count(0)
    page.locator(f'.pick.build[data-line="{line}"]').dispatch_event("click")
    confirm.tap()
    expect(page.locator(f'.board .bridge[data-line="{line}"][data-owner="1"]')).to_have_count(1)
    expect(page.locator(f'[data-testid="last-move"][data-line="{line}"]')).to_have_count(1)
    shot(page, "game-vs-ai-390x844")
