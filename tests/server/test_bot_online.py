"""``kahuna bot`` against a real server: a bot account's program accepts a person's rated
challenge and plays the whole game over the WebSocket protocol (here an external ``cmd:`` bot)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from typing import Any

from server_harness import ROOT, Server

from kahuna.bench.lobby import CLOCK, client, new_account, wait_accepted
from kahuna.bot.client import play_with_agent


def test_kahuna_bot_accepts_a_rated_challenge_and_plays_it_to_the_end(server: Server) -> None:
    async def scenario() -> dict[str, Any]:
        bot_headers = await new_account(server.url, "robo-1", bot=True)
        person = await new_account(server.url, "human-1")
        token = bot_headers["Authorization"].removeprefix("Bearer ")
        command = [
            sys.executable, "-m", "kahuna", "bot", "--server", server.url, "--token", token,
            "--agent", f"cmd:{sys.executable} examples/bot.py", "--accept", "rated", "--max-games", "1",
        ]  # fmt: skip
        bot = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
        try:
            async with client(server.url, headers=person) as http:
                assert (await http.get("/api/users/robo-1")).json()["is_bot"]
                made = await http.post("/api/challenges", json={"opponent": "robo-1", "clock": CLOCK, "rated": True})
                offer = made.json()
                assert offer["status"] == "open"
                for _ in range(240):  # polling keeps the challenge alive until the bot, once online, accepts it
                    status = (
                        await http.get(f"/api/challenges/{offer['seek_id']}", headers={"X-Seek-Token": offer["token"]})
                    ).json()
                    if "game_id" in status:
                        break
                    await asyncio.sleep(0.25)
                else:
                    raise AssertionError("the bot never accepted")
            final = await play_with_agent(server.url, status["game_id"], status["token"], "random", 5)
            _, errors = await asyncio.to_thread(bot.communicate, timeout=60)
            assert bot.returncode == 0, errors
            assert f"playing {status['game_id']} against human-1" in errors
            return final
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()

    final = asyncio.run(scenario())
    assert final["status"] == "over" and final["view"]["result"]["reason"] != "aborted"
    robo = server.get("/api/users/robo-1").json()
    human = server.get("/api/users/human-1").json()
    assert robo["ratings"]["realtime"]["games"] == 1 == human["ratings"]["realtime"]["games"]
    assert robo["ratings"]["realtime"]["rating"] != 1500
    assert [g["opponent"] for g in robo["games"]] == ["human-1"]


def test_kahuna_bot_with_a_bad_token_stops_and_says_so(server: Server) -> None:
    completed = subprocess.run(
        [sys.executable, "-m", "kahuna", "bot", "--server", server.url, "--token", "nope", "--agent", "random"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert completed.returncode != 0 and "refused the token" in completed.stderr


def test_kahuna_bot_with_seeks_takes_a_guests_casual_seek_and_plays_it(server: Server) -> None:
    async def scenario() -> dict[str, Any]:
        headers = await new_account(server.url, "robo-2", bot=True)
        token = headers["Authorization"].removeprefix("Bearer ")
        command = [
            sys.executable, "-m", "kahuna", "bot", "--server", server.url, "--token", token,
            "--agent", "medium", "--accept", "casual", "--seeks", "--max-games", "1",
        ]  # fmt: skip
        bot = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
        try:
            async with client(server.url, "127.0.8.1") as guest:
                posted = await guest.post("/api/seeks", json={"clock": CLOCK, "name": "Guest"})
                assert posted.status_code == 201
                seek = posted.json()
                seat = await asyncio.wait_for(wait_accepted(server.url, seek["seek_id"], seek["token"]), 30)
            final = await play_with_agent(server.url, seat["game_id"], seat["token"], "random", 6)
            _, errors = await asyncio.to_thread(bot.communicate, timeout=60)
            assert bot.returncode == 0 and f"playing {seat['game_id']} against Guest" in errors, errors
            return final
        finally:
            if bot.poll() is None:
                bot.kill()
                bot.wait()

    final = asyncio.run(scenario())
    assert final["status"] == "over"
    assert server.get("/api/users/robo-2").json()["ratings"]["realtime"]["games"] == 0  # casual
