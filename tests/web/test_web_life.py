"""A game's life in the browser: the clocks counting down to a loss on time, resigning, the
rematch, the chat between two browsers, and the home page's "waiting for your move" list."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]


def test_a_short_timed_game_runs_out_and_ends_in_a_rematch(
    create: Callable[..., dict[str, Any]], open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    created = create(opponent="hotseat", seat="first", clock={"initial": 8, "increment": 0})
    page = open_page(f"/play/{created['game_id']}#{','.join(created['tokens'])}")
    clocks = page.get_by_test_id("clocks")
    expect(clocks).to_be_visible()
    expect(page.get_by_test_id("clock-0")).to_have_class("clock running low")  # 8 s: low from the start (under 10 s)
    expect(page.get_by_test_id("clock-1")).to_contain_text("0:08")
    shot(page, "life-1-clock-running")
    # The warning shows until the flag falls: 8 s leave the page room to load on a loaded machine
    # (with 4 s it had gone by the time the page was checked, under a load of 45).
    expect(page.get_by_test_id("message")).to_contain_text("running out")
    # Nobody moves: the server decides the game on time, and the page shows it.
    expect(page.locator(".game")).to_have_attribute("data-turn", "over", timeout=20000)
    expect(page.get_by_test_id("clock-0")).to_contain_text("0:00")
    expect(page.locator(".summary-outcome")).to_contain_text("Black ran out of time: White wins")
    shot(page, "life-2-lost-on-time")
    page.get_by_test_id("rematch").click()  # hot-seat: both seats are here, the other accepts at once
    page.wait_for_url(lambda url: "/play/" in url and created["game_id"] not in url)  # taken there
    expect(page.get_by_test_id("clocks")).to_be_visible()
    expect(page.get_by_test_id("curtain")).to_be_visible()  # the new game's first turn, behind the curtain
    shot(page, "life-3-rematch-taken-there")


def test_resign_against_the_ai_on_a_clock_then_a_rematch_with_swapped_seats(
    open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    page = open_page("/")
    page.select_option("#clock", "300+3")
    page.select_option("#seat", "first")
    page.locator("#start").click()
    page.wait_for_url("**/play/**")
    expect(page.get_by_test_id("clock-0")).to_have_class("clock running")
    expect(page.get_by_test_id("clocks")).to_contain_text("5+3")
    page.get_by_test_id("resign").click()
    shot(page, "life-4-resign-asked")
    page.get_by_test_id("resign-confirm").click()
    expect(page.locator(".game")).to_have_attribute("data-turn", "over")
    expect(page.locator(".summary-outcome")).to_contain_text("Black resigned: White wins")
    old_url = page.url
    page.get_by_test_id("rematch").click()  # the AI accepts at once: this player is taken to the rematch
    page.wait_for_url(lambda url: "/play/" in url and url != old_url)
    expect(page.locator("#hand-title")).to_contain_text("White")  # the seats are swapped: this player is White
    expect(page.get_by_test_id("rematch-of")).to_have_attribute("href", re.compile(r"^/replay/"))  # and back
    shot(page, "life-5-rematch-as-white")


def test_a_rematch_takes_both_browsers_to_the_new_game_whose_clock_waits_for_both(
    create: Callable[..., dict[str, Any]],
    new_context: Callable[..., BrowserContext],
    open_page: OpenPage,
    shot: Callable[[Page, str], Path],
) -> None:
    created = create(opponent="human", seat="first", name="Ann", clock={"initial": 120, "increment": 2})
    old_id = created["game_id"]
    ann = open_page(f"/play/{old_id}#{created['token']}")
    bob = open_page(created["invite_url"], new_context())
    bob.locator("#name").fill("Bob")
    bob.locator("#join").click()
    bob.wait_for_url("**/play/**")
    expect(ann.get_by_test_id("clock-0")).to_have_class("clock running")  # both there: no waiting
    ann.get_by_test_id("resign").click()
    ann.get_by_test_id("resign-confirm").click()
    for page in (ann, bob):
        expect(page.locator(".game")).to_have_attribute("data-turn", "over")
    bob.get_by_test_id("rematch").click()
    expect(ann.get_by_test_id("rematch")).to_have_text("Accept the rematch")
    shot(ann, "life-8-rematch-offered")
    ann.get_by_test_id("rematch").click()
    for page in (ann, bob):  # both are taken to the new game, each to its own seat
        page.wait_for_url(lambda url: "/play/" in url and old_id not in url)
    new_id = ann.url.split("/play/")[1].split("#")[0]
    assert bob.url.split("/play/")[1].split("#")[0] == new_id
    expect(ann.locator("#hand-title")).to_contain_text("White")  # the seats are swapped
    expect(bob.locator("#hand-title")).to_contain_text("Black")
    for page in (ann, bob):
        expect(page.get_by_test_id("clock-0")).to_have_class("clock running")  # both arrived: it runs
        expect(page.get_by_test_id("clock-waiting")).to_have_count(0)
    shot(bob, "life-9-rematch-both-there")


def test_a_clock_waits_for_the_second_player_and_says_so(
    create: Callable[..., dict[str, Any]], server: str, open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    created = create(opponent="human", seat="first", name="Ann", clock={"initial": 120, "increment": 2})
    request = urllib.request.Request(
        server + created["invite_url"].replace("/join/", "/api/join/"), data=json.dumps({"name": "Late"}).encode(),
        headers={"Content-Type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=10):
        pass  # the invited player took the seat but has not opened the game
    ann = open_page(f"/play/{created['game_id']}#{created['token']}")
    expect(ann.get_by_test_id("clock-waiting")).to_contain_text("The clock starts when both players are here")
    expect(ann.get_by_test_id("clock-0")).not_to_have_class(re.compile("running"))
    shot(ann, "life-10-clock-waits-for-the-opponent")


def test_two_players_chat_and_one_mutes_the_other(
    create: Callable[..., dict[str, Any]],
    new_context: Callable[..., BrowserContext],
    open_page: OpenPage,
    shot: Callable[[Page, str], Path],
) -> None:
    created = create(opponent="human", seat="first", name="Ann")
    ann = open_page(f"/play/{created['game_id']}#{created['token']}")
    bob = open_page(created["invite_url"], new_context())
    bob.locator("#name").fill("Bob")
    bob.locator("#join").click()
    bob.wait_for_url("**/play/**")
    ann.locator("#chat-input").fill("good luck <b>Bob</b>")
    ann.locator("#chat-input").press("Enter")
    expect(bob.get_by_test_id("chat-lines")).to_contain_text("good luck <b>Bob</b>")  # text, never HTML
    expect(bob.locator(".chat-lines b")).to_have_count(0)
    shot(bob, "life-6-chat")
    bob.locator("#chat-mute").check()
    expect(bob.get_by_test_id("chat-lines")).not_to_contain_text("good luck")
    ann.locator("#chat-input").fill("still there?")
    ann.locator("#chat-input").press("Enter")
    expect(ann.get_by_test_id("chat-lines")).to_contain_text("still there?")
    expect(bob.get_by_test_id("chat-lines")).not_to_contain_text("still there?")


def test_the_home_page_lists_the_games_waiting_for_my_move(
    open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    page = open_page("/")
    page.select_option("#seat", "first")
    page.locator("#start").click()
    page.wait_for_url("**/play/**")
    expect(page.locator(".game")).to_have_attribute("data-turn", "mine")
    page.goto(page.url.split("/play/")[0] + "/")
    waiting = page.get_by_test_id("waiting-for-you")
    expect(waiting).to_be_visible()
    expect(waiting.locator("li")).to_have_count(1)
    shot(page, "life-7-waiting-for-you")
