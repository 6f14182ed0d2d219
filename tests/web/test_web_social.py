"""Finding people and games (issue 29) in the browser: the "Download" button of a finished game."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

from playwright.sync_api import Page, expect
from test_web_replay import OpenPage, create_hotseat_game, finish_game

from kahuna.rules.record import GameRecord


def test_a_finished_games_page_and_its_replay_download_its_record(
    server: str, open_page: OpenPage, shot: Callable[[Page, str], Path], tmp_path: Path
) -> None:
    game = create_hotseat_game(server)
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
    replay.keyboard.press("End")
    button = replay.locator(".summary a.download")
    expect(button).to_have_text("Partie herunterladen")
    button.focus()
    with replay.expect_download() as caught:
        replay.keyboard.press("Enter")  # keyboard users download too
    assert caught.value.suggested_filename == f"kahuna-{game['game_id']}.json"
