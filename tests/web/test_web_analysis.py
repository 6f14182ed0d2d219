"""The post-game analysis in the replay page: a player asks for it and follows its progress, the
graph appears with the classed moves of both seats, and its points and marks jump the replay; a
spectator cannot start it but sees it once done. The hint button, only when learning."""

from __future__ import annotations

import importlib
import itertools
import json
import random
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import Page, expect

OpenPage = Callable[..., Page]

# The replay tests' helpers, beside this file (pytest puts this folder on sys.path; mypy checks the
# test folders as packages, where a plain-name import of a sibling test module would not resolve).
_replay = importlib.import_module("test_web_replay")
finish_game = cast(Callable[[str, dict[str, Any], random.Random], int], _replay.finish_game)


def test_a_player_asks_for_the_analysis_and_jumps_from_the_graph(
    server: str, create: Callable[..., dict[str, Any]], open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    game = create(opponent="hotseat", name="Replayer")
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
    expect(page.locator(".analysis-summary")).to_have_count(2)
    expect(page.locator(".analysis-summary").first).to_contain_text("Black: ")
    step = page.locator(".replay-step")
    middle = points.nth(points.count() // 2)
    version = middle.get_attribute("data-version")
    middle.click()
    expect(step).to_contain_text(f"Action {version} of {last}")
    marks = page.locator(".analysis-move")
    if marks.count():  # the classed moves of both seats
        mark = marks.first
        mark.focus()
        page.keyboard.press("Enter")
        expect(step).to_contain_text(f"Action {mark.get_attribute('data-version')} of {last}")
    shot(page, "replay-analysis-1280x800")

    spectator.reload()
    expect(spectator.locator("#analysis-graph")).to_be_visible()
    expect(spectator.locator(".analysis-point")).to_have_count(points.count())
    expect(spectator.locator(".analysis-move")).to_have_count(marks.count())
    public = json.loads(spectator.evaluate(f"fetch('/api/games/{game['game_id']}/analysis').then(r => r.text())"))
    assert public["state"] == "done" and public["budget"] == 20
    classed = [m for m in public["moves"] if m["class"] in ("inaccuracy", "mistake", "blunder")]
    assert marks.count() == len(classed)

    # The graph has its axes and the rounds' starts; the classed moves are listed in
    # words with the better move, each jumping to its moment; the keys step through the replay.
    labels = page.locator("#analysis-graph .graph-label").evaluate_all("els => els.map(e => e.textContent)")
    assert {"0 %", "50 %", "100 %", "0"} <= set(labels), labels
    with urllib.request.urlopen(f"{server}/api/games/{game['game_id']}/replay", timeout=10) as answer:
        views = [step["view"] for step in json.loads(answer.read())["steps"]]
    starts = sum(
        1
        for a, b in itertools.pairwise(views)
        if (b["phase"] == "final" != a["phase"]) or (b["phase"] == "play" and b["round"] != a["round"])
    )
    assert starts >= 1
    expect(page.locator("#analysis-graph .graph-round")).to_have_count(starts)
    listed = page.get_by_test_id("mistakes").locator("li")
    expect(listed).to_have_count(len(classed))
    if classed:
        first = classed[0]
        item = listed.first
        expect(item).to_contain_text(f"Action {first['step'] + 1}, ")
        expect(item).to_contain_text("Better: ")
        item.locator("button").click()
        expect(step).to_contain_text(f"Action {first['step'] + 1} of {last}")
    else:
        expect(page.get_by_test_id("mistakes")).to_contain_text("No inaccuracy, mistake or blunder")
    page.locator("h1").click()  # focus on nothing in particular: the keys still work
    page.keyboard.press("Home")
    expect(step).to_contain_text(f"Action 0 of {last}")
    page.keyboard.press("ArrowRight")
    expect(step).to_contain_text(f"Action 1 of {last}")
    page.keyboard.press("End")
    expect(step).to_contain_text(f"Action {last} of {last}")
    page.keyboard.press("ArrowLeft")
    expect(step).to_contain_text(f"Action {last - 1} of {last}")
    shot(page, "replay-mistakes-1280x800")


def test_the_hint_button_proposes_the_ai_move_only_when_learning(
    server: str, create: Callable[..., dict[str, Any]], open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    game = create(opponent="ai", level="easy", seat="first", name="Learner")
    page = open_page(f"/play/{game['game_id']}#{game['token']}", reduced_motion=True)
    expect(page.locator(".game")).to_have_attribute("data-turn", "mine")
    page.locator("#hint").click()
    message = page.locator('[data-testid="message"]')
    expect(message).to_contain_text("AI hint: ")
    token = message.inner_text().split("AI hint: ", 1)[1].split(":", 1)[0]
    expect(page.locator('[data-testid="confirm"]')).to_be_visible()
    # The hint shows as the player's own choice would: its cards selected, its line lit
    # on the board (a draw, a discard or a button marked) and proposed.
    expect(page.locator(f'.proposed[data-token="{token}"]').first).to_be_visible()
    used = (
        token[0] if ">" in token else token[1] if token.startswith("-") else token.split(":")[1] if ":" in token else ""
    )
    selected = page.locator('[data-testid="hand"] button.card[aria-pressed="true"]')
    expect(selected).to_have_count(len(used))
    assert sorted(selected.evaluate_all("els => els.map(e => e.dataset.card)")) == sorted(used)
    if ">" in token:
        line = "".join(sorted(token[0] + token[2]))
        expect(page.locator(f'.board .pick.build.proposed[data-line="{line}"]')).to_have_count(1)
        expect(page.locator(".board .pick.build")).to_have_count(page.locator(".choice-pick.build").count())
    shot(page, "game-hint-1280x800")
    page.locator('[data-testid="confirm"]').click()
    expect(page.locator(".game")).not_to_have_attribute("data-version", "0")
    record = json.loads(urllib.request.urlopen(f"{server}/api/games/{game['game_id']}/record", timeout=10).read())
    assert record["actions"][0] == token or record["actions"][0] == "-?"

    hotseat = create(opponent="hotseat", seat="first")
    both = open_page(f"/play/{hotseat['game_id']}#{','.join(hotseat['tokens'])}", reduced_motion=True)
    expect(both.locator(".game")).to_have_attribute("data-turn", "mine")
    both.locator(".reveal").click()  # hot-seat: the seat to move asks for its hand first
    expect(both.locator("#hint")).to_have_count(1)

    person = create(opponent="human", seat="first", name="Alice")
    invite = person["invite_url"].removeprefix("/join/")
    join = urllib.request.Request(
        f"{server}/api/join/{invite}", json.dumps({"name": "Bob"}).encode(), {"Content-Type": "application/json"}
    )
    urllib.request.urlopen(join, timeout=10).close()
    alice = open_page(f"/play/{person['game_id']}#{person['token']}", reduced_motion=True)
    expect(alice.locator(".game")).to_have_attribute("data-turn", "mine")
    expect(alice.locator(".act-pass")).to_have_count(1)
    expect(alice.locator("#hint")).to_have_count(0)
