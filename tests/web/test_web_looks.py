"""Issue 51, one product, its looks, each where it was seen: the account page's API-token form
(normal fields and checkboxes) and its two notification panels' distinct titles (1280×800); the
players' names in a game and the profile's tables on a phone (390×844); the "Rated" and
"Watching" badges' contrast in the dark and the light theme; the chat beside the board during
play and the seeks right under a compact filter line in the lobby (1280×800)."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

import httpx
import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""
Shot = Callable[[Page, str], Path]
Post = Callable[[str, dict[str, Any]], dict[str, Any]]
PASSWORD = "reef-lagoon-coral-7"
LANGUAGES = ["en", "de", "es", "nl", "da"]


IN_VIEW = """el => {
  const r = el.getBoundingClientRect();
  return r.width > 0 && r.height > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth;
}"""

# The WCAG 2 contrast ratio of an element's text against its background (the first ancestor's
# with an opaque one), from getComputedStyle: relative luminance of sRGB, (L1 + 0.05) / (L2 + 0.05).
CONTRAST = """el => {
  const rgb = (css) => css.match(/[\\d.]+/g).map(Number);
  const lum = ([r, g, b]) => {
    const lin = (c) => { c /= 255; return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4; };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  let back = el;
  while (back && (rgb(getComputedStyle(back).backgroundColor)[3] ?? 1) < 1) back = back.parentElement;
  const bg = back ? rgb(getComputedStyle(back).backgroundColor) : [255, 255, 255];
  const [a, b] = [lum(rgb(getComputedStyle(el).color)), lum(bg)];
  return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
}"""


@pytest.fixture(scope="module")
def rated_game(server: str) -> str:
    """The id of a rated correspondence game between two accounts, from a seek of the lobby."""
    clients = []
    for name in ("Looks_rated_a", "Looks_rated_b"):
        http = httpx.Client(base_url=server, timeout=30)
        assert http.post("/api/accounts", json={"username": name, "password": PASSWORD}).status_code == 201
        assert http.post("/api/session", json={"username": name, "password": PASSWORD}).status_code == 200
        http.headers["X-CSRF-Token"] = http.cookies["csrf"]
        clients.append(http)
    seek = clients[0].post("/api/seeks", json={"clock": {"days": 2}, "rated": True}).json()
    taken = clients[1].post(f"/api/seeks/{seek['seek_id']}/accept").json()
    for http in clients:
        http.close()
    return cast(str, taken["game_id"])


@pytest.fixture
def themed(browser: Browser, server: str) -> Iterator[Callable[..., Page]]:
    """themed(path, scheme, width=1280, height=800) -> a page of a fresh context whose system
    theme is ``scheme`` ("dark" or "light"); the test fails on any JavaScript error."""
    contexts: list[BrowserContext] = []
    errors: list[str] = []

    def opener(path: str, scheme: str, width: int = 1280, height: int = 800) -> Page:
        context = browser.new_context(
            viewport={"width": width, "height": height},
            locale="en-GB",
            color_scheme=scheme,  # type: ignore[arg-type]
        )
        context.set_default_timeout(20000)
        contexts.append(context)
        page = context.new_page()
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
        page.goto(server + path)
        return page

    yield opener
    for context in contexts:
        context.close()
    assert not errors, "JavaScript errors:\n" + "\n".join(errors)


def sign_up(page: Page, username: str) -> None:
    """Create an account on the sign-up page (the browser context stays signed in)."""
    page.locator("#username").fill(username)
    page.locator("#password").fill(PASSWORD)
    page.locator("#signup-submit").click()
    page.wait_for_url(re.compile(r"/account$"))


NAMES_FIT = """() => {
  const names = [...document.querySelectorAll('.players .player-name')];
  return names.length === 2 && names.every((el) => el.clientWidth > 0 && el.scrollWidth <= el.clientWidth);
}"""


def names_fit(page: Page) -> None:
    """Wait until both players' names fit their boxes whole: the boxes settle as the page fills them
    in (the rating, the presence dot), and a check at one instant once caught a name mid-way (CI,
    2026-12-07); a name that is cut stays cut, and the wait fails."""
    try:
        page.wait_for_function(NAMES_FIT, timeout=10_000)
    except PlaywrightTimeoutError:
        raise AssertionError(f"a name is cut: {page.locator('.players .player-name').all_text_contents()}") from None


def box(page: Page, selector: str) -> dict[str, float]:
    found = page.locator(selector).bounding_box()
    assert found, selector
    return cast(dict[str, float], found)


def test_the_account_pages_token_form_has_normal_fields_and_the_notification_panels_distinct_titles(
    open_page: OpenPage, shot: Shot
) -> None:
    page = open_page("/signup")
    sign_up(page, "Looks_account")
    expect(page.locator("#token-create")).to_be_visible()
    # The panels above the form are filled in as their answers come: wait for all before measuring.
    expect(page.get_by_test_id("token-list").locator("li")).to_have_count(1)  # "no tokens yet"
    expect(page.get_by_test_id("notify-grid")).not_to_be_empty()
    expect(page.get_by_test_id("push-state")).not_to_be_empty()
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    for field in ("#token-name", "#token-password"):  # were 192 px tall (a flex basis of 12rem)
        assert 30 <= box(page, field)["height"] <= 50, field
    for scope in ("read", "play"):  # a checkbox of its normal size, its label beside it
        check = box(page, f"#token-scope-{scope}")
        label = box(page, f'label[for="token-scope-{scope}"]')
        assert check["width"] <= 24 and check["height"] <= 24, check
        assert label["x"] >= check["x"] + check["width"] and label["x"] - check["x"] < 40, (check, label)
        assert abs((label["y"] + label["height"] / 2) - (check["y"] + check["height"] / 2)) < 12, (check, label)
    # The name, the rights, the password and the button one under the other, in the panel.
    parts = ("#token-name", ".token-scopes", "#token-password", "#token-create")
    name, rights, password, button = (box(page, part) for part in parts)
    assert name["y"] < rights["y"] < password["y"] < button["y"]
    assert button["height"] < 60
    # The two notification panels: distinct titles that say what each is.
    expect(page.locator("#notify-title")).to_have_text("When to notify you")
    expect(page.locator("#push-title")).to_have_text("Notifications on this device")
    titles = page.evaluate(
        """async (codes) => Promise.all(codes.map(async (code) => {
             const table = (await import(`/static/js/lang/${code}.js`)).default;
             return [table['notify.title'], table['push.section']];
           }))""",
        LANGUAGES,
    )
    for code, (settings, device) in zip(LANGUAGES, titles, strict=True):
        assert settings and device and settings != device, code
    page.locator("#token-name").scroll_into_view_if_needed()
    shot(page, "issue51-looks-account-token-form-1280x800")


def test_players_names_show_whole_in_a_game_on_a_phone(
    create: Callable[..., dict[str, Any]], post: Post, rated_game: str, open_page: OpenPage, shot: Shot
) -> None:
    game = create(opponent="human", seat="first", name="carolina_reef")
    post(game["invite_url"].replace("/join/", "/api/join/"), {"name": "bob_the_builder"})
    page = open_page(game["seat_url"], width=390, height=844)
    names = page.locator(".players .player-name")
    expect(names).to_have_count(2)
    expect(names.nth(0)).to_have_text("carolina_reef")
    expect(names.nth(1)).to_have_text("bob_the_builder")
    names_fit(page)  # not cut to "c." or "bob_t…": the whole name in its box
    for i in range(2):
        assert names.nth(i).evaluate(IN_VIEW)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    shot(page, "issue51-looks-names-390x844")
    # Accounts' names beside their ratings, watched: whole too.
    watched = open_page(f"/watch/{rated_game}", width=390, height=844)
    names = watched.locator(".players .player-name")
    expect(names).to_have_count(2)
    expect(watched.locator(".players .player-rating")).to_have_count(2)
    for i in range(2):
        expect(names.nth(i)).to_have_text(re.compile(r"^Looks_rated_[ab]$"))
    names_fit(watched)
    shot(watched, "issue51-looks-names-rated-390x844")


def test_the_profiles_tables_scroll_sideways_with_a_shadow_at_the_edge_on_a_phone(
    open_page: OpenPage, new_context: Callable[..., BrowserContext], shot: Shot
) -> None:
    page = open_page("/signup", new_context(width=390, height=844))
    sign_up(page, "Looks_tables")
    base = page.url.replace("/account", "")
    for _ in range(2):  # two games on the profile's list
        page.goto(base + "/")
        page.get_by_label("Against the computer").check()
        page.locator("#seat").select_option("first")
        page.locator("#start").click()
        page.wait_for_url("**/play/**")
        expect(page.locator(".board")).to_be_visible()
    page.goto(base + "/users/Looks_tables")
    games = page.get_by_test_id("profile-games")
    expect(games.locator("tbody tr")).to_have_count(2)
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # the page does not scroll
    scrollers = page.locator(".table-scroll")
    for i in range(scrollers.count()):
        scroller = scrollers.nth(i)
        style = scroller.evaluate("el => [getComputedStyle(el).overflowX, getComputedStyle(el).backgroundImage]")
        assert style[0] == "auto", style
        assert style[1].count("radial-gradient") == 2 and style[1].count("linear-gradient") == 2, style
    # The games table is wider than a phone: it scrolls, and the shadow at its right edge says so.
    assert games.evaluate("el => el.scrollWidth > el.clientWidth"), "the games table fits: nothing to hint"
    last = games.locator("thead th").last
    right = "el => el.getBoundingClientRect().right"
    assert last.evaluate(right) > games.evaluate(right) + 1  # its last column is past the edge
    shot(page, "issue51-looks-profile-tables-390x844")
    games.evaluate("el => { el.scrollLeft = el.scrollWidth; }")
    page.wait_for_function("el => el.scrollLeft > 0", arg=games.element_handle())
    assert last.evaluate(right) <= games.evaluate(right) + 1  # scrolled to: the whole column in the box


@pytest.mark.parametrize("scheme", ["dark", "light"])
def test_the_rated_and_watching_badges_have_a_contrast_of_4_5_in_both_themes(
    rated_game: str, themed: Callable[..., Page], shot: Shot, scheme: str
) -> None:
    page = themed(f"/watch/{rated_game}", scheme)
    rated = page.get_by_test_id("rated-mark")
    watching = page.locator(".banner .watching")
    expect(rated).to_have_text("Rated")
    expect(watching).to_have_text("Watching")
    assert page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") == (scheme == "dark")
    for badge in (rated, watching):
        ratio = badge.evaluate(CONTRAST)
        assert ratio >= 4.5, f"{badge.text_content()} in the {scheme} theme: {ratio:.2f}:1"
    shot(page, f"issue51-looks-badges-{scheme}-1280x800")


def test_the_chat_is_in_view_beside_the_board_during_play(
    create: Callable[..., dict[str, Any]], post: Post, open_page: OpenPage, shot: Shot
) -> None:
    game = create(opponent="human", seat="first", name="Chatty_a", clock={"initial": 600, "increment": 5})
    joined = post(game["invite_url"].replace("/join/", "/api/join/"), {"name": "Chatty_b"})
    first = open_page(game["seat_url"])
    second = open_page(joined["seat_url"])
    for page in (first, second):
        expect(page.get_by_test_id("chat")).to_be_visible()
    first.locator("#chat-input").fill("good luck")
    first.locator("#chat-input").press("Enter")
    line = second.get_by_test_id("chat-lines").locator("li", has_text="good luck")
    expect(line).to_be_visible()
    for page in (first, second):  # without scrolling: the chat's field, its last line, the board
        assert page.evaluate("() => scrollY") == 0
        assert page.locator("#chat-input").evaluate(IN_VIEW)
        assert page.get_by_test_id("chat-lines").locator("li").last.evaluate(IN_VIEW)
        chat, board = box(page, '[data-testid="chat"]'), box(page, ".board")
        assert chat["x"] >= board["x"] + board["width"], "the chat is beside the board"
    shot(second, "issue51-looks-chat-1280x800")


@pytest.fixture
def open_seek(server: str, post: Post) -> Iterator[str]:
    """A guest's open seek under a name of its own, cancelled after the test: the session's
    server is shared, and test_web_lobby.py counts the seeks it sees and a guest's open ones."""
    seek = post("/api/seeks", {"clock": {"initial": 300, "increment": 3}, "name": "Looks_filterer"})
    yield "Looks_filterer"
    answer = httpx.delete(f"{server}/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})
    assert answer.status_code == 204, answer.text


def test_the_lobbys_filters_are_compact_and_the_seeks_right_under_them(
    open_seek: str, open_page: OpenPage, shot: Shot
) -> None:
    page = open_page("/lobby")
    seek = page.locator(".seek", has_text=open_seek)
    expect(seek).to_have_count(1)
    shot(page, "issue51-looks-lobby-filters-1280x800")
    filters = box(page, '[data-testid="seek-filters"]')
    # They were 192 px tall, a label above each control.
    assert filters["height"] <= 90, f"the filters take {filters['height']:.0f} px"
    controls = page.locator('[data-testid="seek-filters"] select, [data-testid="seek-filters"] input')
    expect(controls).to_have_count(5)
    for i in range(controls.count()):  # each control on its label's line, beside it
        name = controls.nth(i).get_attribute("id")
        control, label = box(page, f"#{name}"), box(page, f'label[for="{name}"]')
        assert abs((label["y"] + label["height"] / 2) - (control["y"] + control["height"] / 2)) < 6, name
        assert label["x"] + label["width"] <= control["x"], name
    assert seek.evaluate("el => el.getBoundingClientRect().top") < filters["y"] + filters["height"] + 10
    assert seek.evaluate(IN_VIEW), "the first seek is in view without scrolling"
