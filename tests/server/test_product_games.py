"""Issue 51, one product: a signed-in player's games are its account's whatever page started them
(against the AI, by invite link, hot-seat, the tutorial), on its profile, games list, statistics
and export; a rematch keeps the accounts, the clock and, within the pair limit, the rated status;
a game that ended off the board says how in its replay's head. Against a real server."""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
import websockets
from server_harness import Conn, Server, connect, run

from kahuna.bench.lobby import client, new_account

DAYS = {"days": 2}
"""A correspondence clock: its games are not aborted while nobody moves (a real-time game is,
after its grace), so the games a test leaves running keep counting for the pair limit."""


async def end(server: Server, game_id: str, token: str, how: str) -> dict[str, Any]:
    """End a game as the seat of ``token`` (``resign`` or ``abort``): its final sync."""
    conn = await connect(server, game_id, token)
    await conn.send(type=how, id="end")
    final = await conn.until(lambda m: m["type"] == "sync" and m["status"] == "over")
    await conn.close()
    return final


def listed(server: Server, username: str) -> list[str]:
    """The game ids of a player's games list (its first page)."""
    answer = server.get(f"/api/users/{username}/games")
    assert answer.status_code == 200, answer.text
    return [game["game_id"] for game in answer.json()["games"]]


def exported(server: Server, username: str) -> list[dict[str, Any]]:
    answer = server.get(f"/api/users/{username}/games.jsonl")
    assert answer.status_code == 200, answer.text
    return [json.loads(line) for line in answer.text.splitlines()]


def test_a_signed_in_players_games_from_the_home_page_are_its_accounts(server: Server) -> None:
    async def scenario() -> None:
        maker, friend = await new_account(server.url, "homemaker"), await new_account(server.url, "homefriend")
        async with client(server.url, headers=maker) as me, client(server.url, headers=friend) as them:
            made: dict[str, dict[str, Any]] = {}
            for opponent in ("ai", "hotseat", "tutorial", "human"):
                body = {"opponent": opponent, "level": "random", "seat": "first", "name": "Guest 7416"}
                answer = await me.post("/api/games", json=body)
                assert answer.status_code == 201, answer.text
                made[opponent] = answer.json()
            invite = made["human"]["invite_url"].replace("/join/", "/api/join/")
            joined = await them.post(invite, json={"name": "Guest 1234"})
            assert joined.status_code == 200, joined.text
            guest = (await client(server.url).post("/api/games", json={"opponent": "ai", "name": "Guest 55"})).json()
            summaries = {key: (await me.get(f"/api/games/{game['game_id']}")).json() for key, game in made.items()}
        assert summaries["ai"]["players"] == ["homemaker", "Kahuna AI (random)"]
        assert summaries["hotseat"]["players"] == ["homemaker", "Player 2"]  # the creator's seat only
        assert summaries["tutorial"]["players"] == ["homemaker", "Tutor"]
        assert summaries["human"]["players"] == ["homemaker", "homefriend"]
        assert server.get(f"/api/games/{guest['game_id']}").json()["players"][guest["seat"]] == "Guest 55"
        ids = {key: game["game_id"] for key, game in made.items()}
        for key in ids:  # resigned (counted in the statistics), or aborted at once (counted nowhere)
            await end(server, ids[key], made[key]["token"], "resign" if key in ("ai", "hotseat") else "abort")
        # on the profile (games list and statistics) and in the export, as lobby games are: casual
        assert set(listed(server, "homemaker")) == set(ids.values())
        assert listed(server, "homefriend") == [ids["human"]]
        profile = server.get("/api/users/homemaker").json()
        assert profile["stats"]["pools"]["untimed"] == {"games": 2, "wins": 0, "losses": 2, "draws": 0}
        assert profile["stats"]["ai"]["random"]["losses"] == 1
        assert not any(game["rated"] for game in profile["games"])
        assert {record["meta"]["game_id"] for record in exported(server, "homemaker")} == set(ids.values())
        assert [record["players"] for record in exported(server, "homefriend")] == [["homemaker", "homefriend"]]
        marks = server.get(f"/api/games/{ids['ai']}/ratings").json()
        assert marks["paired"] and not marks["rated"]
        assert not server.get(f"/api/games/{guest['game_id']}/ratings").json()["paired"]  # a guest's game: none

    run(scenario())


