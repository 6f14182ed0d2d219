"""Take-back in the browser (issue 31): the player to move asks after a card play, the opponent,
in another browser (here in German), declines, then accepts, and the card is back in the hand."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]
a_legal_build = cast(Callable[[str, str, str], str], importlib.import_module("web_serving").a_legal_build)


def test_a_take_back_asked_declined_then_accepted_between_two_browsers(
    create: Callable[..., dict[str, Any]],
    server: str,
    new_context: Callable[..., BrowserContext],
    open_page: OpenPage,
    shot: Callable[[Page, str], Path],
) -> None:
    created = create(opponent="human", seat="first", name="Ann")
    ann = open_page(f"/play/{created['game_id']}#{created['token']}")
    bob = open_page(created["invite_url"], new_context(locale="de-DE"))
    bob.locator("#name").fill("Bob")
    bob.locator("#join").click()
    bob.wait_for_url("**/play/**")
    cards = ann.locator('[data-testid="hand"] button.card')
    expect(cards).to_have_count(3)
    expect(ann.get_by_test_id("takeback")).to_have_count(0)  # nothing played this turn yet
    ann.locator("#notation").fill(a_legal_build(server, created["game_id"], created["token"]))
    ann.locator("#notation").press("Enter")
    expect(cards).to_have_count(2)
    ann.get_by_test_id("takeback").click()
    expect(ann.get_by_test_id("takeback")).to_have_text("Take-back asked…")
    expect(ann.get_by_test_id("takeback")).to_be_disabled()
    expect(bob.get_by_test_id("takeback-accept")).to_have_text("Rücknahme annehmen")
    expect(bob.get_by_test_id("message")).to_contain_text("bittet, die letzte Aktion zurückzunehmen")
    shot(bob, "takeback-1-asked-de")
    bob.get_by_test_id("takeback-decline").click()
    expect(ann.get_by_test_id("message")).to_contain_text("Bob declined the take-back.")
    expect(bob.get_by_test_id("takeback-accept")).to_have_count(0)
    expect(cards).to_have_count(2)
    ann.get_by_test_id("takeback").click()
    bob.get_by_test_id("takeback-accept").click()
    expect(cards).to_have_count(3)  # the card is back in Ann's hand, the bridge off the board
    expect(ann.get_by_test_id("takeback")).to_have_count(0)
    expect(bob.get_by_test_id("takeback-accept")).to_have_count(0)
    expect(ann.locator(".log-item")).to_have_count(0)
    shot(ann, "takeback-2-taken-back")
    ann.locator("#notation").fill("d?")  # the turn goes on as if the build had never been: a draw ends it
    ann.locator("#notation").press("Enter")
    for page in (ann, bob):  # the log numbers the game as played: the draw is its first action
        expect(page.locator(".log-item")).to_have_count(1)
        expect(page.locator(".log-item .log-num")).to_have_text("1.")


def test_hot_seat_takes_back_at_once(create: Callable[..., dict[str, Any]], server: str, open_page: OpenPage) -> None:
    """Both seats are at this screen: the other one accepts by itself."""
    created = create(opponent="hotseat", seat="first")
    page = open_page(f"/play/{created['game_id']}#{','.join(created['tokens'])}")
    page.locator(".reveal").click()  # the first turn starts behind the curtain
    cards = page.locator('[data-testid="hand"] button.card')
    expect(cards).to_have_count(3)
    page.locator("#notation").fill(a_legal_build(server, created["game_id"], created["tokens"][0]))
    page.locator("#notation").press("Enter")
    expect(cards).to_have_count(2)
    page.get_by_test_id("takeback").click()
    expect(cards).to_have_count(3)
    expect(page.get_by_test_id("takeback")).to_have_count(0)
    expect(page.get_by_test_id("takeback-accept")).to_have_count(0)
