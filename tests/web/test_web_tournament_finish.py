"""A tournament's pages with the game pages' finish (issue 51), in Chromium on the real server: the
form and buttons in the site's style, the creator joined as it creates, the bye told to its player,
a finished game's page in screen-reader mode that stays until its player follows the link, the
podium and each player's games once it is over, the event's link to copy, no polling of a finished
event nor into 401s after a sign-out, the focus, the invite list's choice and the list itself (an
open list stays open) kept when the page redraws, the invite list without the levels already in
the event (and one invited meanwhile refused in words), and the phone header's link to the
tournaments."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import BrowserContext, Page, expect

watched = cast(Callable[[BrowserContext, list[str]], Page], importlib.import_module("web_watched").watched)
"""A page whose console errors and uncaught exceptions are collected (``web_watched.py``)."""

OpenPage = Callable[..., Page]
Shot = Callable[[Page, str], Path]
PASSWORD = "reef-lagoon-coral-7"
FINISHED: dict[str, str] = {}
"""The finished event's address (the bye test's, read by the polling test after it)."""


def sign_up(page: Page, username: str) -> None:
    page.locator("#username").fill(username)
    page.locator("#password").fill(PASSWORD)
    page.locator("#signup-submit").click()
    page.wait_for_url(re.compile(r"/account$"))


def api(page: Page, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
    """The page's own request (its session and csrf cookie): the answer's JSON, or its status."""
    return page.evaluate(
        """async ([method, path, body]) => {
          const csrf = document.cookie.split("; ").find((c) => c.startsWith("csrf="))?.slice(5);
          const headers = { "Content-Type": "application/json", "X-CSRF-Token": decodeURIComponent(csrf || "") };
          const answer = await fetch(path, { method, headers, body: body ? JSON.stringify(body) : undefined });
          return answer.status === 201 || answer.status === 200 ? answer.json() : answer.status;
        }""",
        [method, path, body],
    )


def new_swiss(page: Page, name: str) -> str:
    clock = {"initial": 300, "increment": 3}
    body = {"kind": "swiss", "name": name, "clock": clock, "rounds": 1, "join": True}
    made = api(page, "POST", "/api/tournaments", body)
    assert isinstance(made, dict), f"POST /api/tournaments answered {made}"  # a status: refused
    return f"/tournaments/{made['tournament_id']}"


def test_the_form_and_buttons_are_the_sites_and_the_creator_is_joined(open_page: OpenPage, shot: Shot) -> None:
    page = open_page("/signup")
    sign_up(page, "Moana_cup")
    page.goto(page.url.replace("/account", "/tournaments"))
    form = page.get_by_test_id("tour-create")
    create = form.get_by_role("button", name="Create")
    expect(create).to_have_class(re.compile(r"\bbtn primary\b"))
    expect(create).to_have_css("border-radius", "6px")
    expect(form.locator(".field").filter(has=page.locator("#tour-name"))).to_be_visible()
    expect(page.locator("#tour-name")).to_have_css("border-radius", "5px")
    expect(page.locator("#tour-play")).to_be_checked()  # "I play in it": ticked unless unticked
    shot(page, "tourney-create-form")
    page.locator("#tour-name").fill("Atoll Swiss")
    create.click()
    page.wait_for_url(re.compile(r"/tournaments/[\w-]+$"))
    expect(page.get_by_test_id("tour-leave")).to_have_class(re.compile(r"\bbtn\b"))  # joined already
    expect(page.get_by_test_id("tour-join")).to_have_count(0)
    expect(page.get_by_test_id("standings")).to_contain_text("Moana_cup")
    expect(page.get_by_test_id("tour-start")).to_have_css("border-radius", "6px")
    page.get_by_test_id("tour-invite").get_by_role("button", name="Invite").click()
    expect(page.get_by_test_id("standings")).to_contain_text("ai-")
    shot(page, "tourney-creator-joined")


def test_the_bye_is_told_and_the_end_shows_a_podium_each_players_games_and_a_link(
    open_page: OpenPage, new_context: Callable[..., BrowserContext], shot: Shot
) -> None:
    host_context = new_context()
    # The host plays in screen-reader mode: its game page stays when the game is over (a screen
    # reader may still be reading the outcome), and its timers are the test's to move on
    host_context.add_init_script("localStorage.setItem('kahuna.reader', 'on')")
    host = open_page("/signup", host_context)
    host.clock.install()
    sign_up(host, "Hiro_cup")
    event = new_swiss(host, "Bye Cup")
    assert api(host, "POST", f"/api{event}/invite", {"username": "ai-easy"}) == 204
    guest_context = new_context()
    guest_context.grant_permissions(["clipboard-read", "clipboard-write"])
    guest = open_page("/signup", guest_context)
    sign_up(guest, "Tane_cup")  # the newest account: round 1's bye (swiss.py: the last in order)
    guest.goto(guest.url.replace("/account", event))
    guest.get_by_test_id("tour-join").click()
    expect(guest.get_by_test_id("tour-leave")).to_be_visible()
    host.goto(host.url.replace("/account", event))
    host.get_by_test_id("tour-start").click()
    host.wait_for_url(re.compile(r"/play/[\w-]+\?tournament="))
    expect(guest.get_by_test_id("tour-bye")).to_have_text(re.compile(r"You have the bye in round 1"))
    expect(guest.get_by_test_id("tour-waiting")).to_have_count(0)
    shot(guest, "tourney-bye")

    expect(host.locator(".board")).to_be_visible()
    host.locator("[data-testid=resign], [data-testid=abort]").first.click()
    host.locator("[data-testid=resign-confirm], [data-testid=abort-confirm]").first.click()
    told = host.get_by_role("status").filter(has=host.get_by_test_id("back-to-tournament"))
    expect(told).to_have_text("Game over: this page stays until you go back to the tournament. Back to the tournament")
    game_page = host.url
    host.clock.run_for(60_000)  # twelve times the pause after which a sighted player's page leaves
    expect(host.get_by_test_id("tour-back")).to_be_visible()
    assert host.url == game_page
    print(f"screen-reader mode: the game page still there 60 s after the end: {told.inner_text()!r}")
    host.get_by_test_id("back-to-tournament").focus()
    host.keyboard.press("Enter")
    host.wait_for_url(re.compile(r"/tournaments/[\w-]+$"))
    podium = guest.get_by_test_id("podium")
    expect(podium).to_be_visible()  # the guest's page learnt the end by itself
    for name in ("Hiro_cup", "Tane_cup", "ai-easy"):
        expect(podium).to_contain_text(name)
    expect(guest.get_by_test_id("podium-1")).to_contain_text("Points: 1")
    standings = guest.get_by_test_id("standings")
    host_games = standings.get_by_role("row").filter(has_text="Hiro_cup").get_by_test_id("player-games")
    expect(host_games.get_by_role("link", name=re.compile(r"against ai-easy"))).to_have_attribute(
        "href", re.compile(r"^/replay/[\w-]+$")
    )
    expect(standings.get_by_role("row").filter(has_text="Tane_cup").get_by_test_id("player-games")).to_have_text("+")
    link = guest.locator("#link-tournament")
    expect(link).to_have_value(guest.url)
    guest.locator("#copy-tournament").click()
    expect(guest.locator(".copy-row.tournament .copied")).to_have_text("Copied!")
    assert guest.evaluate("() => navigator.clipboard.readText()") == guest.url
    FINISHED["path"] = event
    shot(guest, "tourney-podium")


def test_a_finished_event_is_not_polled_after_the_bye_test(open_page: OpenPage) -> None:
    page = open_page("/")
    page.clock.install()  # its timers run on their own, and run_for() moves them on at once
    asked: list[str] = []
    page.on("request", lambda request: asked.append(request.url) if "/api/tournaments/" in request.url else None)
    page.goto(page.url.rstrip("/") + FINISHED["path"])
    expect(page.get_by_test_id("podium")).to_be_visible()
    seen = len(asked)
    page.clock.run_for(30_000)  # ten polls' time
    expect(page.get_by_test_id("podium")).to_be_visible()
    assert len(asked) == seen, asked[seen:]


def test_a_sign_out_elsewhere_turns_the_page_into_a_guests_without_401s(
    open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    context = new_context()
    page = open_page("/signup", context)
    sign_up(page, "Rua_cup")
    event = new_swiss(page, "Sign-out Cup")
    refused: list[str] = []
    page.on("response", lambda answer: refused.append(answer.url) if answer.status == 401 else None)
    page.goto(page.url.replace("/account", event))
    expect(page.get_by_test_id("tour-leave")).to_be_visible()
    other = context.new_page()  # another tab of the same browser signs out
    other.goto(page.url)
    assert api(other, "DELETE", "/api/session") == 204
    expect(page.get_by_role("link", name="Sign in to create or join a tournament")).to_be_visible()
    expect(page.get_by_test_id("tour-leave")).to_have_count(0)
    assert refused == []


def test_the_event_page_keeps_the_keyboard_focus_when_it_redraws(open_page: OpenPage) -> None:
    """The page redraws its standings when they change (it asks every 3 s): the control Tab is on
    keeps the focus, not thrown back to the top of the page (it was, at every poll)."""
    page = open_page("/signup")
    sign_up(page, "Vai_cup")
    event = new_swiss(page, "Focus Cup")
    page.goto(page.url.replace("/account", event))
    leave = page.get_by_test_id("tour-leave")
    leave.focus()
    assert api(page, "POST", f"/api{event}/invite", {"username": "ai-easy"}) == 204
    expect(page.get_by_test_id("standings")).to_contain_text("ai-easy")  # redrawn by the page's own poll
    expect(leave).to_be_focused()
    print("the event page redrawn with a new player: the focus still on", leave.inner_text())


def test_the_invite_list_keeps_its_choice_and_offers_no_level_already_in(open_page: OpenPage) -> None:
    """The creator's pick in the "Invite the computer" list survives the page's redraws (a new
    player in the standings) until it is sent; it was set back to the first level at every redraw.
    A level playing in the event already is not offered (the server refuses it, ``already_invited``:
    it was offered, and its refusal read "You have already joined."); with every level in, no list."""
    page = open_page("/signup")
    sign_up(page, "Tui_cup")
    event = new_swiss(page, "Choice Cup")
    page.goto(page.url.replace("/account", event))
    pick = page.locator("#tour-invite")
    offered = pick.locator("option")
    expect(offered.first).to_have_attribute("value", "ai-easy")  # the list is drawn
    levels: list[str] = offered.evaluate_all("(options) => options.map((o) => o.value)")
    assert "ai-hard" in levels
    pick.select_option("ai-hard")
    assert api(page, "POST", f"/api{event}/invite", {"username": "ai-easy"}) == 204
    expect(page.get_by_test_id("standings")).to_contain_text("ai-easy")  # redrawn by the page's own poll
    expect(pick).to_have_value("ai-hard")
    expect(offered).to_have_count(len(levels) - 1)
    expect(pick.locator("option[value='ai-easy']")).to_have_count(0)
    page.get_by_test_id("tour-invite").get_by_role("button", name="Invite").click()
    expect(page.get_by_test_id("standings")).to_contain_text("ai-hard")
    rest = [level for level in levels if level not in ("ai-easy", "ai-hard")]
    expect(offered).to_have_count(len(rest))
    assert offered.evaluate_all("(options) => options.map((o) => o.value)") == rest
    expect(pick).to_have_value(rest[0])  # sent: the list starts over, at its first level left
    for level in rest:
        assert api(page, "POST", f"/api{event}/invite", {"username": level}) == 204
    expect(page.get_by_test_id("standings")).to_contain_text(rest[-1])
    expect(page.get_by_test_id("tour-invite")).to_have_count(0)  # every level in: nothing to offer
    expect(page.get_by_test_id("tour-error")).to_be_empty()


def test_the_invite_list_stays_the_same_element_when_the_page_redraws(open_page: OpenPage) -> None:
    """A redraw (the page's poll saw a change) leaves the creator's invite list in the page, the
    same element with the same options: a list open under the creator's pointer stays open (it was
    made anew at each redraw, and an open list taken out of the page closes). A level invited
    meanwhile is taken out of that same list. (Headless Chromium shows no open list to look at: the
    test looks at the elements, tagged before the redraws.)"""
    page = open_page("/signup")
    sign_up(page, "Aroha_cup")
    event = new_swiss(page, "Open Cup")
    page.goto(page.url.replace("/account", event))
    pick = page.locator("#tour-invite")
    expect(pick.locator("option[value='ai-easy']")).to_have_count(1)
    pick.focus()
    pick.evaluate("(select) => { select.tagged = true; select.options[1].tagged = true; }")
    assert api(page, "POST", f"/api{event}/leave") == 204
    expect(page.get_by_test_id("tour-join")).to_be_visible()  # redrawn by the page's own poll
    assert pick.evaluate("(select) => [select.tagged, select.options[1].tagged]") == [True, True]
    assert api(page, "POST", f"/api{event}/invite", {"username": "ai-easy"}) == 204
    expect(pick.locator("option[value='ai-easy']")).to_have_count(0)  # the next poll's redraw
    assert pick.evaluate("(select) => select.tagged") is True
    expect(pick).to_be_focused()


def test_a_level_invited_from_elsewhere_meanwhile_is_refused_in_words(
    server: str, new_context: Callable[..., BrowserContext]
) -> None:
    """A level invited by another request between two of the page's polls is still in its list: its
    invitation from the page is refused in words (``already_invited``, not "You have already
    joined."), and the next poll takes it out of the list. The page's clock stands still between;
    the refusal's 409 is the one error in the console."""
    errors: list[str] = []
    page = watched(new_context(), errors)
    page.goto(server + "/signup")
    sign_up(page, "Kiri_cup")
    event = new_swiss(page, "Twice Cup")
    page.clock.install()
    page.goto(page.url.replace("/account", event))
    pick = page.locator("#tour-invite")
    expect(pick.locator("option[value='ai-easy']")).to_have_count(1)
    page.clock.pause_at(page.evaluate("Date.now()") + 100)  # no poll until run_for() below
    assert api(page, "POST", f"/api{event}/invite", {"username": "ai-easy"}) == 204
    pick.select_option("ai-easy")
    page.get_by_test_id("tour-invite").get_by_role("button", name="Invite").click()
    refused = "The computer at this level already plays in this tournament."
    expect(page.get_by_test_id("tour-error")).to_have_text(refused)
    page.clock.run_for(3_000)  # the next poll
    expect(page.get_by_test_id("standings")).to_contain_text("ai-easy")
    expect(pick.locator("option[value='ai-easy']")).to_have_count(0)
    assert errors == ["Failed to load resource: the server responded with a status of 409 (Conflict)"]


def test_the_phone_header_links_to_the_tournaments(open_page: OpenPage, shot: Shot) -> None:
    page = open_page("/", width=390, height=844)
    link = page.locator("header.top nav").get_by_role("link", name="Tournaments")
    expect(link).to_be_visible()
    box = link.bounding_box()
    assert box is not None and box["x"] + box["width"] <= 390
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    shot(page, "tourney-phone-header")
    for code in ("de", "nl", "es", "da"):  # the trophy leaves every language's header on one line
        page.locator("#language").select_option(code)
        expect(page.locator("header.top nav a.tour-nav")).to_be_visible()
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390, code
    page.locator("#language").select_option("en")
    link = page.locator("header.top nav").get_by_role("link", name="Tournaments")
    link.click()
    expect(page.locator("h1")).to_have_text("Tournaments")
