"""The replay viewer on a finished game: step, jump, play, and the summary at the end.

The game is finished quickly through the WebSocket protocol (a hot-seat game whose two seats
play cheap legal actions), then watched in the browser.
"""

from __future__ import annotations

import json
import random
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

from playwright.sync_api import BrowserContext, Page, expect
from websockets.sync.client import connect

BOARD = Path(__file__).resolve().parents[2] / "kahuna" / "rules" / "board.json"
OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""


def finish_game(server: str, game: dict[str, Any], rng: random.Random) -> int:
    """Play both seats until the game is over: a build when possible, else the first turn end. Returns the version."""
    ws_url = server.replace("http://", "ws://") + f"/ws/{game['game_id']}"
    latest: list[dict[str, Any]] = [{}, {}]
    with connect(ws_url) as black, connect(ws_url) as white:
        sockets = [black, white]
        for sock, token in zip(sockets, game["tokens"], strict=True):
            sock.send(json.dumps({"type": "hello", "version": None, "token": token}))
        while True:
            for seat, sock in enumerate(sockets):
                while True:
                    msg = json.loads(sock.recv(timeout=10))
                    if msg["type"] in ("sync", "update"):
                        latest[seat] = msg
                        break
            if latest[0]["version"] != latest[1]["version"]:
                continue
            if latest[0]["view"]["result"] is not None:
                return int(latest[0]["version"])
            mover = latest[0]["view"]["to_move"]
            legal: list[str] = latest[mover]["legal"]
            builds = [token for token in legal if ">" in token]
            ends = [token for token in legal if token in ("d?", "end") or token.startswith("d")]
            token = rng.choice(builds) if builds and rng.random() < 0.6 else (ends or legal)[0]
            sockets[mover].send(
                json.dumps({"type": "action", "action": token, "version": latest[mover]["version"], "id": "r"})
            )


def test_replay_viewer_steps_jumps_and_plays(
    server: str,
    create: Callable[..., dict[str, Any]],
    new_context: Callable[..., BrowserContext],
    open_page: OpenPage,
    shot: Callable[[Page, str], Path],
) -> None:
    game = create(opponent="hotseat", name="Replayer")
    last = finish_game(server, game, random.Random(11))
    assert last > 20

    context = new_context(reduced_motion=True)
    context.add_init_script("localStorage.setItem('kahuna.reader', 'on')")  # screen-reader mode (issue 53)
    page = open_page(f"/replay/{game['game_id']}", context=context)
    step = page.locator(".replay-step")
    expect(step).to_contain_text(f"Action 0 of {last}")
    expect(page.locator(".board .bridge")).to_have_count(0)
    # The mode's game in words follows the step: whose turn, both hands (public now), the islands.
    reader = page.get_by_test_id("reader")
    expect(reader.get_by_test_id("reader-status")).to_have_text("Black to move. Points: Black 0, White 0.")
    expect(reader.get_by_role("heading", name="White's hand")).to_be_visible()
    expect(reader.get_by_test_id("reader-islands").locator("li")).to_have_count(12)
    expect(step).to_have_attribute("aria-live", "polite")  # each step is said as it is stepped to
    page.locator("#replay-next").click()
    expect(step).to_contain_text(f"Action 1 of {last}")
    expect(step).to_contain_text("Black ")  # the action in words
    page.keyboard.press("End")
    expect(step).to_contain_text(f"Action {last} of {last}")
    expect(reader.get_by_test_id("reader-status")).to_contain_text("The game is over.")
    expect(page.locator(".summary")).to_be_visible()
    expect(page.locator(".summary tbody tr")).to_have_count(5)
    shot(page, "replay-end-1280x800")
    page.locator(".replay-log .log-jump").nth(9).click()
    expect(step).to_contain_text(f"Action 10 of {last}")
    expect(page.locator(".replay-log li.current")).to_have_attribute("data-version", "10")
    # Each step's changes are marked on the board, as in the live game.
    with urllib.request.urlopen(f"{server}/api/games/{game['game_id']}/replay", timeout=10) as answer:
        steps = json.loads(answer.read())["steps"]
    build = next(s for s in steps if s["action"] and ">" in s["action"])
    line = "".join(sorted(build["action"][0] + build["action"][2]))
    page.locator(".replay-log .log-jump").nth(build["version"] - 1).click()
    expect(page.locator(f'[data-testid="last-move"][data-line="{line}"][data-kind="built"]')).to_have_count(1)
    # In the mode, the islands whose majority was close at a step say so (the server's `close`).
    close = next(s for s in steps if s["close"])
    page.locator(".replay-log .log-jump").nth(close["version"] - 1).click()
    names = {i["letter"]: i["name"] for i in json.loads(BOARD.read_text())["islands"]}
    first = close["close"][0]
    words = "wins it with one more bridge" if first["change"] == "claim" else "loses the stone with one bridge fewer"
    colour = ("Black", "White")[first["seat"]]
    island = (
        reader.get_by_test_id("reader-islands").locator("li").filter(has_text=re.compile(f"^{names[first['island']]},"))
    )
    expect(island).to_contain_text(f"Close: {colour} {words}.")
    page.locator("#replay-first").click()
    expect(step).to_contain_text(f"Action 0 of {last}")
    # The game is over, its record public: both hands are shown face up, none as a card back.
    with urllib.request.urlopen(f"{server}/api/games/{game['game_id']}/record", timeout=10) as answer:
        deal = json.loads(answer.read())["deal"]
    assert steps[0]["hands"] == ["".join(sorted(deal[:3])), "".join(sorted(deal[3:6]))]
    expect(page.locator(".opponent-hand .known")).to_have_count(6)
    expect(page.locator(".opponent-hand .back")).to_have_count(0)
    page.locator("#replay-play").click()
    expect(step).to_contain_text(f"Action 2 of {last}", timeout=10000)
    page.locator("#replay-play").click()
    expect(page.locator("#replay-play")).to_have_attribute("aria-label", "Play")


def test_a_running_game_has_no_replay_and_refuses_a_wrong_seat_link(
    server: str, create: Callable[..., dict[str, Any]], open_page: OpenPage
) -> None:
    game = create(opponent="hotseat", name="Replayer")
    page = open_page(f"/replay/{game['game_id']}")
    expect(page.locator(".message")).to_have_text("This game is not over yet: replays open when it ends.")
    expect(page.locator("a", has_text="Watch it live")).to_have_attribute("href", f"/watch/{game['game_id']}")
    stranger = open_page(f"/play/{game['game_id']}#not-a-seat-token")
    expect(stranger.locator(".message")).to_have_text("This link does not hold a seat of this game.")
