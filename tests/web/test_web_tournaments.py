"""Tournaments in Chromium: a player creates a Swiss on /tournaments (by keyboard), a second player
joins from the list, the creator starts it; both are taken to the same game (the tab's title says
so), and once it is over back to the standings, which show the result. The pages on a phone, in
German. Screenshots go to artifacts/screenshots/ and /work/shots/tourney/ when that folder exists."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]
SHOTS = Path("/work/shots/tourney")


def sign_up(page: Page, username: str) -> None:
    """Create an account on the sign-up page (the browser context stays signed in)."""
    page.locator("#username").fill(username)
    page.locator("#password").fill("reef-lagoon-coral-7")
    page.locator("#signup-submit").click()
    page.wait_for_url(re.compile(r"/account$"))


def keep(path: Path) -> None:
    """Also copy a screenshot where the team collects them (outside the repository), if it exists."""
    if SHOTS.parent.is_dir():
        SHOTS.mkdir(exist_ok=True)
        shutil.copy(path, SHOTS / path.name)


KEEP_TITLES = """() => {
  const keep = () => {
    const seen = JSON.parse(sessionStorage.titles || "[]");
    seen.push(document.title);
    sessionStorage.titles = JSON.stringify(seen);
  };
  new MutationObserver(keep).observe(document.head, { childList: true, characterData: true, subtree: true });
}"""
"""Keep every title the tab shows in the tab's sessionStorage (read after the page has moved on)."""


def test_two_players_join_a_swiss_are_taken_to_their_game_and_back_to_the_standings(
    open_page: OpenPage, new_context: Callable[..., BrowserContext], shot: Callable[[Page, str], Path]
) -> None:
    creator = open_page("/signup", new_context())
    sign_up(creator, "Hina_tour")
    creator.goto(creator.url.replace("/account", "/tournaments"))
    expect(creator.get_by_test_id("tour-create")).to_be_visible()
    name = creator.locator("#tour-name")
    name.fill("Reef Swiss")
    creator.locator("#tour-rounds").fill("1")
    creator.locator("#tour-rated").check()
    name.press("Enter")  # the keyboard submits the form
    creator.wait_for_url(re.compile(r"/tournaments/[\w-]+$"))
    expect(creator.locator("h1")).to_have_text("Reef Swiss")
    expect(creator.get_by_test_id("tour-leave")).to_be_visible()  # the creator plays in it: joined

    joiner = open_page("/signup", new_context())
    sign_up(joiner, "Kai_tour")
    joiner.goto(joiner.url.replace("/account", "/tournaments"))
    listed = joiner.get_by_test_id("tour-upcoming").get_by_role("link", name="Reef Swiss")
    keep(shot(joiner, "tourney-list"))
    listed.click()
    joiner.get_by_test_id("tour-join").click()
    expect(joiner.get_by_test_id("standings")).to_contain_text("Kai_tour")
    expect(creator.get_by_test_id("standings")).to_contain_text("Kai_tour")  # live: refreshed on its own
    keep(shot(creator, "tourney-before-start"))

    for page in (creator, joiner):
        page.evaluate(KEEP_TITLES)  # the "▶" lasts until the page leaves for the game: kept, not raced
    creator.get_by_test_id("tour-start").click()
    creator.wait_for_url(re.compile(r"/play/[\w-]+\?tournament="))
    joiner.wait_for_url(re.compile(r"/play/[\w-]+\?tournament="))
    for page in (creator, joiner):  # the tab said a game was waiting before the page left for it
        assert any("▶" in title for title in page.evaluate("() => JSON.parse(sessionStorage.titles || '[]')"))
    assert creator.url.split("#")[0] == joiner.url.split("#")[0]
    for page in (creator, joiner):
        expect(page.locator(".board")).to_be_visible()
    keep(shot(joiner, "tourney-game"))

    quitter = joiner
    buttons = quitter.locator("[data-testid=resign], [data-testid=abort]")
    buttons.first.click()
    quitter.locator("[data-testid=resign-confirm], [data-testid=abort-confirm]").first.click()
    for page in (creator, joiner):
        expect(page.get_by_test_id("back-to-tournament")).to_be_visible()
    creator.wait_for_url(re.compile(r"/tournaments/[\w-]+$"))
    expect(creator.get_by_test_id("tour-summary")).to_contain_text("finished")
    expect(creator.get_by_test_id("pairings")).to_contain_text("Hina_tour")
    keep(shot(creator, "tourney-finished"))


def test_the_tournament_pages_on_a_phone_in_german_after_the_first_test(
    open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    page = open_page("/tournaments", width=390, height=800, locale="de-DE")
    expect(page.locator("h1")).to_have_text("Turniere")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    expect(page.get_by_test_id("tour-finished")).to_contain_text("Reef Swiss")  # the first test's, over
    sign_in = "Melde dich an, um ein Turnier zu erstellen oder mitzuspielen"
    expect(page.get_by_role("link", name=sign_in)).to_be_visible()
    page.get_by_test_id("tour-finished").get_by_role("link", name="Reef Swiss").click()
    expect(page.get_by_test_id("tour-summary")).to_contain_text("beendet")
    expect(page.get_by_test_id("standings")).to_contain_text("Hina_tour")
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    keep(shot(page, "tourney-phone-de"))


def test_the_creator_invites_a_computer_level_from_the_page(
    open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    creator = open_page("/signup", new_context(locale="nl-NL"))
    sign_up(creator, "Ari_tour")
    creator.goto(creator.url.replace("/account", "/tournaments"))
    creator.locator("#tour-kind").select_option("arena")
    creator.locator("#tour-name").fill("Lagoon Arena")
    creator.locator("#tour-play").uncheck()  # an organiser who does not play
    creator.get_by_role("button", name="Maken").click()
    creator.wait_for_url(re.compile(r"/tournaments/[\w-]+$"))
    expect(creator.get_by_test_id("tour-summary")).to_contain_text("Arena")
    # The level by the one name every page gives it, in the page's language.
    expect(creator.locator("#tour-invite option[value='ai-medium']")).to_have_text("Kahuna-AI (Gemiddeld)")
    creator.locator("#tour-invite").select_option("ai-medium")
    creator.get_by_test_id("tour-invite").get_by_role("button", name="Uitnodigen").click()
    expect(creator.get_by_test_id("standings")).to_contain_text("ai-medium")
    expect(creator.locator("#tour-berserk")).to_have_count(0)  # berserk is for players who joined
