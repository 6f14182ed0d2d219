"""Issue 51, names not colours: between two browsers in English at 1280×800, the chat, the
take-back request and the rematch offer name the players (Ann, Bob), not their colours, and an
offer heard is a neutral notice, not the red of an error."""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]
a_legal_build = cast(Callable[[str, str, str], str], importlib.import_module("web_serving").a_legal_build)


def test_chat_take_back_and_rematch_name_the_players(
    create: Callable[..., dict[str, Any]],
    server: str,
    new_context: Callable[..., BrowserContext],
    open_page: OpenPage,
    shot: Callable[[Page, str], Path],
) -> None:
    created = create(opponent="human", seat="first", name="Ann")
    ann = open_page(f"/play/{created['game_id']}#{created['token']}")
    bob = open_page(created["invite_url"], new_context(width=1280, height=800))
    bob.locator("#name").fill("Bob")
    bob.locator("#join").click()
    bob.wait_for_url("**/play/**")
    expect(ann.locator('[data-testid="hand"] button.card')).to_have_count(3)
    bob.locator("#chat-input").fill("good luck")
    bob.locator("#chat-input").press("Enter")
    for page in (ann, bob):
        expect(page.get_by_test_id("chat-lines")).to_contain_text("Bob: good luck")
        expect(page.get_by_test_id("chat-lines")).not_to_contain_text("White")
    ann.locator("#notation").fill(a_legal_build(server, created["game_id"], created["token"]))
    ann.locator("#notation").press("Enter")
    expect(ann.locator('[data-testid="hand"] button.card')).to_have_count(2)
    ann.get_by_test_id("takeback").click()
    message = bob.get_by_test_id("message")
    expect(message).to_have_text("Ann asks to take back their last action.")
    expect(message).to_have_class(re.compile(r"\binfo\b"))  # a request heard: no error
    shot(bob, "names-1-take-back-by-name")
    bob.get_by_test_id("takeback-decline").click()
    expect(ann.get_by_test_id("message")).to_have_text("Bob declined the take-back.")
    ann.get_by_test_id("resign").click()
    ann.get_by_test_id("resign-confirm").click()
    expect(ann.locator(".game")).to_have_attribute("data-turn", "over")
    bob.get_by_test_id("rematch").click()
    offered = ann.get_by_test_id("message")
    expect(offered).to_have_text("Bob offers a rematch.")
    expect(offered).to_have_class(re.compile(r"\binfo\b"))
    assert offered.evaluate("e => getComputedStyle(e).color") != "rgb(122, 29, 12)"  # not the error's red
    shot(ann, "names-2-rematch-offered-by-name")


def test_the_hot_seat_curtain_names_the_player_to_take_the_device(
    create: Callable[..., dict[str, Any]], open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    created = create(opponent="hotseat", seat="first", name="Ann")
    page = open_page(f"/play/{created['game_id']}#{','.join(created['tokens'])}")
    curtain = page.get_by_test_id("curtain")
    expect(curtain).to_contain_text("Hand the device to Ann.")
    expect(curtain.locator(".reveal")).to_have_text("I am Ann: show my hand")
    shot(page, "names-3-hot-seat-curtain")
