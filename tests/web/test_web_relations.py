"""Following and blocking in Chromium (issue 29), at 1280×800 and 390×844: a player follows
another from the profile page, sees the followed player online (the dot) on /following while that
player has the lobby open, and the profile's follower count and list; the followed player blocks
the follower from the follower's profile, and the follower's challenge is then refused in words.
No page is wider than the window."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import cast

import pytest
from playwright.sync_api import BrowserContext, Page, expect

sign_up = cast(Callable[[Page, str], None], importlib.import_module("test_web_lobby").sign_up)

OpenPage = Callable[..., Page]
WIDTH = "() => document.documentElement.scrollWidth"


def fits(page: Page, width: int) -> None:
    assert page.evaluate(WIDTH) <= width, f"{page.url} is wider than {width} px"


def reload_until(page: Page, condition: Callable[[], bool], what: str, tries: int = 40) -> None:
    """Reload until ``condition`` holds (the server's presence view is refreshed every second)."""
    for _ in range(tries):
        if condition():
            return
        page.wait_for_timeout(250)  # the pause between two looks, not what is checked
        page.reload()
    raise AssertionError(f"never saw {what}")


@pytest.mark.parametrize(("width", "height"), [(1280, 800), (390, 844)], ids=["1280x800", "390x844"])
def test_follow_from_a_profile_see_the_dot_and_a_block_stops_a_challenge(
    server: str, open_page: OpenPage, new_context: Callable[..., BrowserContext], width: int, height: int
) -> None:
    follower_name, followed_name = f"Uno_{width}", f"Duo_{width}"
    followed = open_page("/signup", new_context(width=width, height=height))
    sign_up(followed, followed_name)
    # The follower's refusals are answers the page expects (403 blocked), which Chromium logs as
    # console errors: this page counts its own, and every other error fails the test.
    follower = new_context(width=width, height=height).new_page()
    errors: list[str] = []
    follower.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
    follower.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    follower.goto(server + "/signup")
    sign_up(follower, follower_name)

    follower.goto(follower.url.replace("/account", f"/users/{followed_name}"))
    follower.locator("#follow").click()
    expect(follower.locator("#unfollow")).to_be_visible()  # the page says it follows now
    expect(follower.get_by_test_id("followers-count")).to_have_text("Followers: 1")
    expect(follower.get_by_test_id("profile-follows").get_by_role("link", name=follower_name)).to_be_visible()
    expect(follower.get_by_test_id("profile-stats")).to_contain_text("Longest winning streak: 0")
    fits(follower, width)

    followed.goto(followed.url.replace("/account", "/lobby"))  # online: its lobby connection is open
    expect(followed.get_by_test_id("seek-list")).to_be_visible()
    expect(followed.get_by_test_id("online-counts")).to_contain_text("Players online:")
    fits(followed, width)

    follower.goto(follower.url.split("/users/")[0] + "/following")
    row = follower.get_by_test_id("following-list").locator("li", has_text=followed_name)
    expect(row).to_have_count(1)
    reload_until(
        follower,
        lambda: row.locator(".online-dot").get_attribute("data-online") == "true",
        f"{followed_name} online on /following",
    )
    expect(row.locator(".online-dot .visually-hidden")).to_have_text("online")
    fits(follower, width)

    follower.goto(follower.url.replace("/following", "/lobby"))  # a seek, seen with its dot in the other lobby
    follower.locator("#new-seek").click()
    expect(follower.get_by_test_id("seek-status")).not_to_be_empty()
    seek = followed.get_by_test_id("seek-list").locator(".seek", has_text=follower_name)
    expect(seek.locator(".online-dot")).to_have_attribute("data-online", "true", timeout=15000)
    fits(followed, width)

    followed.goto(followed.url.replace("/lobby", f"/users/{follower_name}"))
    followed.locator("#block").click()
    expect(followed.locator("#unblock")).to_be_visible()
    fits(followed, width)

    follower.goto(follower.url.replace("/lobby", f"/lobby?challenge={followed_name}"))
    follower.locator("#challenge").click()
    expect(follower.get_by_test_id("seek-status")).to_have_text("This player does not accept that from you.")
    fits(follower, width)
    follower.goto(follower.url.split("/lobby")[0] + f"/users/{followed_name}")
    expect(follower.get_by_test_id("followers-count")).to_have_text("Followers: 0")  # the block ended the follow
    follower.locator("#follow").click()
    expect(follower.get_by_test_id("relation-status")).to_have_text("This player does not accept that from you.")
    refused = "Failed to load resource: the server responded with a status of 403 (Forbidden)"
    assert errors == [refused, refused]  # the challenge and the follow, nothing else

    for path in (f"/users/{followed_name}", "/following", "/lobby"):  # in every language, no wider
        follower.goto(server + path)
        for code in ("de", "nl", "es", "da", "en"):
            follower.locator("#language").select_option(code)
            expect(follower.locator("html")).to_have_attribute("lang", code)
            follower.wait_for_selector("main h1")
            fits(follower, width)
    assert errors == [refused, refused]
