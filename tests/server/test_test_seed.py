"""``kahuna serve --test-seed N``: the test suite's servers draw deals and seats from a seed."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from server_harness import ROOT, Player, Server, run


def _draws(tmp: Path, seed: str) -> list[tuple[int, str, str]]:
    """The seat drawn and the hand and display dealt in three games created one after another."""
    tmp.mkdir()
    server = Server(tmp, args=("--test-seed", seed)).start()
    try:
        created = [server.create(opponent="human", name="Alice") for _ in range(3)]

        async def look() -> list[tuple[int, str, str]]:
            seen = []
            for game in created:
                player = await Player.join(server, game["game_id"], game["token"])
                view = player.last["view"]
                seen.append((game["seat"], view["hand"], view["display"]))
                await player.conn.close()
            return seen

        draws: list[tuple[int, str, str]] = run(look())
        return draws
    finally:
        server.stop()


@pytest.mark.slow  # three server start-ups: about 20 s on the shared 2-core machine
def test_the_same_seed_deals_the_same_games_and_another_seed_others(tmp_path: Path) -> None:
    # The harness's own --test-seed comes first: the last one given is the one used.
    first = _draws(tmp_path / "a", "7")
    assert _draws(tmp_path / "b", "7") == first
    assert _draws(tmp_path / "c", "8") != first


def test_the_option_is_not_offered_to_users() -> None:
    shown = subprocess.run(
        [sys.executable, "-m", "kahuna", "serve", "--help"], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert shown.returncode == 0 and "test-seed" not in shown.stdout
