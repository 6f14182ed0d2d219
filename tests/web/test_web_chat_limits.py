"""The chat's limits in Chromium: a player who sends lines faster than the
budget allows is told, in the page's language, how long to wait."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect

OpenPage = Callable[..., Page]


def test_a_player_over_the_chat_budget_is_told_how_long_to_wait(
    create: Callable[..., dict[str, Any]], open_page: OpenPage, new_context: Callable[..., BrowserContext]
) -> None:
    created = create(opponent="human", seat="first", name="Ana")
    page = open_page(f"/play/{created['game_id']}#{created['token']}", new_context(locale="nl-NL"))
    lines = page.get_by_test_id("chat-lines")
    for n in range(5):  # the burst: five lines at once
        page.locator("#chat-input").fill(f"regel {n}")
        page.locator("#chat-input").press("Enter")
        expect(lines).to_contain_text(f"regel {n}")
    page.locator("#chat-input").fill("regel 5")
    page.locator("#chat-input").press("Enter")
    expect(page.get_by_test_id("message")).to_contain_text("Te snel: wacht")
    expect(lines).not_to_contain_text("regel 5")
