"""Finding people and games (issue 29) through a real server: a finished game's record as a file,
a player's finished games as JSON lines."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from concurrent.futures import Executor
from pathlib import Path
from typing import Any, TypeVar

import pytest
from server_harness import Server
from sqlalchemy import Connection
from test_accounts import PASSWORD, csrf, signed_in
from test_lobby import play_then_resign

from kahuna.bench.lobby import CLOCK, client, new_account
from kahuna.bot.client import play_with_agent
from kahuna.rules.record import GameRecord
from kahuna.server.accounts.store import account_by_name
from kahuna.server.community import exports
from kahuna.server.community.live_games import LiveList
from kahuna.server.db.store import open_engine
from kahuna.server.db.writer import Writer

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


async def rated_seats(url: str, headers: list[dict[str, str]]) -> list[dict[str, Any]]:
    """A rated seek of the first account accepted by the second: both seats."""
    async with client(url, headers=headers[0]) as a, client(url, headers=headers[1]) as b:
        seek = (await a.post("/api/seeks", json={"clock": CLOCK, "rated": True})).json()
        taken = (await b.post(f"/api/seeks/{seek['seek_id']}/accept")).json()
        own = (await a.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})).json()
        return [own, taken]


def jsonl(server: Server, name: str) -> list[dict[str, Any]]:
    answer = server.get(f"/api/users/{name}/games.jsonl")
    assert answer.status_code == 200, answer.text
    assert answer.headers["content-type"] == "application/x-ndjson"
    assert answer.headers["content-disposition"] == f'attachment; filename="kahuna-{name}-games.jsonl"'
    assert answer.text.endswith("\n")
    return [json.loads(line) for line in answer.text.splitlines()]


@pytest.mark.slow
def test_a_players_finished_games_stream_as_records_that_replay_to_the_stored_result(
    server: Server, tmp_path: Path
) -> None:
    async def scenario() -> list[str]:
        headers = [await new_account(server.url, name) for name in ("exporter", "partner")]
        finished = []
        for seed in (1, 2):  # two games between the accounts, resigned after a few turns
            seats = await rated_seats(server.url, headers)
            await play_then_resign(server.url, seats, 2 + seed, seed=seed)
            finished.append(seats[0]["game_id"])
        async with client(server.url, headers=headers[0]) as http:  # a game played out on the board
            seat = (await http.post("/api/challenges", json={"opponent": "ai-easy", "clock": CLOCK})).json()
        final = await play_with_agent(server.url, seat["game_id"], seat["token"], "random", 3)
        assert final["status"] == "over" and final.get("termination") is None
        finished.append(seat["game_id"])
        await rated_seats(server.url, headers)  # still running: not exported
        return finished

    finished = asyncio.run(scenario())
    server.create(opponent="human", name="exporter")  # a game by invite link: never in an export
    records = jsonl(server, "exporter")
    assert sorted(record["meta"]["game_id"] for record in records) == sorted(finished)  # finished only
    keys = [(record["meta"]["created"], record["meta"]["game_id"]) for record in records]
    assert keys == sorted(keys)  # oldest first (time stamps are to the second: then by id)
    assert sorted(record["meta"]["game_id"] for record in jsonl(server, "partner")) == sorted(finished[:2])
    for record in records:
        game_id = record["meta"]["game_id"]
        summary = server.get(f"/api/games/{game_id}").json()
        replayed = GameRecord.from_json(record).replay()
        assert replayed.outcome is not None and replayed.outcome.to_json() == summary["result"]
        download = server.get(f"/api/games/{game_id}/record")
        assert download.json() == record  # the same record as the game's own, built without a replay
        assert download.headers["content-disposition"] == f'attachment; filename="kahuna-{game_id}.json"'

    saved = tmp_path / f"kahuna-{finished[2]}.json"
    saved.write_bytes(server.get(f"/api/games/{finished[2]}/record").content)
    replay = subprocess.run(
        [sys.executable, "-m", "kahuna", "replay", str(saved)], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert replay.returncode == 0, replay.stderr
    assert json.loads(replay.stdout)["result"] == server.get(f"/api/games/{finished[2]}").json()["result"]

    # The pages join up whatever their size: three pages of one game give the same three records.
    engine = open_engine(server.db)
    with engine.connect() as conn:
        account = account_by_name(conn, "exporter")
        assert account is not None
        original = exports.PAGE
        exports.PAGE = 1
        try:
            paged, after = [], None
            while True:
                page = exports.finished_games_page(conn, account.id, after)
                paged += page.records
                if page.next is None:
                    break
                after = page.next
        finally:
            exports.PAGE = original
    engine.dispose()
    assert paged == records


def test_an_unknown_players_export_is_404_and_an_unfinished_games_record_is_no_file(server: Server) -> None:
    answer = server.get("/api/users/nobody-here/games.jsonl")
    assert answer.status_code == 404 and answer.json()["error"] == "not_found"
    created = server.create(opponent="human")
    record = server.get(f"/api/games/{created['game_id']}/record")
    assert record.json()["format"] == "kahuna-public-record/1"
    assert "content-disposition" not in record.headers


# ---------------------------------------------------------------------------- search


def found(server: Server, prefix: str) -> list[str]:
    answer = server.get(f"/api/users?prefix={prefix}")
    assert answer.status_code == 200, answer.text
    return [user["username"] for user in answer.json()["users"]]


@pytest.mark.slow
def test_players_are_found_by_the_start_of_their_name_as_sign_up_compares_names(server: Server) -> None:
    async def sign_up() -> None:
        for name in ("Kalani", "kamaka", "KA_2", "Arnold", "Vvette", "Kimo"):
            await new_account(server.url, name)

    asyncio.run(sign_up())
    # by name, case aside; "kahuna" is the server's own account (it files the fair-play reports)
    assert found(server, "ka") == ["KA_2", "kahuna", "Kalani", "kamaka"]
    assert found(server, "KAL") == found(server, "kal") == ["Kalani"]
    assert found(server, "ka-") == ["KA_2"]  # "-" and "_" read alike; "_" is no wildcard
    assert found(server, "kama") == found(server, "karna") == ["kamaka"]  # "rn" reads as "m"
    assert found(server, "Ar") == found(server, "am") == ["Arnold"]  # the look-alike across the prefix's end
    assert found(server, "w") == found(server, "v") == ["Vvette"]
    assert found(server, "Kalani") == ["Kalani"] and found(server, "kalanix") == []
    assert "ai-easy" in found(server, "ai-")  # the AI levels' bots are players to find too

    gone = signed_in(server, "Kaipo_gone")
    assert "Kaipo_gone" in found(server, "kai")
    assert gone.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=csrf(gone)).status_code == 204
    assert "Kaipo_gone" not in found(server, "kai")  # a deleted account is not listed
    assert server.get("/api/users/Kaipo_gone/games.jsonl").status_code == 404  # nor exported


@pytest.mark.slow
def test_at_most_twenty_players_are_found(server: Server) -> None:
    async def sign_up() -> None:
        for n in range(21):
            await new_account(server.url, f"many{n:02d}")

    asyncio.run(sign_up())
    assert found(server, "many") == [f"many{n:02d}" for n in range(20)]
    assert found(server, "many20") == ["many20"]


@pytest.mark.parametrize(
    ("query", "reason"),
    [("prefix=", "prefix_length"), ("prefix=" + "k" * 500, "prefix_length"), ("prefix=k%C3%A4", "username_chars"),
     ("prefix=k%25", "username_chars"), ("prefix=a%20b", "username_chars")],
)  # fmt: skip
def test_a_prefix_no_name_can_start_with_is_refused_with_its_reason(server: Server, query: str, reason: str) -> None:
    answer = server.get(f"/api/users?{query}")
    assert answer.status_code == 422
    assert answer.json()["error"] == "invalid" and answer.json()["reason"]["code"] == reason


def test_a_search_without_a_prefix_is_refused(server: Server) -> None:
    answer = server.get("/api/users")
    assert answer.status_code == 422 and answer.json()["error"] == "invalid"


# ---------------------------------------------------------------------------- live games


def test_the_running_lobby_games_are_listed_rated_first_best_rated_first(tmp_path: Path) -> None:
    server = Server(tmp_path).start()
    try:
        check_live_games(server)
    finally:
        server.stop()


def friend_game(server: Server, unlisted: bool) -> str:
    """A game by invite link that the friend has joined (so it is being played); its id."""
    friend = server.create(opponent="human", name="Host", unlisted=unlisted)
    joined = server.post(friend["invite_url"].replace("/join/", "/api/join/"), {"name": "Friend"})
    assert joined.status_code == 200, joined.text
    return str(friend["game_id"])


def check_live_games(server: Server) -> dict[str, str]:
    """Three running lobby games (two rated, one between guests), a finished one, a game by link and
    one against the AI (listed) and four private games (hot-seat, and three chosen "unlisted"): the
    list holds the five in order, with their facts; ``limit`` is bounded. Returns the listed games'
    ids."""

    async def scenario() -> dict[str, str]:
        headers = [await new_account(server.url, name) for name in ("livea", "liveb", "livec")]
        ids = {}
        seats = await rated_seats(server.url, headers[:2])  # 1500 and 1500
        ids["rated_even"] = seats[0]["game_id"]
        async with client(server.url, headers=headers[2]) as http:  # 1500 against ai-easy's anchor
            answer = await http.post("/api/challenges", json={"opponent": "ai-easy", "clock": CLOCK, "rated": True})
            ids["rated_anchor"] = answer.json()["game_id"]
        async with client(server.url, "127.0.7.1") as a, client(server.url, "127.0.7.2") as b:  # two guests
            seek = (await a.post("/api/seeks", json={"clock": CLOCK, "name": "Guest A"})).json()
            accepted = await b.post(f"/api/seeks/{seek['seek_id']}/accept", json={"name": "Guest B"})
            ids["casual"] = accepted.json()["game_id"]
        over = await rated_seats(server.url, [headers[1], headers[0]])
        await play_then_resign(server.url, over, 0, seed=3)  # finished at once: not listed
        ids["over"] = over[0]["game_id"]
        return ids

    ids = asyncio.run(scenario())
    # private: hot-seat (always), and games by link or against the AI whose creator chose "unlisted"
    private = [server.create(opponent="hotseat")["game_id"]]
    private += [server.create(opponent=kind, seat="first", unlisted=True)["game_id"] for kind in ("human", "ai")]
    private.append(friend_game(server, unlisted=True))
    waiting = server.create(opponent="human")["game_id"]  # listed once the friend has joined
    ids["friend"] = friend_game(server, unlisted=False)
    # a game against the AI is listed by default (the creator moves first: the AI waits, so the
    # game's move number stays put while the test compares the list with the game)
    ids["ai"] = server.create(opponent="ai", seat="first")["game_id"]

    answer = server.get("/api/games/live")
    assert answer.status_code == 200, answer.text
    listed = answer.json()["games"]
    order = [game["game_id"] for game in listed]
    # rated first, best rated first; the casual games all count as 1500: the newest first (one
    # second apart at most, so their order is left open here)
    assert order[:2] == [ids["rated_even"], ids["rated_anchor"]]
    assert sorted(order[2:]) == sorted([ids["casual"], ids["friend"], ids["ai"]])
    even, anchor = listed[:2]
    casual = next(game for game in listed if game["game_id"] == ids["casual"])
    assert [p["rating"] for p in even["players"]] == [1500, 1500] and even["rated"] and even["pool"] == "realtime"
    assert sorted(p["rating"] for p in anchor["players"]) == [1105, 1500]  # ai-easy's anchor rating
    names = server.get(f"/api/games/{ids['casual']}").json()["players"]
    assert casual["players"] == [{"name": name, "account": False, "rating": None, "kind": "human"} for name in names]
    assert not casual["rated"]
    for game in listed:
        summary = server.get(f"/api/games/{game['game_id']}").json()
        assert game["moves"] == summary["version"] and game["watch_url"] == f"/watch/{game['game_id']}"
        if game["game_id"] in (ids["friend"], ids["ai"]):  # untimed, not made in the lobby: no pool
            assert game["clock"] is None and game["pool"] is None and not game["rated"]
            assert [p["name"] for p in game["players"]] == summary["players"]
            assert all(p["rating"] is None for p in game["players"])
            continue
        assert game["clock"]["control"] == CLOCK and all(0 < left <= 300 for left in game["clock"]["remaining"])
        assert set(game) == {"game_id", "players", "rated", "pool", "clock", "moves", "created", "watch_url"}
    assert not {ids["over"], waiting, *private} & set(order)

    assert [game["game_id"] for game in server.get("/api/games/live?limit=1").json()["games"]] == [ids["rated_even"]]
    for bad in ("100000", "0", "-1", "many"):
        refused = server.get(f"/api/games/live?limit={bad}")
        assert refused.status_code == 422 and refused.json()["error"] == "invalid", bad
    return ids


def test_unlisted_is_a_boolean_or_refused(server: Server) -> None:
    for bad in ("yes", 1, None):
        refused = server.post("/api/games", {"opponent": "human", "unlisted": bad})
        assert refused.status_code == 422 and refused.json()["error"] == "invalid", bad


def test_the_live_list_is_read_once_for_requests_that_come_together(tmp_path: Path) -> None:
    """Requests that arrive together share one reading of the live list, and a request right after
    it (within ``FRESH_SECONDS``) gets the same list without another."""

    class CountingWriter(Writer):
        reads = 0

        async def read(self, fn: Callable[[Connection], T], threads: Executor | None = None) -> T:
            CountingWriter.reads += 1
            return await super().read(fn, threads)

    writer = CountingWriter(open_engine(f"sqlite:///{tmp_path / 'k.db'}"))
    shared = LiveList(writer)

    async def scenario() -> list[list[dict[str, Any]]]:
        together = await asyncio.gather(*(shared.first(50) for _ in range(20)))
        return [*together, await shared.first(1)]

    answers = asyncio.run(scenario())
    assert CountingWriter.reads == 1 and all(answer == [] for answer in answers)
