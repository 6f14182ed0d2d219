"""Post-game analysis on the real server: a player's request, the background job and its progress,
the per-address quota and the cache that outlives a restart; hints only when learning."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import httpx
from server_harness import Player, Server, play_random, run


def _wait_done(server: Server, game_id: str, token: str) -> dict[str, Any]:
    deadline = time.monotonic() + 120
    while True:
        reply = server.post(f"/api/games/{game_id}/analysis", {"token": token})
        assert reply.status_code == 200, reply.text
        status: dict[str, Any] = reply.json()
        assert status["state"] in ("running", "done"), status
        if status["state"] == "done":
            return status
        assert 0 <= status["done"] <= status["total"]
        assert time.monotonic() < deadline, status
        time.sleep(0.3)


def test_analysis_job_for_the_players_of_a_finished_game(tmp_path: Path) -> None:
    limits = ("analysis_iterations=4", "analyses_burst=1", "analyses_per_hour=1")
    server = Server(tmp_path, args=tuple(x for limit in limits for x in ("--limit", limit))).start()
    try:
        game = server.create(opponent="hotseat", seat="first")
        game_id, tokens = game["game_id"], game["tokens"]

        async def play() -> list[str]:
            seats = {s: await Player.join(server, game_id, tokens[s]) for s in (0, 1)}
            early = server.post(f"/api/games/{game_id}/analysis", {"token": tokens[0]})
            assert early.status_code == 409 and early.json()["error"] == "not_over"
            await play_random(seats, [], random.Random(4), None)
            history: list[str] = seats[0].last["view"]["history"]
            return history

        history = run(play())
        assert server.get(f"/api/games/{game_id}/analysis").json() == {"state": "none"}
        stranger = server.post(f"/api/games/{game_id}/analysis", {"token": "not-a-seat-token"})
        assert stranger.status_code == 403 and stranger.json()["error"] == "not_a_player"

        black = _wait_done(server, game_id, tokens[0])
        white = server.post(f"/api/games/{game_id}/analysis", {"token": tokens[1]}).json()
        public = server.get(f"/api/games/{game_id}/analysis").json()
        assert black == white == public  # a finished game's record is public: so is its analysis
        record = server.get(f"/api/games/{game_id}/record").json()
        assert black["budget"] == 4 and len(black["moves"]) == len(record["actions"]) == len(history)
        classes = ("forced", "best", "inaccuracy", "mistake", "blunder")
        for move, token in zip(black["moves"], record["actions"], strict=True):
            assert move["played"] == token and move["class"] in classes
        for seat in (0, 1):
            assert black["summary"][str(seat)]["actions"] == sum(m["seat"] == seat for m in black["moves"])
        assert black["graph"][-1]["step"] == len(history)
        assert all(0 <= p["black"] <= 1 for p in black["graph"])

        # A second analysis from the same address within the hour: the quota is spent.
        other = server.create(opponent="hotseat", seat="first")

        async def abort() -> None:
            player = await Player.join(server, other["game_id"], other["tokens"][0])
            await player.conn.send(type="abort", id="a")
            await player.conn.until(lambda m: m["type"] == "ack")

        run(abort())
        refused = server.post(f"/api/games/{other['game_id']}/analysis", {"token": other["tokens"][0]})
        assert refused.status_code == 429 and refused.json()["error"] == "analysis_quota"
        # The finished analysis is stored with the game: free, and there after a restart.
        server.stop()
        server.start()
        again = server.post(f"/api/games/{game_id}/analysis", {"token": tokens[0]}).json()
        assert again == black
    finally:
        server.stop()


def test_hints_only_when_learning(server: Server) -> None:
    def ask(game_id: str, *tokens: str) -> httpx.Response:
        return server.post(f"/api/games/{game_id}/hint", {"tokens": list(tokens)})

    ai_game = server.create(opponent="ai", level="easy", seat="first")
    given = ask(ai_game["game_id"], ai_game["token"])
    assert given.status_code == 200, given.text
    hint = given.json()
    assert hint["version"] == 0 and hint["why"].startswith(hint["action"] + ": ")

    async def legal_now() -> list[str]:
        black = await Player.join(server, ai_game["game_id"], ai_game["token"])
        await black.conn.close()
        legal: list[str] = black.last["legal"]
        return legal

    assert hint["action"] in run(legal_now())
    assert ask(ai_game["game_id"], "not-a-token").json()["error"] == "forbidden"

    hotseat = server.create(opponent="hotseat", seat="first")
    both = ask(hotseat["game_id"], *hotseat["tokens"])
    assert both.status_code == 200 and both.json()["why"].startswith(both.json()["action"])
    alone = ask(hotseat["game_id"], hotseat["tokens"][0])
    assert alone.status_code == 403 and alone.json()["error"] == "no_hints"
    waiting = ask(hotseat["game_id"], hotseat["tokens"][1])  # Black is to move, not White
    assert waiting.status_code == 409 and waiting.json()["error"] == "not_your_turn"

    person = server.create(opponent="human", seat="first", name="Alice")
    refused = ask(person["game_id"], person["token"])
    assert refused.status_code == 403 and refused.json()["error"] == "no_hints"
