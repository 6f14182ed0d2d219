"""Everything a turn needs on one screen, in every language, at 1280×800, 1366×768 and 390×844.

The board, hand, display and deck, the turn's buttons and the message are in view together
without scrolling (on a phone the hand and the board together); messages, the low-clock warning
too, cover nothing one could click; hot-seat's first turn starts behind the hand-over curtain; no
page is wider than the window (the game over, the replay and the other pages, in English, German,
Dutch, Spanish and Danish); an aborted game shows its sentence only. One game per size is switched
through the five languages with the picker, so no game is replayed per language. make test runs
the desktop and the phone, make test-all the laptop size too (``web_matrix.py``).
"""

from __future__ import annotations

import importlib
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

_matrix = importlib.import_module("web_matrix")
SIZES = cast(list[tuple[int, int]], _matrix.SIZES)
LANGUAGES = cast(list[str], _matrix.LANGUAGES)
Shot = Callable[[Page, str], Path]

_replay = importlib.import_module("test_web_replay")
finish_game = cast(Callable[[str, dict[str, Any], random.Random], int], _replay.finish_game)

IN_VIEW = """el => {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
}"""

# The visible controls one could click whose box meets the element's box (none may: it covers nothing).
COVERED = """el => {
  const m = el.getBoundingClientRect();
  const clickable = 'button, a[href], input, select, textarea, [role=button], .board .pick, .board .route-group';
  return [...document.querySelectorAll(clickable)].filter(c => {
    if (c === el || el.contains(c) || c.contains(el)) return false;
    const r = c.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(c).visibility === 'hidden') return false;
    return r.left < m.right && m.left < r.right && r.top < m.bottom && m.top < r.bottom;
  }).map(c => c.outerHTML.slice(0, 80));
}"""

WIDTH = "() => document.documentElement.scrollWidth"

# The page's columns as drawn: the board whole (its frame not cutting it off) and, on a wide
# window, the players beside the board.
COLUMNS = """() => {
  const board = document.querySelector('.board').getBoundingClientRect();
  const wrap = document.querySelector('.board-wrap').getBoundingClientRect();
  const players = document.querySelector('.players-box').getBoundingClientRect();
  return { clipped: wrap.height < board.height - 1, beside: players.left >= board.right };
}"""

# Block elements whose content runs out of their box sideways (a page can be no wider than its
# window and still have a panel spill over its neighbour). A selected card's tick stands out of
# the card on purpose (cards are drawn in pixels, their words too).
SPILLS = """() => [...document.querySelectorAll('main *')].filter(el => {
  if (!(el instanceof HTMLElement) || !el.clientWidth || el.matches('.card')) return false;
  const style = getComputedStyle(el);
  if (style.overflowX !== 'visible' || style.display.startsWith('inline')) return false;
  return el.scrollWidth > el.clientWidth + 1;
}).map(el => `${el.tagName}.${el.className}: ${el.scrollWidth} > ${el.clientWidth}`)"""

# A larger default text size (112.5 %, as a reader's browser setting or a wider system font gives):
# main's "Type an action" panel spilled over at 1280 px in German, Dutch and Spanish with it.
LARGER_TEXT = "px => { document.documentElement.style.fontSize = px; }"

MINE = """() => {
  const g = document.querySelector('.game');
  return g && g.dataset.turn === 'mine' && g.dataset.busy === 'false';
}"""


Post = Callable[[str, dict[str, Any]], dict[str, Any]]


@pytest.fixture(scope="module")
def finished(server: str, post: Post) -> dict[str, Any]:
    """A hot-seat game played to its end over the WebSocket protocol (cheap legal actions)."""
    game = post("/api/games", {"opponent": "hotseat", "seat": "first", "name": "Fitter"})
    finish_game(server, game, random.Random(7))
    return game


