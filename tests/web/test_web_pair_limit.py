"""Rated games between the same two people in Chromium: after three rated
games against each other in a day, the lobby shows the other's rated seek as casual for this
account before it is accepted, and the game page says why the game counts for no rating."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Coroutine
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, TypeVar

from playwright.sync_api import BrowserContext, Page, expect

from kahuna.bench.lobby import CLOCK, PASSWORD, client, new_account

OpenPage = Callable[..., Page]
T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    """Run an HTTP scenario to its end (in a thread: Playwright's sync API holds this one's loop)."""
    with ThreadPoolExecutor(1) as thread:
        return thread.submit(asyncio.run, coro).result()


async def three_rated_games(url: str, owner: dict[str, str], taker: dict[str, str]) -> None:
    """``owner`` posts three rated seeks, ``taker`` accepts each: three rated games started today
    (a game still being played counts)."""
    async with client(url, headers=owner) as a, client(url, headers=taker) as b:
        for _ in range(3):
            seek = (await a.post("/api/seeks", json={"clock": CLOCK, "rated": True})).json()
            taken = await b.post(f"/api/seeks/{seek['seek_id']}/accept")
            assert taken.status_code == 200 and taken.json()["rated"], taken.text


async def rated_seek(url: str, owner: dict[str, str]) -> dict[str, Any]:
    async with client(url, headers=owner) as a:
        made: dict[str, Any] = (await a.post("/api/seeks", json={"clock": CLOCK, "rated": True})).json()
        return made


def test_the_lobby_and_the_game_say_a_fourth_rated_game_between_two_people_is_casual(
    server: str,
    open_page: OpenPage,
    new_context: Callable[..., BrowserContext],
    shot: Callable[[Page, str], Path],
) -> None:
    koa = run(new_account(server, "Koa_pair"))
    hina = run(new_account(server, "Nalu_pair"))
    run(three_rated_games(server, koa, hina))

    page = open_page("/signin", new_context(locale="de-DE"))
    page.locator("#username").fill("Nalu_pair")
    page.locator("#password").fill(PASSWORD)
    page.locator("#signin-submit").click()
    expect(page.get_by_test_id("account-link")).to_have_text("Nalu_pair")
    seek = run(rated_seek(server, koa))
    page.goto(f"{server}/lobby")
    row = page.locator(f'.seek[data-seek="{seek["seek_id"]}"]')
    label = row.locator(".seek-rated")
    expect(label).to_have_text("Heute ungewertet für dich")  # before anyone accepts
    expect(label).to_have_attribute("title", re.compile("24 Stunden 3 gewertete Partien"))
    shot(page, "games-lobby-casual-today")
    row.get_by_role("button").click()
    page.wait_for_url("**/play/**")
    note = page.get_by_test_id("casual-note")
    expect(note).to_contain_text("Ungewertete Partie")
    expect(note).to_contain_text("3 gewertete Partien")
    shot(page, "games-game-casual-note")
