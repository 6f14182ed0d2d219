"""Account sanctions in Chromium (issue 48, docs/moderation.md, *Account sanctions*), on a server
of its own: a moderator sees, on /mod, a reported player's rating changes (none) and the other
accounts seen on its browser or address, chooses *account closed* among the account sanctions and
applies it; the closed player signing in again is told in words (in German), and signing up from
a browser whose account's sign-ups were blocked is refused in words; the log says what was done."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any, cast

from playwright.sync_api import BrowserContext, Page, expect

from kahuna.cli import main

sign_up = cast(Callable[[Page, str], None], importlib.import_module("test_web_lobby").sign_up)
moderation = importlib.import_module("test_web_moderation")
call = cast(Callable[..., dict[str, Any]], moderation.call)
watched = cast(Callable[[BrowserContext, list[str]], Page], moderation.watched)

# The refusals the page words (a closed account's sign-in, a blocked sign-up: 403) and the closed
# account's revoked session (its next page asks /api/me: 401), which Chromium logs as console
# errors: the test counts them, and any other error fails it.
FORBIDDEN = "Failed to load resource: the server responded with a status of 403 (Forbidden)"
UNAUTHORIZED = "Failed to load resource: the server responded with a status of 401 (Unauthorized)"


def test_a_moderator_closes_a_reported_account_from_the_queue_and_blocks_its_sign_ups(
    site: tuple[str, str], new_context: Callable[..., BrowserContext]
) -> None:
    base, db = site
    errors: list[str] = []
    ann, mia = (watched(new_context(), errors) for _ in range(2))
    bob = watched(new_context(locale="de-DE"), errors)
    for page, name in ((ann, "Ann_acct"), (bob, "Bob_acct"), (mia, "Mia_acct")):
        page.goto(base + "/signup")
        sign_up(page, name)
    assert main(["admin", "grant", "Mia_acct", "moderator", "--db", db]) == 0
    call(ann, "POST", "/api/reports", {"username": "Bob_acct", "reason": "spam"})

    mia.goto(base + "/mod")
    group = mia.locator(".mod-target[data-target='Bob_acct']")
    expect(group.get_by_test_id("mod-ratings")).to_have_text("no rating changes")
    alternates = group.get_by_test_id("mod-alternates")  # everyone's address is 127.0.0.1 here
    expect(alternates).to_contain_text("also seen on its browser or address:")
    expect(alternates.get_by_role("link", name="Ann_acct")).to_have_attribute("href", "/users/Ann_acct")
    expect(alternates).to_contain_text("Ann_acct (address)")
    group.get_by_label("Reason").fill("a spam account")
    group.get_by_label("Account sanction").select_option(label="account closed")
    group.get_by_role("button", name="Apply").click()
    expect(mia.get_by_test_id("mod-status")).to_have_text("Done.")
    expect(mia.get_by_test_id("mod-empty")).to_have_text("No open reports.")
    mia.get_by_role("tab", name="Log").click()
    expect(mia.locator("#mod-panel-log")).to_have_attribute("aria-busy", "false")
    expect(mia.get_by_test_id("mod-log").locator("tr", has_text="a spam account")).to_contain_text("account closed")

    bob.goto(base + "/signin")
    bob.locator("#username").fill("Bob_acct")
    bob.locator("#password").fill("reef-lagoon-coral-7")
    bob.locator("#signin-submit").click()
    expect(bob.get_by_test_id("account-error")).to_have_text("Ein Moderator hat dieses Konto geschlossen.")

    call(
        mia,
        "POST",
        "/api/mod/sanctions",
        {"username": "Ann_acct", "kind": "block_signups", "reason": "r", "minutes": 5},
    )
    ann.goto(base + "/signup")  # the browser Ann_acct signed up and in on
    ann.locator("#username").fill("Ann_again")
    ann.locator("#password").fill("reef-lagoon-coral-7")
    ann.locator("#signup-submit").click()
    expect(ann.get_by_test_id("account-error")).to_have_text(
        "A moderator blocked new accounts from this browser or address."
    )
    assert errors == [UNAUTHORIZED, FORBIDDEN, FORBIDDEN]
