"""Every page under axe-core (issue 53): no serious or critical violation on any page the server
routes, in the light and the dark theme, at 1280×800 and on a phone (390×844), in all five
languages; the counts by rule are printed (and kept in ``artifacts/a11y-axe-*.json``).

axe-core is the script ``axe-playwright-python`` ships (its ``axe.min.js``, injected into the page
and run as it is). One signed-in moderator's browser context visits every page: the theme is
switched by media emulation, the size by the viewport and the language by the stored choice and a
reload, so one server and one context serve the whole matrix. ``make test`` checks each page in
one of the twenty combinations (the pages take them in turn, so every theme, size and language is
seen); the whole matrix (every page in every combination) is marked ``long``.
"""

from __future__ import annotations

import importlib
import json
import random
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path
from typing import Any, Literal, cast

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from kahuna.cli import main
from kahuna.server.http.pages import PAGE_ROUTES

AXE = (files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")
AXE_VERSION = AXE.split("\n", 1)[0].removeprefix("/*! axe v").strip()
Theme = Literal["light", "dark"]
THEMES: tuple[Theme, Theme] = ("light", "dark")
SIZES = ((1280, 800), (390, 844))
LANGUAGES = ("en", "de", "nl", "da", "es")
Combo = tuple[Theme, tuple[int, int], str]
COMBOS: list[Combo] = [(theme, size, code) for code in LANGUAGES for theme in THEMES for size in SIZES]
SERIOUS = ("serious", "critical")
ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
PASSWORD = "reef-lagoon-coral-7"
MODERATOR = "Ada_a11y"

_replay = importlib.import_module("test_web_replay")
finish_game = cast(Callable[[str, dict[str, Any], random.Random], int], _replay.finish_game)
_serving = importlib.import_module("web_serving")
post_json = cast(Callable[[str, str, dict[str, Any]], dict[str, Any]], _serving.post_json)

RUN_AXE = """async () => {
  const results = await axe.run(document, { resultTypes: ["violations"] });
  return results.violations.map((v) => ({
    id: v.id,
    impact: v.impact,
    nodes: v.nodes.map((n) => {
      const why = n.failureSummary.split("\\n").slice(1).join(" ");
      return `${n.target.join(" ")} :: ${why}`.slice(0, 240);
    }),
  }));
}"""

MINE = """() => {
  const g = document.querySelector(".game");
  return !!g && g.dataset.turn === "mine" && g.dataset.busy === "false";
}"""

CALL = """async ([method, path, body]) => {
  const csrf = document.cookie.split("; ").find((c) => c.startsWith("csrf="))?.slice(5);
  const headers = { "Content-Type": "application/json", "X-CSRF-Token": decodeURIComponent(csrf || "") };
  const answer = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
  return answer.json();
}"""


@dataclass(frozen=True)
class Visit:
    """One page as the test sees it: its route (one of the server's ``PAGE_ROUTES``), the address
    opened, what shows that it has drawn, and a tab or key that brings its state to the screen."""

    name: str
    route: str
    path: str
    ready: str
    then: str = ""  # once the page is ready: "key:<Key>" pressed, "tab:<selector>" or "check:<selector>" clicked


@dataclass
class Site:
    base: str
    page: Page
    visits: list[Visit]


def call(page: Page, method: str, path: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    """The page's own request to the API (its session cookie and CSRF header): the answer's JSON."""
    answer: dict[str, Any] = page.evaluate(CALL, [method, path, body])
    return answer


def visits(base: str, page: Page) -> list[Visit]:
    """The games, invitation, tournament and account the pages show, made through the API, and the
    pages themselves."""
    ai = post_json(base, "/api/games", {"opponent": "ai", "level": "easy", "seat": "first", "name": "Ada"})
    hotseat = post_json(base, "/api/games", {"opponent": "hotseat", "seat": "first", "name": "Ada"})
    over = post_json(base, "/api/games", {"opponent": "hotseat", "seat": "first", "name": "Ada"})
    finish_game(base, over, random.Random(53))
    tutorial = post_json(base, "/api/games", {"opponent": "tutorial"})
    friend = post_json(base, "/api/games", {"opponent": "human", "seat": "first", "name": "Ada"})
    invite = friend["invite_url"].rsplit("/", 1)[1]
    clock = {"initial": 300, "increment": 3}
    tour = call(
        page, "POST", "/api/tournaments", {"kind": "swiss", "name": "Reef", "clock": clock, "rounds": 2, "join": True}
    )
    # A spectator's page before the game's first message: its socket opens and nothing ever comes
    # (Playwright takes it in the server's place), so the page stays as it is until the game
    # arrives — the state a live page is in for a moment, where axe-core once caught the hand,
    # the display and the reader named by headings not drawn yet (one run in the 560).
    waiting = post_json(base, "/api/games", {"opponent": "hotseat", "seat": "first", "name": "Ada"})
    page.route_web_socket(f"**/ws/{waiting['game_id']}", lambda socket: None)
    return [
        Visit("home", "/", "/", "#main h1"),
        Visit("play-ai", "/play/{game_id}", f"/play/{ai['game_id']}#{ai['token']}", MINE),
        Visit("play-ai-reader", "/play/{game_id}", f"/play/{ai['game_id']}#{ai['token']}", MINE, "check:#reader-mode"),
        Visit(
            "hotseat",
            "/play/{game_id}",
            f"/play/{hotseat['game_id']}#{','.join(hotseat['tokens'])}",
            "[data-testid=curtain]",
        ),
        Visit("game-over", "/play/{game_id}", f"/play/{over['game_id']}#{','.join(over['tokens'])}", ".summary table"),
        Visit(
            "tutorial",
            "/play/{game_id}",
            f"/play/{tutorial['game_id']}?tutorial#{','.join(tutorial['tokens'])}",
            "[data-testid=tutorial]",
        ),
        Visit("join", "/join/{invite}", f"/join/{invite}", "#main form"),
        Visit("watch-game", "/watch/{game_id}", f"/watch/{ai['game_id']}", ".board .island"),
        Visit("watch-game-waiting", "/watch/{game_id}", f"/watch/{waiting['game_id']}", ".board .island"),
        Visit("watch", "/watch", "/watch", "[data-testid=watch-tile]"),
        Visit("tv", "/tv", "/tv", "[data-testid=tv-player-0]"),
        Visit("replay", "/replay/{game_id}", f"/replay/{over['game_id']}", ".replay-step", then="key:End"),
        Visit("rules", "/rules", "/rules", "#main h1"),
        Visit("puzzles", "/puzzles", "/puzzles?daily", "[data-testid=puzzle-task]"),
        Visit("signup", "/signup", "/signup", "#signup-submit"),
        Visit("signin", "/signin", "/signin", "#signin-submit"),
        Visit("account", "/account", "/account", "[data-testid=notify-grid] *, #notify-title"),
        Visit("mod-queue", "/mod", "/mod", "#mod-panel-queue > *"),
        Visit("mod-appeals", "/mod", "/mod", "#mod-tab-appeals", then="tab:#mod-tab-appeals"),
        Visit("mod-log", "/mod", "/mod", "#mod-tab-log", then="tab:#mod-tab-log"),
        Visit("mod-moderators", "/mod", "/mod", "#mod-tab-moderators", then="tab:#mod-tab-moderators"),
        Visit("verify-email", "/email/verify", "/email/verify", "[data-testid=verify-status]"),
        Visit("password-reset", "/password-reset", "/password-reset", "#reset-email"),
        Visit("unsubscribe", "/unsubscribe/{token}", "/unsubscribe/not-a-token", "[data-testid=unsubscribe-status]"),
        Visit("lobby", "/lobby", "/lobby", "[data-testid=seek-filters]"),
        Visit("profile", "/users/{username}", f"/users/{MODERATOR}", "[data-testid=profile-games]"),
        Visit("leaderboard", "/leaderboard", "/leaderboard", ".leaderboard h1"),
        Visit("following", "/following", "/following", "[data-testid=following-list]"),
        Visit("tournaments", "/tournaments", "/tournaments", "[data-testid=tour-create]"),
        Visit(
            "tournament",
            "/tournaments/{tournament_id}",
            f"/tournaments/{tour['tournament_id']}",
            "[data-testid=standings]",
        ),
    ]


@pytest.fixture(scope="module")
def pages(site: tuple[str, str], browser: Browser) -> Iterator[Site]:
    """The module's server, a moderator (and admin) signed in in one browser context, and the pages."""
    base, db = site
    # No service worker: hundreds of page loads in one context once stalled for 20 s on the shell
    # cache's worker (the offline shell has its own test, test_web_app.py)
    context: BrowserContext = browser.new_context(locale="en-GB", reduced_motion="reduce", service_workers="block")
    context.set_default_timeout(20000)
    context.add_init_script(AXE)  # every page the context opens has axe-core, as a page's own script
    page = context.new_page()
    page.goto(base + "/signup")
    page.locator("#username").fill(MODERATOR)
    page.locator("#password").fill(PASSWORD)
    page.locator("#signup-submit").click()
    page.wait_for_url(f"{base}/account")
    for role in ("moderator", "admin"):
        assert main(["admin", "grant", MODERATOR, role, "--db", db]) == 0
    yield Site(base, page, visits(base, page))
    context.close()


def show(site: Site, visit: Visit, code: str) -> None:
    """Open the page in the language ``code`` (the picker's stored choice) and wait until it has drawn."""
    page = site.page
    # the language, and screen-reader mode off unless the visit switches it on
    page.evaluate(
        "code => { localStorage.setItem('kahuna.lang', code); localStorage.removeItem('kahuna.reader'); }", code
    )
    if page.url == site.base + visit.path:
        page.reload()  # the same address with a fragment (a seat's link) would not load the page again
    else:
        page.goto(site.base + visit.path)
    page.locator("#language").wait_for(state="attached")  # the header: the page's script has run
    expect(page.locator("html")).to_have_attribute("lang", code)
    try:
        if visit.ready.startswith("()"):
            page.wait_for_function(visit.ready)
        else:
            page.locator(visit.ready).first.wait_for(state="attached")
    except PlaywrightTimeout as timeout:
        raise AssertionError(
            f"{visit.name} in {code} never drew: {page.locator('main').inner_text()[:300]}"
        ) from timeout
    how, _, what = visit.then.partition(":")
    if how == "key":
        page.keyboard.press(what)
    elif how == "tab":
        page.locator(what).click()
        expect(page.locator(what)).to_have_attribute("aria-selected", "true")
        # The panel is fetched when its tab is shown (aria-busy until drawn): a walk begun before
        # missed the log's download link the panel drew meanwhile (the clean-clone CI of 38ed7e2).
        panel = page.locator(what).get_attribute("aria-controls")
        if panel:
            expect(page.locator(f"#{panel}")).to_have_attribute("aria-busy", "false")
    elif how == "check":
        page.locator(what).check()
        if what == "#reader-mode":
            # The reader asks the server what the referee foresees, and its answer redraws the game
            # page, the hand's cards anew: a Tab walk begun before it lost the focus to the redraw
            # and ended early, the cards and Pass never reached (the clean-clone CI of 12e5a29).
            page.locator("[data-testid=reader][data-foreseen=yes]").wait_for(state="attached")


def check(page: Page, theme: Theme, size: tuple[int, int]) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it is, in the theme and window size given."""
    page.emulate_media(color_scheme=theme)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
    found: list[dict[str, Any]] = page.evaluate(RUN_AXE)
    return found


def report(results: dict[str, list[dict[str, Any]]], name: str) -> list[str]:
    """Print the counts by page and by rule, keep them in artifacts/, and return the serious and
    critical violations in words."""
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / f"a11y-axe-{name}.json").write_text(json.dumps(results, indent=1, sort_keys=True))
    by_rule: Counter[str] = Counter()
    serious: list[str] = []
    print(f"\naxe-core {AXE_VERSION}: violations (nodes) by page")
    for where, violations in results.items():
        counts = {f"{v['id']} ({v['impact']})": len(v["nodes"]) for v in violations}
        by_rule.update(counts)
        print(f"  {where}: {sum(counts.values())} {counts if counts else ''}")
        serious += [
            f"{where}: {v['id']} ({v['impact']}) {v['nodes'][:3]}" for v in violations if v["impact"] in SERIOUS
        ]
    print("by rule (nodes, all pages):", dict(by_rule.most_common()) or "none")
    return serious


def test_the_pages_cover_every_route_the_server_serves(pages: Site) -> None:
    assert {visit.route for visit in pages.visits} == set(PAGE_ROUTES)


def test_every_page_in_one_theme_size_and_language(pages: Site) -> None:
    """Each page in one combination, the pages taking the twenty in turn."""
    results: dict[str, list[dict[str, Any]]] = {}
    for i, visit in enumerate(pages.visits):
        theme, size, code = COMBOS[i % len(COMBOS)]
        show(pages, visit, code)
        results[f"{visit.name} {theme} {size[0]}x{size[1]} {code}"] = check(pages.page, theme, size)
    serious = report(results, "sample")
    assert not serious, "serious or critical violations:\n" + "\n".join(serious)


@pytest.mark.long
@pytest.mark.timeout(1800)  # 600 runs of axe-core: some 5 minutes on a loaded 2-core machine
def test_every_page_in_every_theme_size_and_language(pages: Site) -> None:
    results: dict[str, list[dict[str, Any]]] = {}
    for visit in pages.visits:
        for code in LANGUAGES:
            show(pages, visit, code)
            for theme in THEMES:
                for size in SIZES:
                    results[f"{visit.name} {theme} {size[0]}x{size[1]} {code}"] = check(pages.page, theme, size)
    serious = report(results, "matrix")
    assert not serious, "serious or critical violations:\n" + "\n".join(serious)


# The element that has the focus, in words, and whether its focus is shown: an outline or a shadow
# of its own, else any other change of its (or its first parts') look between focused and not.
FOCUS_STEP = """() => {
  const el = document.activeElement;
  if (!el || el === document.body || el === document.documentElement) return null;
  const reached = (window.__reached ||= new Set());
  const again = reached.has(el);
  reached.add(el);
  const name = `${el.tagName.toLowerCase()}#${el.id}.${el.getAttribute("class") || ""} "${
    (el.getAttribute("aria-label") || el.textContent || "").trim().slice(0, 30)}"`;
  const s = getComputedStyle(el);
  if ((s.outlineStyle !== "none" && parseFloat(s.outlineWidth) >= 2) || s.boxShadow !== "none") {
    return { name, again, shown: true };
  }
  const parts = [el, ...el.querySelectorAll("*")].slice(0, 8);
  const look = () => parts.map((p) => {
    const c = getComputedStyle(p);
    return [c.outline, c.boxShadow, c.backgroundColor, c.borderColor, c.color, c.stroke, c.strokeWidth, c.fill,
      c.opacity, c.textDecorationLine].join("|");
  }).join(";");
  const focused = look();
  el.blur();
  const blurred = look();
  el.focus({ preventScroll: true });
  return { name, again, shown: focused !== blurred };
}"""

# What a mouse could click (the outermost element under a pointer cursor, on screen) that the Tab
# walk did not reach: neither itself, nor a control in it or around it, nor its label's control,
# nor a radio button of a group Tab reached (the arrow keys move inside a group), nor a sibling
# that is its group's one Tab stop (the hand's cards). A game board's unlit lines and bridges are
# left out: a click on one only says why it cannot be played, and the keyboard's way to that answer
# is the notation field (the lit ones are Tab stops, on the board and again as buttons).
UNREACHED = """() => {
  const reached = window.__reached || new Set();
  const shown = (e) => e.checkVisibility({ visibilityProperty: true }) && e.getBoundingClientRect().width > 0;
  const pointer = (e) => e && getComputedStyle(e).cursor === "pointer";
  const control = (e) => e.control || e.closest("label")?.control;
  const radioReached = (input) => input?.type === "radio" &&
    [...reached].some((r) => r.type === "radio" && r.name === input.name);
  const ok = (e) =>
    [...reached].some((r) => r === e || e.contains(r) || r.contains(e)) ||
    (control(e) && (reached.has(control(e)) || radioReached(control(e)))) ||
    radioReached(e) ||
    (e.tabIndex === -1 && [...e.parentElement.children].some((c) => reached.has(c))) ||
    e.matches(".board .route-group, .board .bridge");
  return [...document.querySelectorAll("body *")]
    .filter((e) => pointer(e) && !pointer(e.parentElement) && shown(e) && !ok(e))
    .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.getAttribute("class") || ""}`);
}"""

KEYBOARD_SAMPLE = ("home", "play-ai-reader", "account", "mod-queue", "tournament")  # make test's: a few seconds


def walk(page: Page, limit: int = 200) -> tuple[int, list[str], list[str]]:
    """Tab through the page until the focus comes back to where it has been: the number of Tab
    stops, the ones whose focus is not shown, and what a mouse could click that Tab never reached."""
    page.evaluate("() => { window.__reached = new Set(); document.activeElement?.blur(); }")
    hidden: list[str] = []
    for _ in range(limit):
        page.keyboard.press("Tab")
        step = page.evaluate(FOCUS_STEP)
        if step is None:
            continue
        if step["again"]:
            break
        if not step["shown"]:
            hidden.append(step["name"])
    else:
        raise AssertionError(f"the focus never came back after {limit} Tabs")
    stops: int = page.evaluate("() => window.__reached.size")
    return stops, hidden, page.evaluate(UNREACHED)


def keyboard_check(pages: Site, names: tuple[str, ...] | None) -> None:
    """The Tab walk on the pages named (all pages if None), in English at 1280×800, light theme."""
    page = pages.page
    page.emulate_media(color_scheme="light")
    page.set_viewport_size({"width": 1280, "height": 800})
    problems: list[str] = []
    for visit in pages.visits:
        if names is not None and visit.name not in names:
            continue
        show(pages, visit, "en")
        stops, hidden, unreached = walk(page)
        print(f"  {visit.name}: {stops} Tab stops, focus not shown on {len(hidden)}, unreached {len(unreached)}")
        problems += [f"{visit.name}: focus not shown on {name}" for name in hidden]
        problems += [f"{visit.name}: not reached by Tab: {name}" for name in unreached]
    assert not problems, "\n".join(problems)


def test_every_control_of_some_pages_is_reached_by_tab_with_its_focus_shown(pages: Site) -> None:
    keyboard_check(pages, KEYBOARD_SAMPLE)


@pytest.mark.long
def test_every_control_of_every_page_is_reached_by_tab_with_its_focus_shown(pages: Site) -> None:
    keyboard_check(pages, None)


def test_screen_reader_mode_is_one_setting_on_the_account_page_and_the_game_page(pages: Site) -> None:
    """The account page's switch and the game page's are the same setting of this browser."""
    page = pages.page
    account = next(visit for visit in pages.visits if visit.name == "account")
    game = next(visit for visit in pages.visits if visit.name == "play-ai")
    show(pages, account, "en")
    expect(page.locator("#account-reader-mode")).not_to_be_checked()
    page.get_by_label("Screen-reader mode").check()
    page.goto(pages.base + game.path)
    page.wait_for_function(game.ready)
    expect(page.get_by_test_id("reader")).to_be_visible()
    page.locator("#reader-mode").uncheck()
    expect(page.get_by_test_id("reader")).to_be_hidden()
    page.goto(pages.base + account.path)
    expect(page.locator("#account-reader-mode")).not_to_be_checked()