async def rated_game(server: Server, first: dict[str, str], second: dict[str, str]) -> list[dict[str, Any]]:
    """A rated correspondence game between two accounts from the lobby: both seats (with tokens)."""
    async with client(server.url, headers=first) as a, client(server.url, headers=second) as b:
        seek = (await a.post("/api/seeks", json={"clock": DAYS, "rated": True})).json()
        taken = (await b.post(f"/api/seeks/{seek['seek_id']}/accept")).json()
        own = (await a.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})).json()
    assert own["game_id"] == taken["game_id"]
    return [own, taken]


async def rematch(server: Server, seats: list[dict[str, Any]]) -> str:
    """Both seats of a finished game agree on a rematch: its id."""
    conns: list[Conn] = []
    for seat in seats:
        conns.append(await connect(server, seat["game_id"], seat["token"]))
    await conns[0].send(type="rematch", id="offer")
    await conns[1].until(lambda m: m["type"] == "rematch_offered")
    await conns[1].send(type="rematch", id="accept")
    links = [await conn.until(lambda m: m["type"] == "rematch") for conn in conns]
    for conn in conns:
        await conn.close()
    new_id: str = links[0]["game_id"]
    return new_id


@pytest.mark.parametrize("pair_limit", [False, True])
def test_a_rematch_keeps_the_accounts_the_clock_and_within_the_pair_limit_the_rating(
    server: Server, pair_limit: bool
) -> None:
    suffix = "l" if pair_limit else "r"

    async def scenario() -> None:
        first = await new_account(server.url, f"remA-{suffix}")
        second = await new_account(server.url, f"remB-{suffix}")
        old = await rated_game(server, first, second)
        await end(server, old[0]["game_id"], old[0]["token"], "abort")  # ended unrated: it counts for no limit
        if pair_limit:  # three rated games of the pair under way: a fourth starts casual
            for _ in range(3):
                await rated_game(server, first, second)
        new_id = await rematch(server, old)
        summary, before = (server.get(f"/api/games/{game_id}").json() for game_id in (new_id, old[0]["game_id"]))
        assert summary["rematch_of"] == before["game_id"] and summary["clock"]["control"] == before["clock"]["control"]
        assert summary["players"] == before["players"][::-1]  # the seats swapped
        assert summary["rated"] is not pair_limit
        assert summary["casual_reason"] == ("pair_limit" if pair_limit else None)
        marks = server.get(f"/api/games/{new_id}/ratings").json()
        assert marks["paired"] and marks["rated"] is not pair_limit and marks["pool"] == "correspondence"
        for name in ("remA", "remB"):
            assert new_id in listed(server, f"{name}-{suffix}")

    run(scenario())


def test_a_replay_of_a_resigned_game_says_how_it_ended(server: Server) -> None:
    async def scenario() -> None:
        async with httpx.AsyncClient(base_url=server.url) as http:
            made = (await http.post("/api/games", json={"opponent": "hotseat", "seat": "first"})).json()
        game_id, tokens = made["game_id"], made["tokens"]
        conn = Conn(await websockets.connect(f"{server.ws_url}/ws/{game_id}"), tokens[0])
        await conn.hello(None)
        sync = await conn.until(lambda m: m["type"] == "sync")
        await conn.send(type="action", action=sync["legal"][0], version=sync["version"], id="a")
        await conn.until(lambda m: m["type"] == "ack")
        await conn.close()
        final = await end(server, game_id, tokens[0], "resign")
        assert final["termination"] == {"reason": "resign", "seat": 0}
        replay = server.get(f"/api/games/{game_id}/replay").json()
        assert replay["result"] == {"winner": 1, "reason": "resign"}
        assert replay["steps"][-1]["view"]["result"] is None  # no action ended it: the page says how
        record = server.get(f"/api/games/{game_id}/record")
        assert record.headers["content-disposition"] == f'attachment; filename="kahuna-{game_id}.json"'
        assert record.json()["termination"] == {"reason": "resign", "seat": 0}

    run(scenario())
