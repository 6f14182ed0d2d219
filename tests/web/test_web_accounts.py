"""Accounts in the browser: a guest's game, sign-up (which adopts it), the account page (tokens
with their scopes, shown once, listed as text, revoked; the signed-in browsers, one signed out from
another, a password change, sign out everywhere), sign-out, and the same game resumed from another browser by
signing in there, where that seat (without its token) gets a hint, resigns, agrees on a rematch it
opens as its account's seat, and may start the analysis; on a phone-sized screen."""

from __future__ import annotations

import re
from collections.abc import Callable

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]
PASSWORD = "reef-lagoon-coral-7"
PHONE = {"width": 390, "height": 844}


def test_sign_up_adopts_the_guest_game_and_another_browser_resumes_it(
    open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    guest = open_page("/", **PHONE)
    guest.get_by_label("Against the computer").check()
    guest.locator("#level").select_option("random")
    guest.locator("#name").fill("Hina")
    guest.locator("#start").click()
    guest.wait_for_url(re.compile(r"/play/"))
    game_id = guest.url.split("/play/")[1].split("#")[0]

    guest.goto(guest.url.split("/play/")[0] + "/")
    guest.get_by_test_id("account-link").get_by_role("link", name="Sign in").click()
    guest.wait_for_url(re.compile(r"/signin$"))
    guest.get_by_role("link", name="Create an account").click()
    guest.locator("#username").fill("Hina_web")
    guest.locator("#password").fill(PASSWORD)
    guest.locator("#signup-submit").click()
    guest.wait_for_url(re.compile(r"/account$"))
    expect(guest.locator("#account-name")).to_have_text("Hina_web")
    expect(guest.get_by_test_id("account-link")).to_have_text("Hina_web")
    expect(guest.locator(".ratings li").first).to_contain_text("1500?")
    width = guest.evaluate("document.getElementById('main').scrollWidth")
    assert width <= PHONE["width"], f"the account page is {width} px wide on a {PHONE['width']} px screen"

    # a token named like markup is listed as text; the secret is shown once
    guest.locator("#token-name").fill('<img src=x id="injected">')
    guest.locator("#token-scope-play").check()
    guest.locator("#token-password").fill(PASSWORD)
    guest.locator("#token-create").click()
    secret = guest.locator("#new-token")
    expect(secret).to_have_value(re.compile(r"^kahuna_"))
    expect(guest.get_by_test_id("token-list").locator(".token-name")).to_have_text('<img src=x id="injected">')
    expect(guest.get_by_test_id("token-list").locator(".token-scopes")).to_have_text("may read, play")
    assert guest.locator("#injected").count() == 0
    guest.reload()
    assert guest.locator("#new-token").count() == 0
    guest.get_by_role("button", name='Revoke the token <img src=x id="injected">').click()
    expect(guest.get_by_test_id("token-list")).to_have_text("No tokens.")

    guest.locator("#sign-out").click()
    guest.wait_for_url(re.compile(r"/$"))
    expect(guest.get_by_test_id("account-link")).to_have_text("Sign in")

    # another browser, no seat tokens of its own: signing in brings the game along
    other = open_page("/signin", context=new_context(**PHONE))
    other.locator("#username").fill("hina_WEB")  # the name without regard to case
    other.locator("#password").fill(PASSWORD)
    other.locator("#signin-submit").click()
    other.wait_for_url(re.compile(r"/$"))
    expect(other.get_by_test_id("account-link")).to_have_text("Hina_web")
    resume = other.locator(f'.my-game-link[href^="/play/{game_id}#seat:"]')
    expect(resume).to_have_count(1)
    resume.click()
    expect(other.locator(".players-box .you")).to_have_count(1)  # playing its seat, not watching
    assert other.locator(".watching").count() == 0

    # without its token, the seat gets a hint, and after resigning a rematch and the analysis
    expect(other.locator(".game")).to_have_attribute("data-turn", "mine")
    other.locator("#hint").click()
    expect(other.get_by_test_id("message")).to_contain_text("AI hint: ")
    other.get_by_test_id("resign").click()
    other.get_by_test_id("resign-confirm").click()
    expect(other.locator(".game")).to_have_attribute("data-turn", "over")
    other.get_by_test_id("rematch").click()  # the AI accepts at once: taken to the account's new seat
    other.wait_for_url(re.compile(r"/play/(?!" + re.escape(game_id) + r")[^#]+#seat:[01]$"))
    expect(other.get_by_test_id("rematch-of")).to_be_visible()
    expect(other.locator(".players-box .you")).to_have_count(1)
    assert other.locator(".watching").count() == 0
    assert other.evaluate("localStorage.getItem('kahuna.seats') || '[]'") == "[]"  # no token was kept
    other.goto(other.url.split("/play/")[0] + f"/replay/{game_id}")
    other.locator("#analysis-ask").click()
    expect(other.locator("#analysis-graph")).to_be_visible(timeout=60000)


def test_the_account_page_lists_sessions_changes_the_password_and_signs_out_everywhere(
    open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    first = open_page("/signup", **PHONE)
    first.locator("#username").fill("Kailua_web")
    first.locator("#password").fill(PASSWORD)
    first.locator("#signup-submit").click()
    first.wait_for_url(re.compile(r"/account$"))
    pages = [first]
    for _ in range(2):
        other = open_page("/signin", context=new_context(**PHONE))
        other.locator("#username").fill("Kailua_web")
        other.locator("#password").fill(PASSWORD)
        # The home page asks for the account's games once it knows who is signed in: wait for
        # that answer, or a session ended below would make it a 401 in this page's console.
        with other.expect_response(lambda response: response.url.endswith("/api/me/games")):
            other.locator("#signin-submit").click()
        other.wait_for_url(re.compile(r"/$"))
        pages.append(other)
    first.reload()
    sessions = first.get_by_test_id("session-list").locator(".session")
    expect(sessions).to_have_count(3)
    expect(first.locator(".session-current")).to_have_text("this browser")
    first.locator(".end-session").first.click()
    expect(sessions).to_have_count(2)

    first.locator(".change-password summary").click()
    first.locator("#password-current").fill(PASSWORD)
    first.locator("#password-new").fill("harbour-orchid-lantern")
    first.locator("#password-change").click()
    expect(first.get_by_role("status")).to_contain_text("Password changed: 1 other sign-ins ended")
    expect(sessions).to_have_count(1)
    origin = first.url.split("/account")[0]
    assert [page.request.get(origin + "/api/me").status for page in pages] == [200, 401, 401]

    first.locator("#sign-out-everywhere").click()
    first.wait_for_url(re.compile(r"/signin$"))
    expect(first.get_by_test_id("account-link")).to_have_text("Sign in")
    width = first.evaluate("document.getElementById('main').scrollWidth")
    assert width <= PHONE["width"]
