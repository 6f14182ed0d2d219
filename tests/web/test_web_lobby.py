"""The community lobby in Chromium: a seek posted in one browser and accepted in another takes
both to the same game; the profile (rating graph) and leaderboard pages, on a phone too; no challenge
to the site's own account."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import cast

from playwright.sync_api import BrowserContext, Page, expect

watched = cast(Callable[[BrowserContext, list[str]], Page], importlib.import_module("web_watched").watched)
"""A page whose console errors and uncaught exceptions are collected (``web_watched.py``)."""

OpenPage = Callable[..., Page]


def test_a_seek_accepted_in_a_second_browser_takes_both_to_the_same_game(
    open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    seeker = open_page("/lobby", new_context())
    seeker.locator("#seek-name").fill("Seeker")
    seeker.locator("#new-seek").click()
    expect(seeker.get_by_test_id("seek-status")).not_to_be_empty()
    mine = seeker.locator(".seek", has_text="Seeker")
    expect(mine.get_by_role("button")).to_have_text("Cancel")

    taker = open_page("/lobby", new_context())
    row = taker.locator(".seek", has_text="Seeker")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("5+3")
    row.get_by_role("button", name="Play").click()
    taker.wait_for_url("**/play/**")
    seeker.wait_for_url("**/play/**")
    assert seeker.url.split("#")[0] == taker.url.split("#")[0]
    for page in (seeker, taker):
        expect(page.locator(".board")).to_be_visible()
    seats = {
        page.evaluate("() => JSON.parse(localStorage.getItem('kahuna.seats'))[0].seat") for page in (seeker, taker)
    }
    assert seats == {0, 1}


def test_lobby_profile_and_leaderboard_pages_on_a_phone(open_page: OpenPage) -> None:
    profile = open_page("/users/ai-medium", width=390, height=800, locale="de-DE")
    expect(profile.get_by_test_id("profile-name")).to_contain_text("ai-medium")
    expect(profile.get_by_test_id("profile-name")).to_contain_text("Kahuna-KI (Mittel)")  # as on every page
    expect(profile.get_by_test_id("rating-realtime")).to_contain_text("1500 ±50")  # a fixed anchor
    expect(profile.locator(".graph-empty").first).to_have_text("Noch keine gewerteten Partien.")
    width = profile.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390
    lobby = open_page("/lobby", width=390, height=800, locale="es-ES")
    expect(lobby.locator("#play-now")).to_have_text("Jugar ya")
    expect(lobby.locator(".bot-levels button")).to_have_count(6)  # easy to grandmaster
    expect(lobby.locator(".bot-levels button").first).to_have_text("IA de Kahuna (Fácil)")
    assert lobby.evaluate("() => document.documentElement.scrollWidth") <= 390
    board = open_page("/leaderboard?pool=correspondence", width=390, height=800)
    expect(board.locator("h1")).to_have_text("Leaderboard")
    expect(board.locator(".pool-tabs a[aria-current=page]")).to_have_text("Correspondence")


def sign_up(page: Page, username: str) -> None:
    """Create an account on the sign-up page (the browser context stays signed in)."""
    page.locator("#username").fill(username)
    page.locator("#password").fill("reef-lagoon-coral-7")
    page.locator("#signup-submit").click()
    page.wait_for_url(re.compile(r"/account$"))


def test_a_player_challenged_from_a_profile_accepts_in_the_lobby_and_both_play_the_rated_game(
    open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    target = open_page("/signup", new_context())
    sign_up(target, "Tane_web")
    target.goto(target.url.replace("/account", "/lobby"))
    expect(target.get_by_test_id("seek-list")).to_be_visible()

    challenger = open_page("/signup", new_context())
    sign_up(challenger, "Moana_web")
    challenger.goto(challenger.url.replace("/account", "/users/tane_WEB"))
    challenger.locator("#challenge-link").click()
    challenger.wait_for_url(re.compile(r"/lobby\?challenge="))
    expect(challenger.locator("#seek-rated")).to_be_checked()
    challenger.locator("#challenge").click()
    expect(challenger.get_by_test_id("seek-status")).to_contain_text("Tane_web")  # the name as its owner wrote it

    offer = target.get_by_test_id("challenge-list").locator(".seek", has_text="Moana_web")
    expect(offer).to_contain_text("Rated")
    offer.get_by_role("button", name="Play").click()
    target.wait_for_url("**/play/**")
    challenger.wait_for_url("**/play/**")
    assert target.url.split("#")[0] == challenger.url.split("#")[0]
    expect(challenger.locator(".board")).to_be_visible()


def test_the_sites_own_account_offers_no_challenge(server: str, new_context: Callable[..., BrowserContext]) -> None:
    """The site's own account (``kahuna``, the fair-play screening's reporter) plays no games: its
    profile offers no "Challenge" (an AI level's does), and a challenge sent from the lobby's link
    anyway is refused in words (the refusal's 422 the one error in the console)."""
    errors: list[str] = []
    page = watched(new_context(), errors)
    page.goto(server + "/signup")
    sign_up(page, "Hine_web")
    page.goto(server + "/users/ai-easy")
    expect(page.locator("#challenge-link")).to_be_visible()
    page.goto(server + "/users/kahuna")
    expect(page.get_by_test_id("profile-name")).to_contain_text("kahuna")  # the profile is drawn
    expect(page.locator("#challenge-link")).to_have_count(0)
    page.goto(server + "/lobby?challenge=kahuna")
    page.locator("#challenge").click()
    expect(page.get_by_test_id("seek-status")).to_have_text("This is the site's own account: it plays no games.")
    assert errors == ["Failed to load resource: the server responded with a status of 422 (Unprocessable Entity)"]


def test_guests_see_rated_seeks_as_needing_an_account_and_filter_the_seeks(
    open_page: OpenPage, new_context: Callable[..., BrowserContext], shot: Callable[[Page, str], Path]
) -> None:
    """A guest sees a rated seek with a link to sign in instead of a button to take it; a custom
    clock out of bounds is refused with the bounds, one in them makes a seek; the filters hide
    others' seeks (not one's own) and say how many."""
    rater = open_page("/signup", new_context())
    sign_up(rater, "Rangi_web")
    rater.goto(rater.url.replace("/account", "/lobby"))
    expect(rater.locator("#seek-rated")).to_be_checked()
    rater.locator("#new-seek").click()
    expect(rater.get_by_test_id("seek-status")).not_to_be_empty()

    guest = open_page("/lobby", new_context())
    rated = guest.locator(".seek", has_text="Rangi_web")
    expect(rated).to_contain_text("Rated")
    expect(rated.locator("a.needs-account")).to_have_text("Sign in to play (rated)")
    expect(rated.locator("a.needs-account")).to_have_attribute("href", "/signin")
    expect(rated.get_by_role("button")).to_have_count(0)
    # A custom clock: one minute each, nothing added.
    guest.locator("#seek-clock").select_option("custom")
    guest.locator("#seek-minutes").fill("0")
    guest.locator("#seek-name").fill("Guesty")
    guest.locator("#new-seek").click()
    expect(guest.get_by_test_id("seek-status")).to_have_text(
        "A custom clock has 1 to 180 minutes and 0 to 60 seconds per turn."
    )
    guest.locator("#seek-minutes").fill("1")
    guest.locator("#seek-increment").fill("0")
    guest.locator("#new-seek").click()
    own = guest.locator(".seek", has_text="Guesty")
    expect(own).to_contain_text("1+0")
    expect(own.get_by_role("button")).to_have_text("Cancel")
    # The filters hide others' seeks (one's own stays) and say how many they hide.
    count = guest.get_by_test_id("filter-count")
    guest.locator("#filter-rated").select_option("casual")
    expect(rated).to_have_count(0)
    expect(own).to_have_count(1)
    expect(count).to_contain_text("hidden by the filters")
    guest.locator("#filter-rated").select_option("any")
    expect(rated).to_have_count(1)
    guest.locator("#filter-min").fill("1400")
    expect(rated).to_have_count(1)
    guest.locator("#filter-max").fill("1450")
    expect(rated).to_have_count(0)
    guest.locator("#filter-max").fill("")
    guest.locator("#filter-clock").select_option("correspondence")
    expect(rated).to_have_count(0)
    guest.reload()  # the filters are kept in this browser
    expect(guest.locator("#filter-clock")).to_have_value("correspondence")
    expect(guest.locator(".seek", has_text="Rangi_web")).to_have_count(0)
    guest.locator("#filter-clock").select_option("realtime")
    guest.locator("#filter-variant").select_option("variants")
    expect(guest.locator(".seek", has_text="Rangi_web")).to_have_count(0)
    guest.locator("#filter-variant").select_option("standard")
    expect(guest.locator(".seek", has_text="Rangi_web")).to_have_count(1)
    shot(guest, "lobby-filters-1280x800")
