"""Leaving (issue 51, point 3), in English at 1280×800: Bob closes his page in a real-time game;
after the grace (``left_claim_seconds``, 3 s on the test server) Ann's page says that her opponent
left and offers to claim the win or call it a draw; Bob coming back takes the offer away; gone
again, Ann claims the win and the game ends, "left the game"."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]


def test_a_player_claims_the_win_when_the_opponent_has_left(
    create: Callable[..., dict[str, Any]],
    new_context: Callable[..., BrowserContext],
    open_page: OpenPage,
    shot: Callable[[Page, str], Path],
) -> None:
    created = create(opponent="human", seat="first", name="Ann", clock={"initial": 300, "increment": 0})
    ann = open_page(f"/play/{created['game_id']}#{created['token']}", width=1280, height=800)
    bobs = new_context(width=1280, height=800)
    bob = open_page(created["invite_url"], bobs)
    bob.locator("#name").fill("Bob")
    bob.locator("#join").click()
    bob.wait_for_url("**/play/**")
    bob_url = bob.url
    expect(ann.get_by_test_id("clock-0")).to_have_class(re.compile(r"\brunning\b"))  # both there: it runs
    left = ann.get_by_test_id("opponent-left")
    expect(left).to_have_count(0)
    bob.close()
    expect(left).to_be_visible()  # after the grace
    expect(left).to_contain_text("Your opponent left the game.")
    expect(left.get_by_test_id("claim-victory")).to_have_text("Claim the win")
    expect(left.get_by_test_id("claim-draw")).to_have_text("Call it a draw")
    shot(ann, "leaving-1-opponent-left-1280x800")
    back = bobs.new_page()
    back.goto(bob_url)  # Bob comes back: the choice is gone
    expect(left).to_have_count(0)
    back.close()
    expect(left).to_be_visible()  # gone again, for the grace again
    left.get_by_test_id("claim-victory").click()
    expect(ann.locator(".game")).to_have_attribute("data-turn", "over")
    expect(ann.locator("body")).to_contain_text("left the game")
    expect(left).to_have_count(0)
    shot(ann, "leaving-2-win-claimed-1280x800")
