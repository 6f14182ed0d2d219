"""Chat sanctions in Chromium (issue 48, docs/moderation.md), on a server of its own: a moderator
hides a reported chat line from /mod's "Hide this line", and the line leaves both players' game
pages at once (``chat_hidden``); a moderator renames a player, whose next sign-in (with the old
name) leads to the account page's form for a new name (a taken one refused in words), which then
shows the chosen one."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import cast

from playwright.sync_api import BrowserContext, Page, expect

from kahuna.cli import main

moderation = importlib.import_module("test_web_moderation")
sign_up = cast(Callable[[Page, str], None], importlib.import_module("test_web_lobby").sign_up)
call, watched, say, CLOCK = moderation.call, moderation.watched, moderation.say, moderation.CLOCK
CONFLICT = moderation.CONFLICT


def test_a_hidden_line_leaves_the_game_pages_and_a_renamed_player_chooses_a_name(
    site: tuple[str, str], new_context: Callable[..., BrowserContext], shot: Callable[[Page, str], Path]
) -> None:
    base, db = site
    errors: list[str] = []
    ann, bob, mia = (watched(new_context(), errors) for _ in range(3))
    for page, name in ((ann, "Ann_hide"), (bob, "Bob_hide"), (mia, "Mia_hide")):
        page.goto(base + "/signup")
        sign_up(page, name)
    assert main(["admin", "grant", "Mia_hide", "moderator", "--db", db]) == 0

    seek = call(ann, "POST", "/api/seeks", {"clock": CLOCK})["body"]
    taken = call(bob, "POST", f"/api/seeks/{seek['seek_id']}/accept", {})["body"]
    own = call(ann, "GET", f"/api/seeks/{seek['seek_id']}", None, **{"X-Seek-Token": seek["token"]})["body"]
    ann.goto(base + own["seat_url"])
    bob.goto(base + taken["seat_url"])
    say(bob, "you idiot")
    say(bob, "anyway, good luck")
    for page in (ann, bob):
        expect(page.get_by_test_id("chat-lines").locator("li")).to_have_count(2)
    report = {"username": "Bob_hide", "reason": "abuse", "game_id": taken["game_id"], "line_id": 0}
    call(ann, "POST", "/api/reports", report)

    mia.goto(base + "/mod")
    group = mia.locator(".mod-target", has_text="Bob_hide")
    group.get_by_label("Reason").fill("insult")
    group.get_by_role("button", name="Hide this line").click()
    expect(mia.get_by_test_id("mod-status")).to_have_text("Done.")
    for page in (ann, bob):  # gone at once, for both seats; the other line stays
        expect(page.get_by_test_id("chat-lines").locator("li", has_text="you idiot")).to_have_count(0)
        expect(page.get_by_test_id("chat-lines").locator("li")).to_have_count(1)
    ann.reload()  # and from the next sync
    expect(ann.get_by_test_id("chat-lines")).to_contain_text("anyway, good luck")
    expect(ann.get_by_test_id("chat-lines")).not_to_contain_text("you idiot")
    mia.get_by_role("tab", name="Log").click()
    expect(mia.locator("#mod-panel-log")).to_have_attribute("aria-busy", "false")
    entry = mia.get_by_test_id("mod-log").locator("tr", has_text="insult")
    expect(entry).to_contain_text(f"hidden chat line · report 1 · line 0 of {taken['game_id']}")

    sanction = call(mia, "POST", "/api/mod/sanctions", {"username": "Bob_hide", "kind": "rename", "reason": "name"})
    neutral = f"renamed-{sanction['body']['sanction_id']}"
    call(bob, "DELETE", "/api/session")  # signed out; the next sign-in, with the old name, leads to the form
    bob.goto(base + "/signin")
    bob.locator("#username").fill("Bob_hide")
    bob.locator("#password").fill("reef-lagoon-coral-7")
    bob.locator("#signin-submit").click()
    bob.wait_for_url(base + "/account")
    expect(bob.locator("#account-name")).to_have_text(neutral)
    panel = bob.get_by_test_id("rename")
    expect(panel).to_contain_text(f"A moderator replaced your username with {neutral}.")
    panel.get_by_label("New username").fill("Ann_hide")
    panel.get_by_role("button", name="Choose this name").click()
    expect(panel.get_by_test_id("rename-status")).to_have_text("This username is taken.")
    panel.get_by_label("New username").fill("Bob_kind")
    shot(bob, "moderation-rename")
    panel.get_by_role("button", name="Choose this name").click()
    expect(bob.locator("#account-name")).to_have_text("Bob_kind")
    expect(bob.get_by_test_id("rename")).to_have_count(0)
    assert errors == [CONFLICT]
