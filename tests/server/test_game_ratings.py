"""The players' ratings of one game (``GET /api/games/<id>/ratings``, issue 29) through a real
server: each seat's rating while a rated game runs, the change once it ended, none for a game not
made in the lobby, and 404 for no game."""

from __future__ import annotations

import asyncio
from pathlib import Path

from server_harness import Server
from test_lobby import play_then_resign
from test_social import rated_seats

from kahuna.bench.lobby import new_account


def test_a_rated_game_shows_its_players_ratings_and_then_their_change(tmp_path: Path) -> None:
    server = Server(tmp_path).start()

    async def two_accounts() -> list[dict[str, str]]:
        return [await new_account(server.url, name) for name in ("rata", "ratb")]

    try:
        seats = asyncio.run(rated_seats(server.url, asyncio.run(two_accounts())))
        game_id = seats[0]["game_id"]
        running = server.get(f"/api/games/{game_id}/ratings")
        assert running.status_code == 200, running.text
        assert running.json() == {
            "rated": True,
            "paired": True,
            "pool": "realtime",
            "players": [{"rating": 1500, "before": None, "after": None, "account": True}] * 2,
        }

        final = asyncio.run(play_then_resign(server.url, seats, 2, seed=2))  # both finished a turn: rated
        winner = 1 - final["termination"]["seat"]
        ended = server.get(f"/api/games/{game_id}/ratings").json()
        assert ended["rated"] and [p["before"] for p in ended["players"]] == [1500, 1500]
        won, lost = ended["players"][winner], ended["players"][1 - winner]
        assert won["after"] > 1500 > lost["after"]
        assert won["rating"] == won["after"] and lost["rating"] == lost["after"]  # the profile's rating now

        by_link = server.create(opponent="ai")["game_id"]
        none = {"rating": None, "before": None, "after": None, "account": False}
        unrated = {"rated": False, "paired": False, "pool": None, "players": [none] * 2}  # a guest's, the AI's
        assert server.get(f"/api/games/{by_link}/ratings").json() == unrated
        missing = server.get("/api/games/nosuchgame/ratings")
        assert missing.status_code == 404 and missing.json()["error"] == "not_found"
    finally:
        server.stop()
