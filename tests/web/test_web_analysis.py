"""The post-game analysis in the replay page: a player asks for it and follows its progress, the
graph appears with the player's classed moves, and its points and marks jump the replay; a
spectator sees the graph only."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect
from test_web_replay import create_hotseat_game, finish_game

OpenPage = Callable[..., Page]


def test_a_player_asks_for_the_analysis_and_jumps_from_the_graph(
    server: str, open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    game = create_hotseat_game(server)
    last = finish_game(server, game, random.Random(5))
    replay = f"/replay/{game['game_id']}"

    spectator = open_page(replay)
    expect(spectator.locator("#analysis")).to_contain_text("No analysis of this game yet.")
    expect(spectator.locator("#analysis-ask")).to_have_count(0)

    page = open_page("/rules", reduced_motion=True)
    seat = {"game_id": game["game_id"], "seat": 0, "token": game["tokens"][0], "hotseat": True}
    page.evaluate("seat => localStorage.setItem('kahuna.seats', JSON.stringify([seat]))", seat)
    page.goto(server + replay)
    page.locator("#analysis-ask").click()
    graph = page.locator("#analysis-graph")
    expect(graph).to_be_visible(timeout=60000)
    points = page.locator(".analysis-point")
    assert points.count() >= 3
    expect(page.locator(".analysis-summary")).to_contain_text("Your moves:")
    step = page.locator(".replay-step")
    middle = points.nth(points.count() // 2)
    version = middle.get_attribute("data-version")
    middle.click()
    expect(step).to_contain_text(f"Action {version} of {last}")
    marks = page.locator(".analysis-move")
    if marks.count():  # the classed moves of Black (this player) only
        mark = marks.first
        mark.focus()
        page.keyboard.press("Enter")
        expect(step).to_contain_text(f"Action {mark.get_attribute('data-version')} of {last}")
    shot(page, "replay-analysis-1280x800")

    spectator.reload()
    expect(spectator.locator("#analysis-graph")).to_be_visible()
    expect(spectator.locator(".analysis-point")).to_have_count(points.count())
    expect(spectator.locator(".analysis-move")).to_have_count(0)
    public = json.loads(spectator.evaluate(f"fetch('/api/games/{game['game_id']}/analysis').then(r => r.text())"))
    assert set(public) == {"state", "budget", "graph"} and public["budget"] == 20