@pytest.fixture
def sized(browser: Browser) -> Iterator[Callable[[int, int], BrowserContext]]:
    """sized(w, h): a fresh context of that window (a phone's is a touch screen); pages opened
    in it fail the test on any JavaScript error."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def make(width: int, height: int) -> BrowserContext:
        phone = width < 500
        context = browser.new_context(
            viewport={"width": width, "height": height},
            has_touch=phone,
            is_mobile=phone,
            locale="en-GB",
            reduced_motion="reduce",
        )
        context.set_default_timeout(20000)
        context.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        context.on("weberror", lambda err: errors.append(str(err.error)))
        contexts.append(context)
        return context

    yield make
    for context in contexts:
        context.close()
    assert not errors, "JavaScript errors:\n" + "\n".join(errors)


def in_view(page: Page, selector: str, timeout: float = 5000) -> bool:
    """Whether every element of ``selector`` lies wholly in the window, once the layout has settled:
    waited for (at most ``timeout`` ms: a page still placing its board or its lines is not yet
    wrong), then ``False`` if it never does."""
    found = f"[...document.querySelectorAll({json.dumps(selector)})]"
    settled = f"() => {{ const els = {found}; return els.length > 0 && els.every({IN_VIEW}); }}"
    try:
        page.wait_for_function(settled, timeout=timeout)
    except PlaywrightTimeout:
        return False
    return True


def fits(page: Page, what: str = "", larger_text: bool = True) -> None:
    """No page wider than its window and no panel spilling over, at the default text size and a larger one."""
    for size in ("", "18px") if larger_text else ("",):
        page.evaluate(LARGER_TEXT, size)
        width = page.evaluate(WIDTH)
        window = page.evaluate("() => innerWidth")
        assert width <= window, f"{what} {size}: the page is {width} px wide in a window of {window}"
        assert page.evaluate(SPILLS) == [], f"{what} {size}"
    page.evaluate(LARGER_TEXT, "")


def columns_right(page: Page, phone: bool, what: str) -> None:
    """The board drawn whole; on a wide window the players beside it."""
    columns = page.evaluate(COLUMNS)
    assert not columns["clipped"], f"{what}: the board is cut off"
    assert columns["beside"] != phone, f"{what}: the players are {'beside' if phone else 'not beside'} the board"


def turn_in_view(page: Page, phone: bool, what: str) -> None:
    """What a turn needs is on screen without scrolling (and the page no wider than it)."""
    assert page.evaluate("() => scrollY") == 0
    columns_right(page, phone, what)
    needed = [
        "#banner",
        ".board",
        '[data-testid="hand"] .hand-row',
        ".draw-row",
        '[data-testid="turn-actions"] .action-row button',
    ]
    if not phone:
        needed.append(".choice-row button")  # the lit lines in words too (a phone taps the board's)
    missing = [selector for selector in needed if not in_view(page, selector)]
    assert not missing, f"{what}: not in view without scrolling: {missing}"
    fits(page, what)


def select_building_card(page: Page) -> str:
    """Select the hand's cards one by one until one lights up lines on the board; returns its letter."""
    cards = page.locator('[data-testid="hand"] button.card')
    for i in range(cards.count()):
        cards.nth(i).click()
        if page.locator(".pick.build").count():
            return cards.nth(i).get_attribute("data-card") or ""
        cards.nth(i).click()
    raise AssertionError("no card of the hand can build")


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_a_turn_fits_the_window_in_every_language(
    server: str, post: Post, sized: Callable[[int, int], BrowserContext], shot: Shot, width: int, height: int
) -> None:
    phone = width < 500
    game = post("/api/games", {"opponent": "ai", "level": "easy", "seat": "first", "name": "Fitter"})
    page = sized(width, height).new_page()
    page.goto(f"{server}/play/{game['game_id']}#{game['token']}")
    page.wait_for_function(MINE)
    card = select_building_card(page)
    elsewhere = page.locator(f'.board .route-group:not([data-line*="{card}"])').first
    message = page.get_by_test_id("message")
    for code in LANGUAGES:
        page.locator("#language").select_option(code)
        expect(page.locator("html")).to_have_attribute("lang", code)
        turn_in_view(page, phone, code)
        # A refusal's message is in view and covers nothing one could click.
        elsewhere.dispatch_event("click")  # a line the selected card cannot build on
        expect(message).not_to_be_empty()
        assert in_view(page, '[data-testid="message"]'), code
        assert message.evaluate(COVERED) == [], code
        turn_in_view(page, phone, f"{code} with a message")
        shot(page, f"fit-turn-{code}-{width}x{height}")
        message.click()  # a click on it closes it
        expect(message).to_be_empty()
    page.locator("#language").select_option("en")
    # The board-size setting: "large" draws the board as wide as its column (the page scrolls).
    fitted = page.locator(".board").evaluate("el => el.getBoundingClientRect().height")
    page.locator("#board-size").select_option("large")
    large = page.locator(".board").evaluate("el => el.getBoundingClientRect().height")
    assert large > fitted, (large, fitted)
    page.locator("#board-size").select_option("fit")
    expect(page.locator(".game")).to_have_class("game fitted")


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_a_selected_cards_mark_spills_over_nothing(
    server: str, post: Post, sized: Callable[[int, int], BrowserContext], width: int, height: int
) -> None:
    """Each card of the hand selected in turn (the last one too, at the row's right edge): its
    raised tick stays within the hand's row."""
    game = post("/api/games", {"opponent": "ai", "level": "easy", "seat": "first", "name": "Ticker"})
    page = sized(width, height).new_page()
    page.goto(f"{server}/play/{game['game_id']}#{game['token']}")
    page.wait_for_function(MINE)
    cards = page.locator('[data-testid="hand"] button.card')
    for i in range(cards.count()):
        cards.nth(i).click()
        expect(cards.nth(i)).to_have_attribute("aria-pressed", "true")
        assert page.evaluate(SPILLS) == [], f"card {i} selected"
        cards.nth(i).click()
        expect(cards.nth(i)).to_have_attribute("aria-pressed", "false")


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_hotseat_starts_behind_the_curtain_and_the_low_clock_warning_covers_nothing(
    server: str, post: Post, sized: Callable[[int, int], BrowserContext], shot: Shot, width: int, height: int
) -> None:
    # Ten seconds each: the warning of the last ten seconds comes at once.
    game = post("/api/games", {"opponent": "hotseat", "seat": "first", "clock": {"initial": 10, "increment": 0}})
    page = sized(width, height).new_page()
    page.goto(f"{server}/play/{game['game_id']}#{','.join(game['tokens'])}")
    curtain = page.get_by_test_id("curtain")
    expect(curtain).to_be_visible()  # the very first turn too
    expect(curtain).to_contain_text("Hand the device to Player")
    expect(page.locator('[data-testid="hand"] button.card')).to_have_count(0)
    expect(page.locator(".tracker")).to_have_count(0)
    expect(page.locator('[data-testid="turn-actions"] button')).to_have_count(0)
    assert in_view(page, '[data-testid="curtain"] .reveal')
    assert in_view(page, ".board")
    columns_right(page, width < 500, "behind the curtain")
    message = page.get_by_test_id("message")
    expect(message).to_contain_text("running out")
    assert in_view(page, '[data-testid="message"]')
    assert message.evaluate(COVERED) == []
    shot(page, f"fit-curtain-low-clock-{width}x{height}")
    curtain.locator(".reveal").click()
    expect(page.locator('[data-testid="hand"] button.card')).to_have_count(3)
    assert in_view(page, '[data-testid="hand"] .hand-row')


