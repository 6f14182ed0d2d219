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


def _create(server: str, **body: Any) -> dict[str, Any]:
    request = urllib.request.Request(
        server + "/api/games", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=10) as response:
        created: dict[str, Any] = json.loads(response.read())
        return created


def test_a_short_timed_game_runs_out_and_ends_in_a_rematch(
    server: str, open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    created = _create(server, opponent="hotseat", seat="first", clock={"initial": 4, "increment": 0})
    page = open_page(f"/play/{created['game_id']}#{','.join(created['tokens'])}")
    clocks = page.get_by_test_id("clocks")
    expect(clocks).to_be_visible()
    expect(page.get_by_test_id("clock-0")).to_have_class("clock running low")  # 4 s: low from the start
    expect(page.get_by_test_id("clock-1")).to_contain_text("0:04")
    shot(page, "life-1-clock-running")
    expect(page.get_by_test_id("message")).to_contain_text("running out")
    # Nobody moves: the server decides the game on time, and the page shows it.
    expect(page.locator(".game")).to_have_attribute("data-turn", "over", timeout=15000)
    expect(page.get_by_test_id("clock-0")).to_contain_text("0:00")
    expect(page.locator(".summary-outcome")).to_contain_text("Black ran out of time: White wins")
    shot(page, "life-2-lost-on-time")
    page.get_by_test_id("rematch").click()  # hot-seat: both seats are here, the other accepts at once
    link = page.get_by_test_id("rematch-link")
    expect(link).to_be_visible()
    shot(page, "life-3-rematch-agreed")
    link.click()
    page.wait_for_url("**/play/**")
    expect(page.get_by_test_id("clocks")).to_be_visible()
    assert page.url.split("/play/")[1].split("#")[0] != created["game_id"]


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
    page.get_by_test_id("rematch").click()  # the AI accepts at once
    page.get_by_test_id("rematch-link").click()
    page.wait_for_url("**/play/**")
    expect(page.locator("#hand-title")).to_contain_text("White")  # the seats are swapped: this player is White
    expect(page.get_by_test_id("rematch-of")).to_have_attribute("href", re.compile(r"^/replay/"))  # and back
    shot(page, "life-5-rematch-as-white")


def test_two_players_chat_and_one_mutes_the_other(
    server: str, new_context: Callable[..., BrowserContext], open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    created = _create(server, opponent="human", seat="first", name="Ann")
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
