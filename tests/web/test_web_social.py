"""Finding people and games (issue 29) in the browser: the "Download" button of a finished game,
the header's player search."""

from __future__ import annotations

import importlib
import json
import random
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from playwright.sync_api import Page, expect

from kahuna.rules.record import GameRecord

OpenPage = Callable[..., Page]
"""The ``open_page`` fixture of conftest.py: path (and context options) to an open page."""
_replay = importlib.import_module("test_web_replay")  # (tests/web is no package mypy follows)
finish_game = cast(Callable[[str, dict[str, Any], random.Random], int], _replay.finish_game)


def test_a_finished_games_page_and_its_replay_download_its_record(
    server: str,
    create: Callable[..., dict[str, Any]],
    open_page: OpenPage,
    shot: Callable[[Page, str], Path],
    tmp_path: Path,
) -> None:
    game = create(opponent="hotseat", name="Replayer")
    finish_game(server, game, random.Random(29))

    page = open_page(f"/watch/{game['game_id']}")
    button = page.locator(".summary a.download")
    expect(button).to_have_text("Download the record")
    shot(page, "download-game-1280x800")
    with page.expect_download() as caught:
        button.click()
    download = caught.value
    assert download.suggested_filename == f"kahuna-{game['game_id']}.json"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    record = GameRecord.loads(saved.read_text(encoding="utf-8"))
    assert record.meta["game_id"] == game["game_id"]
    assert record.replay().is_over

    replay = open_page(f"/replay/{game['game_id']}", locale="de-DE")
    expect(replay.locator(".replay-step")).to_contain_text("0")
    button = replay.get_by_test_id("replay-download").locator("a.download")  # at every step, above the board
    expect(button).to_have_text("Partie herunterladen")
    button.focus()
    with replay.expect_download() as caught:
        replay.keyboard.press("Enter")  # keyboard users download too
    assert caught.value.suggested_filename == f"kahuna-{game['game_id']}.json"


LOCALES = {"en-GB": "Find a player", "de-DE": "Spieler suchen", "nl-NL": "Speler zoeken", "es-ES": "Buscar jugador"}
LOCALES |= {"da-DK": "Find spiller"}
WIDTH = "() => document.documentElement.scrollWidth"


def sign_up(server: str, name: str) -> None:
    body = json.dumps({"username": name, "password": "tide-pool-basalt"}).encode()
    request = urllib.request.Request(server + "/api/accounts", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as answer:
        assert answer.status == 201


def test_the_header_finds_players_by_keyboard(
    server: str, open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    for name in ("Zqaimana", "zqalea", "Makoa"):  # a prefix no other test signs up with
        sign_up(server, name)
    page = open_page("/rules")
    field = page.get_by_role("searchbox", name="Find a player")
    field.focus()
    page.keyboard.type("ZQ")
    results = page.locator("#user-search-results a")
    expect(results).to_have_text(["Zqaimana", "zqalea"])
    shot(page, "search-1280x800")
    page.keyboard.press("ArrowDown")
    expect(results.first).to_be_focused()
    page.keyboard.press("ArrowDown")
    expect(results.nth(1)).to_be_focused()
    page.keyboard.press("ArrowUp")
    page.keyboard.press("ArrowUp")
    expect(field).to_be_focused()
    page.keyboard.press("Escape")
    expect(results).to_have_count(0)

    field.fill("zqalea-nobody")
    expect(page.locator(".user-search-status")).to_have_text("No player found")
    field.fill("ka ä")
    expect(page.locator(".user-search-status")).to_contain_text("A username has only letters")
    field.fill("zqale")  # ("zqal" finds Zqaimana too: "i" and "l" read alike, as at sign-up)
    expect(results).to_have_text(["zqalea"])
    page.keyboard.press("Enter")  # the first player found
    page.wait_for_url("**/users/zqalea")
    expect(page.locator("main")).to_contain_text("zqalea")


def test_the_search_box_fits_a_phone_in_every_language(
    server: str, open_page: OpenPage, shot: Callable[[Page, str], Path]
) -> None:
    sign_up(server, "Kawika_with_a_long")
    for locale, placeholder in LOCALES.items():
        page = open_page("/", width=390, height=844, locale=locale)
        field = page.locator("#user-search")
        expect(field).to_have_attribute("placeholder", placeholder)
        expect(field).to_be_hidden()  # behind the magnifier: a phone's page keeps its room
        assert page.evaluate(WIDTH) <= 390, locale
        toggle = page.locator(".user-search-toggle")
        toggle.focus()
        page.keyboard.press("Enter")
        expect(field).to_be_focused()
        field.fill("kawika")
        expect(page.locator("#user-search-results a")).to_have_text(["Kawika_with_a_long"])
        assert page.evaluate(WIDTH) <= 390, locale
        box = page.locator("#user-search-results").bounding_box()
        assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= 390, (locale, box)
        field.fill("nobody-at-all")
        expect(page.locator(".user-search-status")).not_to_be_empty()
        assert page.evaluate(WIDTH) <= 390, locale
        shot(page, f"search-390x844-{locale}")
        field.fill("")
        page.keyboard.press("Escape")  # an empty field closes, back to the magnifier
        expect(field).to_be_hidden()
        expect(toggle).to_be_focused()
        page.close()