def test_a_finished_and_an_aborted_game_fit_a_phone_in_every_language(
    server: str, post: Post, finished: dict[str, Any], sized: Callable[[int, int], BrowserContext], shot: Shot
) -> None:
    context = sized(390, 844)
    over = context.new_page()
    over.goto(f"{server}/play/{finished['game_id']}#{','.join(finished['tokens'])}")  # both seats: hot-seat
    expect(over.locator(".summary tbody tr")).to_have_count(5)
    replay = context.new_page()
    for code in LANGUAGES:
        over.locator("#language").select_option(code)  # kept in this browser: the replay opens in it
        expect(over.locator("html")).to_have_attribute("lang", code)
        expect(over.locator(".summary table")).to_be_visible()
        fits(over, f"game over, {code}")
        replay.goto(f"{server}/replay/{finished['game_id']}")
        replay.wait_for_selector(".replay-step")
        replay.keyboard.press("End")  # the keys work wherever focus is
        expect(replay.locator(".summary table")).to_be_visible()
        fits(replay, f"replay, {code}")
        if code in ("en", "de"):
            shot(over, f"fit-game-over-{code}-390x844")
            shot(replay, f"fit-replay-{code}-390x844")
    over.locator("#language").select_option("en")
    # An aborted game shows its sentence only: no zeros, no replay, no rematch.
    game = post("/api/games", {"opponent": "ai", "level": "easy", "seat": "first", "name": "Fitter"})
    page = context.new_page()
    page.goto(f"{server}/play/{game['game_id']}#{game['token']}")
    page.wait_for_function(MINE)
    expect(page.get_by_test_id("chat")).to_be_hidden()  # no chat with the computer
    page.get_by_test_id("abort").click()
    expect(page.locator(".summary-outcome")).to_contain_text("aborted")
    expect(page.locator(".summary table")).to_have_count(0)
    expect(page.locator("a", has_text="Watch the replay")).to_have_count(0)
    expect(page.get_by_test_id("rematch")).to_have_count(0)
    expect(page.get_by_test_id("notify-me")).to_be_hidden()
    fits(page)
    shot(page, "fit-aborted-390x844")


@pytest.mark.parametrize(("width", "height"), _matrix.sizes())
def test_no_page_is_wider_than_the_window_in_any_language(
    server: str, finished: dict[str, Any], sized: Callable[[int, int], BrowserContext], width: int, height: int
) -> None:
    page = sized(width, height).new_page()
    for path in ("/", "/rules", "/lobby", "/signin", "/watch", "/tv", f"/replay/{finished['game_id']}"):
        page.goto(server + path)
        page.wait_for_selector("#language")
        for code in LANGUAGES:
            page.locator("#language").select_option(code)
            expect(page.locator("html")).to_have_attribute("lang", code)
            page.wait_for_selector("main h1, main h2")
            fits(page, f"{path} in {code}")
