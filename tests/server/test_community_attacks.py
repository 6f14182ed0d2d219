"""The community's features under attack, against a real server: events that would make the server
play itself (AI compute for free), profile views of a busy player while a game is played.

Each test prints the figure it measured (``figure: ...``; ``pytest -s`` shows it)."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from collections.abc import Iterator

import httpx
import loopback
import pytest
from server_harness import Player, Server, run
from test_account_attacks import csrf, signed_in, unique

CLOCK = {"initial": 300, "increment": 3}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    args = ("--limit", "signups_burst=200", "--limit", "logins_burst=200")
    running = Server(tmp_path_factory.mktemp("community-attacks"), args=args).start()
    yield running
    running.stop()


def test_an_event_of_ai_levels_only_does_not_start(server: Server) -> None:
    """One account creates an Arena, invites two AI levels and starts it: the server would play
    itself for the Arena's length. It needs a person among its players."""
    organiser = signed_in(server, unique("aiarena"))
    event = {"kind": "arena", "name": "Machines only", "clock": CLOCK, "minutes": 60}
    made = organiser.post("/api/tournaments", json=event, headers=csrf(organiser))
    assert made.status_code == 201, made.text
    tid = made.json()["tournament_id"]
    for level in ("ai-easy", "ai-medium"):
        invited = organiser.post(f"/api/tournaments/{tid}/invite", json={"username": level}, headers=csrf(organiser))
        assert invited.status_code == 204, invited.text
    started = organiser.post(f"/api/tournaments/{tid}/start", headers=csrf(organiser))
    shown = organiser.get(f"/api/tournaments/{tid}").json()
    boards = sum(len(boards) for boards in shown["rounds"])
    print(f"\nfigure: an Arena of AI levels only: start {started.status_code}, {shown['status']}, {boards} game(s)")
    assert started.status_code == 409 and started.json()["error"] == "too_few_players", started.text
    assert shown["status"] == "created" and boards == 0


# ----------------------------------------------------------------- profiles of busy players


def add_finished_games(server: Server, username: str, count: int) -> None:
    """``count`` finished lobby games for the account, written straight into the database (what an
    AI level's account reaches over months: too many to play in a test)."""
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
        (account,) = conn.execute("SELECT id FROM accounts WHERE username = ?", (username,)).fetchone()
        stamp = "2026-01-01T00:00:00+00:00"
        ids = [f"busy{account}x{n:06d}" for n in range(count)]
        conn.executemany(
            "INSERT INTO games (id, created, updated, variant, deal, kind0, kind1, name0, name1, status, result,"
            " unlisted) VALUES (?, ?, ?, 'standard', 'seed', 'human', 'human', ?, 'Rival', 'over', ?, 0)",
            [(game, stamp, stamp, username, json.dumps({"winner": n % 2})) for n, game in enumerate(ids)],
        )
        conn.executemany(
            "INSERT INTO game_accounts (game_id, account0, account1, rated) VALUES (?, ?, NULL, 0)",
            [(game, account) for game in ids],
        )


def test_views_of_a_busy_players_profile_do_not_hold_up_a_game(server: Server) -> None:
    """20 views at once, from one address, of the profile of a player with 10,000 finished games;
    once the first view is answered, a hot-seat game's player moves. One address has at most four
    scans under way (the rest ``429``), in a pool of their own: not the one the game's updates are
    encoded in. The move's round trip is the figure (a few ms without the views)."""
    busy = unique("busy")
    signed_in(server, busy)
    add_finished_games(server, busy, 10_000)
    game = server.create(opponent="hotseat", seat="first", name="Ana")

    async def scenario() -> tuple[int, float, list[int]]:
        player = await Player.join(server, game["game_id"], game["tokens"][0])
        answered: list[int] = []
        first = asyncio.Event()
        async with httpx.AsyncClient(verify=loopback.NO_CA, base_url=server.url, timeout=120) as http:

            async def view() -> None:
                answer = await http.get(f"/api/users/{busy}")
                answered.append(answer.status_code)
                first.set()

            views = [asyncio.create_task(view()) for _ in range(20)]
            await first.wait()
            before = len(answered)
            moment = time.perf_counter()
            await player.play(player.last["legal"][0])
            took = time.perf_counter() - moment
            during = len(answered) - before
            await asyncio.gather(*views)
        await player.conn.close()
        return during, took, answered

    during, took, answered = run(scenario())
    print(f"\nfigure: {during} profile views answered while a move waited ({took * 1000:.0f} ms); statuses {answered}")
    assert 1 <= answered.count(200) <= 16 and answered.count(429) >= 4
    one_by_one = []
    with httpx.Client(verify=loopback.NO_CA, base_url=server.url, timeout=120) as http:
        for _ in range(5):  # the player's games unchanged: the scan is kept (player_games.PlayedCache)
            moment = time.perf_counter()
            assert http.get(f"/api/users/{busy}").json()["stats"]["scanned"] == 10_000
            one_by_one.append(round((time.perf_counter() - moment) * 1000))
    print(f"figure: views of the profile one by one afterwards, ms: {one_by_one}")
