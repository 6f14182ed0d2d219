"""Tournaments on the real server: bad input refused, a Swiss of seven bots played to the end with
random agents (and one with a restart in the middle), an Arena of six bots to its end.

The bots are ``kahuna bot --tournament``'s :class:`TournamentBot`, in this process (seven
interpreters would crowd the machine); one Swiss bot runs as the real command. Everything is
checked from what the API answers, recomputed here independently of the server's code.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections import Counter
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import loopback
import pytest
import websockets
from server_harness import ROOT, Server

from kahuna.bench.lobby import client, new_account
from kahuna.bot.client import ws_url
from kahuna.bot.tournament import TournamentBot

CLOCK = {"initial": 300, "increment": 3}


async def until(check: Callable[[], Awaitable[Any]], timeout: float = 120) -> Any:
    """Poll ``check`` until it answers something true (the event the test waits for)."""
    async with asyncio.timeout(timeout):
        while not (answer := await check()):
            await asyncio.sleep(0.1)
        return answer


async def tournament(url: str, tid: str) -> dict[str, Any]:
    async with client(url) as http:
        answer = await http.get(f"/api/tournaments/{tid}")
        assert answer.status_code == 200, answer.text
        shown: dict[str, Any] = answer.json()
        return shown


async def game_result(url: str, game_id: str) -> Any:
    async with client(url) as http:
        return (await http.get(f"/api/games/{game_id}")).json()["result"]


def check_swiss(shown: dict[str, Any], players: int, rounds: int) -> None:
    """No pair twice, a bye a round to a different player each time, colours within one, every
    score the sum of its games, Buchholz and Sonneborn–Berger recomputed, the standings in their order."""
    assert shown["status"] == "finished" and len(shown["rounds"]) == rounds
    met: set[frozenset[str]] = set()
    balance: Counter[str] = Counter()
    points: dict[str, list[tuple[str | None, float]]] = {}
    byes: Counter[str] = Counter()
    for boards in shown["rounds"]:
        seated = [name for board in boards for name in board["players"] if name is not None]
        assert len(seated) == len(set(seated)) == players  # everyone plays once a round
        for board in boards:
            first, second = board["players"]
            if second is None:
                assert board["result"] == "bye" and board["game_id"] is None
                byes[first] += 1
                points.setdefault(first, []).append((None, 1.0))
                continue
            balance[first] += 1
            balance[second] -= 1
            pair = frozenset((first, second))
            assert pair not in met, f"{first} and {second} met twice"
            met.add(pair)
            result = board["result"]
            assert result in ("0", "1", "draw")
            mine = {"0": (1.0, 0.0), "1": (0.0, 1.0), "draw": (0.5, 0.5)}[result]
            points.setdefault(first, []).append((second, mine[0]))
            points.setdefault(second, []).append((first, mine[1]))
    assert sum(byes.values()) == rounds * (players % 2) and set(byes.values()) <= {1}  # byes spread
    assert all(abs(b) <= 1 for b in balance.values()), balance  # colours: seat 0 and seat 1 within one
    score = {name: sum(p for _, p in games) for name, games in points.items()}
    buchholz = {name: sum(score[o] for o, _ in games if o is not None) for name, games in points.items()}
    berger = {name: sum(score[o] * p for o, p in games if o is not None) for name, games in points.items()}
    for row in shown["standings"]:
        name = row["username"]
        assert row["score"] == score[name] and row["games"] == rounds
        assert row["tiebreaks"] == {"buchholz": buchholz[name], "sonneborn_berger": berger[name]}
    keys = [(-r["score"], -r["tiebreaks"]["buchholz"], -r["tiebreaks"]["sonneborn_berger"]) for r in shown["standings"]]
    assert keys == sorted(keys)


async def check_results_are_the_games(url: str, shown: dict[str, Any]) -> None:
    """Each board's result is its game's (an ordinary game of the server, over and recorded)."""
    for boards in shown["rounds"]:
        for board in boards:
            if board["game_id"] is None:
                continue
            result = await game_result(url, board["game_id"])
            expected = "draw" if result["winner"] is None else str(result["winner"])
            assert board["result"] == expected


async def accounts(url: str, names: list[str]) -> list[dict[str, str]]:
    return [await new_account(url, name, bot=True) for name in names]


async def create(url: str, headers: dict[str, str], **body: Any) -> str:
    async with client(url, headers=headers) as http:
        made = await http.post("/api/tournaments", json=body)
        assert made.status_code == 201, made.text
        tid: str = made.json()["tournament_id"]
        return tid


async def start(url: str, headers: dict[str, str], tid: str, players: int) -> None:
    async def all_joined() -> bool:
        return len((await tournament(url, tid))["players"]) == players

    await until(all_joined)
    async with client(url, headers=headers) as http:
        started = await http.post(f"/api/tournaments/{tid}/start")
        assert started.status_code == 204, started.text


def test_bad_input_is_refused_with_a_code_and_changes_nothing(server: Server) -> None:
    async def scenario() -> None:
        owner, other = await accounts(server.url, ["t-owner", "t-other"])
        tid = await create(server.url, owner, kind="swiss", name="Rated", clock=CLOCK, rounds=3, rated=True)
        async with client(server.url, headers=owner) as me, client(server.url, headers=other) as them:
            bad: list[dict[str, Any]] = [
                {"kind": "swiss", "name": "x", "clock": CLOCK, "rounds": -1},
                {"kind": "swiss", "name": "x", "clock": CLOCK, "rounds": 0},
                {"kind": "arena", "name": "x", "clock": CLOCK, "minutes": 365 * 24 * 60},
                {"kind": "arena", "name": "x", "clock": CLOCK},
                {"kind": "swiss", "name": "x", "clock": {"days": 2}, "rounds": 3},
                {"kind": "swiss", "name": "x", "clock": CLOCK, "rounds": 3, "starts_at": "2000-01-01T00:00:00Z"},
                {"kind": "knockout", "name": "x", "clock": CLOCK, "rounds": 3},
            ]
            for body in bad:
                answer = await me.post("/api/tournaments", json=body)
                assert answer.status_code == 422, (body, answer.text)
            async with client(server.url) as guest:
                refused = await guest.post(f"/api/tournaments/{tid}/join")
                assert refused.status_code == 401 and refused.json()["error"] == "unauthorized"
                assert (await guest.post("/api/tournaments", json={**bad[0], "rounds": 3})).status_code == 401
            assert (await me.post(f"/api/tournaments/{tid}/join")).status_code == 204
            twice = await me.post(f"/api/tournaments/{tid}/join")
            assert twice.status_code == 409 and twice.json()["error"] == "already_joined"
            theirs = await them.post(f"/api/tournaments/{tid}/start")
            assert theirs.status_code == 403 and theirs.json()["error"] == "forbidden"
            too_few = await me.post(f"/api/tournaments/{tid}/start")
            assert too_few.status_code == 409 and too_few.json()["error"] == "too_few_players"
            someone_else = await them.post(f"/api/tournaments/{tid}/leave", json={"username": "t-owner"})
            assert someone_else.status_code == 403 and someone_else.json()["error"] == "forbidden"
            not_in = await them.post(f"/api/tournaments/{tid}/leave")
            assert not_in.status_code == 409 and not_in.json()["error"] == "not_joined"
            assert (await me.get("/api/tournaments/nope")).status_code == 404
            shown = await tournament(server.url, tid)
            assert [p["username"] for p in shown["players"]] == ["t-owner"] and shown["status"] == "created"
            listed = (await me.get("/api/tournaments")).json()
            assert tid in [t["tournament_id"] for t in listed["upcoming"]]

    asyncio.run(scenario())


async def play_swiss(
    server: Server,
    prefix: str,
    seed: int,
    in_the_middle: Callable[[str], Awaitable[None]] | None = None,
    organiser_server: Server | None = None,
) -> tuple[str, dict[str, Any]]:
    """Seven bot accounts (one through the real ``kahuna bot`` command) play a rated five-round Swiss
    on ``server``; the organiser creates and starts it on ``organiser_server`` (default the same)."""
    names = [f"{prefix}-{i}" for i in range(7)]
    desk = (organiser_server or server).url
    organiser = (await accounts(desk, [f"{prefix}-org"]))[0]
    headers = await accounts(server.url, names)
    tid = await create(desk, organiser, kind="swiss", name=f"{prefix} Swiss", clock=CLOCK, rounds=5, rated=True)
    bots = [TournamentBot(server.url, h, "random", tid, seed + i) for i, h in enumerate(headers[1:])]
    token = headers[0]["Authorization"].removeprefix("Bearer ")
    command = [
        sys.executable, "-m", "kahuna", "bot", "--server", server.url, "--token", token, "--agent", "random",
        "--tournament", tid, "--seed", str(seed),
    ]  # fmt: skip
    process = subprocess.Popen(command, cwd=ROOT, stderr=subprocess.PIPE, text=True)
    try:
        running = [asyncio.create_task(bot.run()) for bot in bots]
        try:
            await start(desk, organiser, tid, 7)
        except TimeoutError:
            process.kill()
            _, said = await asyncio.to_thread(process.communicate, timeout=30)
            shown = await tournament(desk, tid)
            joined = [p["username"] for p in shown["players"]]
            raise AssertionError(f"not all seven joined: {joined}; the kahuna bot command said: {said!r}") from None
        if in_the_middle is not None:
            await in_the_middle(tid)
        async with asyncio.timeout(600):
            assert await asyncio.gather(*running) == [0] * 6
        _, errors = await asyncio.to_thread(process.communicate, timeout=120)
        assert process.returncode == 0, errors
        assert f"tournament {tid} finished" in errors
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return tid, await tournament(server.url, tid)


@pytest.mark.long  # 35 s; the swisses with the AI invited and across a restart play one to the end too
@pytest.mark.slow
def test_a_swiss_of_seven_bots_is_played_to_the_end(server: Server) -> None:
    tid, shown = asyncio.run(play_swiss(server, "sw", 100))
    print("swiss:", [(r["username"], r["score"], r["tiebreaks"]) for r in shown["standings"]])
    check_swiss(shown, 7, 5)
    asyncio.run(check_results_are_the_games(server.url, shown))
    profile = server.get("/api/users/sw-1").json()  # rated: the games moved the ratings
    assert profile["ratings"]["realtime"]["games"] >= 4
    listed = server.get("/api/tournaments").json()
    assert tid in [t["tournament_id"] for t in listed["finished"]]


@pytest.mark.slow
def test_a_swiss_survives_a_restart_in_the_middle(tmp_path: Path) -> None:
    """The server is killed (SIGKILL) once round 2 is paired and started again on the same database:
    the bots reconnect, the event resumes and ends with every invariant."""
    server = Server(tmp_path).start()
    try:

        async def kill_and_restart(tid: str) -> None:
            async def round_two() -> bool:
                return len((await tournament(server.url, tid))["rounds"]) >= 2

            await until(round_two, 300)
            await asyncio.to_thread(server.kill)
            await asyncio.to_thread(server.start)

        _, shown = asyncio.run(play_swiss(server, "rs", 200, kill_and_restart))
        starts = [line for line in server.log().splitlines() if '"event":"started"' in line]
        assert len(starts) == 2  # one run before the kill, one after
        check_swiss(shown, 7, 5)
        asyncio.run(check_results_are_the_games(server.url, shown))
    finally:
        server.stop()


def arena_points(results: list[tuple[str, bool]]) -> int:
    """lichess's Arena points of one player's games in order: (``won``/``draw``/``lost``, berserked)."""
    total, streak = 0, 0
    for outcome, berserked in results:
        base = {"won": 2, "draw": 1, "lost": 0}[outcome]
        total += base * (2 if streak >= 2 else 1) + (1 if outcome == "won" and berserked else 0)
        streak = streak + 1 if outcome == "won" else 0
    return total


@pytest.mark.long  # a real minute and more; test_arena.py scores and pairs, the absent player's arena runs one
@pytest.mark.slow
def test_an_arena_of_six_bots_is_played_to_the_end(server: Server) -> None:
    async def scenario() -> tuple[dict[str, Any], float]:
        names = [f"ar-{i}" for i in range(6)]
        organiser = (await accounts(server.url, ["ar-org"]))[0]
        headers = await accounts(server.url, names)
        tid = await create(server.url, organiser, kind="arena", name="Arena", clock=CLOCK, minutes=1)
        async with client(server.url, headers=headers[0]) as first:  # one berserker
            assert (await first.post(f"/api/tournaments/{tid}/join")).status_code == 204
            berserk = await first.post(f"/api/tournaments/{tid}/berserk", json={"berserk": True})
            assert berserk.status_code == 204
        bots = [TournamentBot(server.url, h, "random", tid, 300 + i) for i, h in enumerate(headers)]
        running = [asyncio.create_task(bot.run()) for bot in bots]
        await start(server.url, organiser, tid, 6)
        async with asyncio.timeout(600):
            assert await asyncio.gather(*running) == [0] * 6
        shown = await tournament(server.url, tid)
        return shown, shown["ends_at"]

    shown, ends_at = asyncio.run(scenario())
    assert shown["status"] == "finished"
    boards = [board for batch in shown["rounds"] for board in batch]
    print(
        f"arena: {len(boards)} games in {len(shown['rounds'])} pairings;",
        [(r["username"], r["score"]) for r in shown["standings"]],
    )
    assert len(boards) >= 6
    history: dict[str, list[tuple[str, bool]]] = {}
    last: dict[str, str] = {}
    for board in boards:
        first, second = board["players"]
        assert last.get(first) != second and last.get(second) != first  # not the same opponent twice in a row
        last[first], last[second] = second, first
        result = board["result"]
        assert result in ("0", "1", "draw")
        for seat, name in enumerate((first, second)):
            outcome = "draw" if result == "draw" else "won" if result == str(seat) else "lost"
            history.setdefault(name, []).append((outcome, board["berserk"][seat]))
    assert any(board["berserk"][board["players"].index("ar-0")] for board in boards if "ar-0" in board["players"])
    for row in shown["standings"]:
        mine = history.get(row["username"], [])
        assert row["games"] == len(mine) and row["score"] == arena_points(mine)
    scores = [row["score"] for row in shown["standings"]]
    assert scores == sorted(scores, reverse=True)
    for batch, following in pairwise(shown["rounds"]):
        assert batch and following  # every pairing pass paired someone
    for index, board in enumerate(boards):  # no game started after the end; every game over and counted
        # A quick machine plays well over a hundred games in the minute: read them from several
        # addresses, 50 each, within the per-address read budget (100 at once).
        transport = httpx.HTTPTransport(verify=loopback.NO_CA, local_address=f"127.0.3.{1 + index // 50}")
        with httpx.Client(verify=loopback.NO_CA, transport=transport, timeout=10) as http:
            answer = http.get(f"{server.url}/api/games/{board['game_id']}")
        assert answer.status_code == 200, answer.text
        game = answer.json()
        assert game["result"] is not None
        created = datetime.strptime(game["created"], "%Y-%m-%dT%H:%M:%SZ").replace(tzinfo=UTC).timestamp()
        assert created <= ends_at
    assert shown["finished"] >= ends_at


@pytest.mark.slow
def test_the_creator_invites_an_ai_level_whose_games_the_server_plays(server: Server) -> None:
    """Two bots and the invited ``ai-easy`` play a three-round Swiss: each meets both others and
    sits out once; only the creator may invite, and only an AI level."""

    async def scenario() -> dict[str, Any]:
        organiser, *players = await accounts(server.url, ["iv-org", "iv-p1", "iv-p2"])
        tid = await create(server.url, organiser, kind="swiss", name="With the AI", clock=CLOCK, rounds=3)
        async with client(server.url, headers=organiser) as me, client(server.url, headers=players[0]) as them:
            refused = await them.post(f"/api/tournaments/{tid}/invite", json={"username": "ai-easy"})
            assert refused.status_code == 403 and refused.json()["error"] == "forbidden"
            person = await me.post(f"/api/tournaments/{tid}/invite", json={"username": "iv-p2"})
            assert person.status_code == 404 and person.json()["error"] == "not_found"
            invited = await me.post(f"/api/tournaments/{tid}/invite", json={"username": "ai-easy"})
            assert invited.status_code == 204, invited.text
        bots = [TournamentBot(server.url, h, "random", tid, 500 + i) for i, h in enumerate(players)]
        running = [asyncio.create_task(bot.run()) for bot in bots]
        await start(server.url, organiser, tid, 3)
        async with asyncio.timeout(600):
            assert await asyncio.gather(*running) == [0, 0]
        return await tournament(server.url, tid)

    shown = asyncio.run(scenario())
    check_swiss(shown, 3, 3)
    asyncio.run(check_results_are_the_games(server.url, shown))
    assert {row["username"] for row in shown["standings"]} == {"ai-easy", "iv-p1", "iv-p2"}


def test_an_ai_level_is_invited_once(server: Server) -> None:
    """Inviting a level that already plays in the event is refused ``already_invited`` (it was the
    creator's ``already_joined``, "you have already joined"), nothing changed; another level is
    still invited, and the creator's own joining twice stays ``already_joined``."""

    async def scenario() -> tuple[list[str], list[tuple[int, str]]]:
        (organiser,) = await accounts(server.url, ["io-org"])
        tid = await create(server.url, organiser, kind="swiss", name="Once", clock=CLOCK, rounds=2, join=True)
        async with client(server.url, headers=organiser) as me:
            answers = [
                await me.post(f"/api/tournaments/{tid}/invite", json={"username": name})
                for name in ("ai-easy", "ai-easy", "AI-EASY", "ai-medium")
            ]
            answers.append(await me.post(f"/api/tournaments/{tid}/join"))
        shown = await tournament(server.url, tid)
        codes = [(a.status_code, a.json()["error"] if a.content else "") for a in answers]
        return [p["username"] for p in shown["players"] if p["active"]], codes

    players, codes = asyncio.run(scenario())
    assert codes == [(204, ""), (409, "already_invited"), (409, "already_invited"), (204, ""), (409, "already_joined")]
    assert players == ["io-org", "ai-easy", "ai-medium"]


def test_a_swiss_never_pairs_two_ai_levels(server: Server) -> None:
    """One bot and the invited ``ai-easy`` and ``ai-medium``: each round pairs the person with a
    level and gives the other level the bye; once the person has met both, no round can be paired
    without the two levels meeting, so the event ends there (before: the third round was a game of
    the two levels, the server's compute spent on nobody)."""

    async def scenario() -> dict[str, Any]:
        organiser, person = await accounts(server.url, ["ai2-org", "ai2-p1"])
        tid = await create(server.url, organiser, kind="swiss", name="Two levels", clock=CLOCK, rounds=3)
        async with client(server.url, headers=organiser) as me:
            for level in ("ai-easy", "ai-medium"):
                invited = await me.post(f"/api/tournaments/{tid}/invite", json={"username": level})
                assert invited.status_code == 204, invited.text
        bot = TournamentBot(server.url, person, "random", tid, 700)
        running = asyncio.create_task(bot.run())
        await start(server.url, organiser, tid, 3)
        async with asyncio.timeout(600):
            assert await running == 0
        return await tournament(server.url, tid)

    shown = asyncio.run(scenario())
    levels = {"ai-easy", "ai-medium"}
    games_of_levels = [
        board["players"] for boards in shown["rounds"] for board in boards if set(board["players"]) == levels
    ]
    print(f"\nrounds played: {len(shown['rounds'])}; games between the two AI levels: {len(games_of_levels)}")
    assert shown["status"] == "finished" and games_of_levels == []
    assert len(shown["rounds"]) == 2


@pytest.mark.slow
def test_creating_and_joining_draw_on_the_address_budgets(tmp_path: Path) -> None:
    """Creating an event is a game to be (``games`` budget), joining one a seat (``joins``)."""
    server = Server(tmp_path, args=("--limit", "games_burst=1", "--limit", "joins_burst=1")).start()
    try:

        async def scenario() -> None:
            owner = (await accounts(server.url, ["bud-owner"]))[0]
            body = {"kind": "arena", "name": "Budget", "clock": CLOCK, "minutes": 5}
            tid = await create(server.url, owner, **body)
            async with client(server.url, headers=owner) as me:
                again = await me.post("/api/tournaments", json=body)
                assert again.status_code == 429 and again.json()["error"] == "rate_limited"
                assert (await me.post(f"/api/tournaments/{tid}/join")).status_code == 204
                refused = await me.post(f"/api/tournaments/{tid}/join")
                assert refused.status_code == 429 and refused.json()["error"] == "rate_limited"

        asyncio.run(scenario())
    finally:
        server.stop()


@pytest.mark.slow
def test_an_absent_arena_player_is_withdrawn_after_losing_on_time_without_a_move(tmp_path: Path) -> None:
    """A player who joins and never plays loses its first game on time and is not paired again (the
    clock waits 3 s for a first move here, not 30: the wait is not what this test checks)."""
    server = Server(tmp_path, args=("--limit", "clock_min_seconds=1", "--limit", "first_move_grace=3")).start()
    try:

        async def scenario() -> dict[str, Any]:
            organiser, away, *present = await accounts(server.url, ["ab-org", "ab-away", "ab-1", "ab-2"])
            tid = await create(
                server.url, organiser, kind="arena", name="Absent", clock={"initial": 3, "increment": 1}, minutes=5
            )
            async with client(server.url, headers=away) as http:
                assert (await http.post(f"/api/tournaments/{tid}/join")).status_code == 204
            bots = [
                asyncio.create_task(TournamentBot(server.url, h, "random", tid, 700 + i).run())
                for i, h in enumerate(present)
            ]
            await start(server.url, organiser, tid, 3)

            async def withdrawn() -> dict[str, Any] | None:
                shown = await tournament(server.url, tid)
                entry = next(p for p in shown["players"] if p["username"] == "ab-away")
                return None if entry["active"] else shown

            shown: dict[str, Any] = await until(withdrawn, 120)
            for bot in bots:
                bot.cancel()
            return shown

        shown = asyncio.run(scenario())
        games = [b for batch in shown["rounds"] for b in batch if "ab-away" in b["players"]]
        assert len(games) == 1
        seat = games[0]["players"].index("ab-away")
        assert games[0]["result"] == str(1 - seat)
        assert asyncio.run(game_result(server.url, games[0]["game_id"]))["reason"] == "timeout"
    finally:
        server.stop()


async def _answer(ws: Any, kind: str) -> dict[str, Any]:
    """Send the request ``kind``; the ``ack`` or ``error`` that answers it."""
    await ws.send(json.dumps({"type": kind, "id": kind}))
    async for text in ws:
        message: dict[str, Any] = json.loads(text)
        if message["type"] in ("ack", "error") and message.get("id") == kind:
            return message
    raise AssertionError(f"the connection closed before {kind} was answered")


def test_a_tournament_game_allows_no_take_back_and_no_rematch(server: Server) -> None:
    """Even in a casual tournament: a board's moves are the event's, and its next game is paired
    by the tournament (``tournament`` refusals, nothing changed)."""

    async def scenario() -> None:
        organiser, *players = await accounts(server.url, ["tb-org", "tb-one", "tb-two"])
        tid = await create(server.url, organiser, kind="swiss", name="No undo", clock=CLOCK, rounds=1, rated=False)
        for headers in players:
            async with client(server.url, headers=headers) as http:
                assert (await http.post(f"/api/tournaments/{tid}/join")).status_code == 204
        await start(server.url, organiser, tid, 2)

        async def my_game(headers: dict[str, str]) -> dict[str, Any] | None:
            async with client(server.url, headers=headers) as http:
                answer = await http.get(f"/api/tournaments/{tid}/me")
                mine: dict[str, Any] | None = answer.json() if answer.status_code == 200 else None
                return mine if mine and mine.get("game_id") else None

        mine = await until(lambda: my_game(players[0]))
        url = f"{ws_url(server.url)}/ws/{mine['game_id']}"
        async with websockets.connect(url, additional_headers=players[0]) as ws:
            await ws.send(json.dumps({"type": "hello", "seat": mine["seat"]}))
            sync = json.loads(await ws.recv())
            assert sync["type"] == "sync" and sync["tournament"] is True and sync["can_take_back"] is False
            assert (await _answer(ws, "takeback"))["code"] == "tournament"
            assert (await _answer(ws, "resign"))["type"] == "ack"
            assert (await _answer(ws, "rematch"))["code"] == "tournament"
        shown = await until(lambda: _finished(server.url, tid))
        assert [board["result"] for board in shown["rounds"][0]] == [str(1 - mine["seat"])]

    asyncio.run(scenario())


async def _finished(url: str, tid: str) -> dict[str, Any] | None:
    shown = await tournament(url, tid)
    return shown if shown["status"] == "finished" else None


async def _my_board(url: str, headers: dict[str, str], tid: str) -> dict[str, Any] | None:
    """The player's running game in the event (``/me``), or ``None`` while it has none."""
    async with client(url, headers=headers) as http:
        answer = await http.get(f"/api/tournaments/{tid}/me")
        assert answer.status_code == 200, answer.text
        mine: dict[str, Any] = answer.json()
        return mine if mine.get("game_id") else None


def test_a_swiss_round_waits_for_a_player_still_in_an_arena_game(server: Server) -> None:
    """A player's Arena game runs when a Swiss it joined starts: the Swiss pairs no round without
    it (two players: the round waits), and pairs it once that game has ended; the Arena pairs the
    player no more meanwhile (it is in a running Swiss). One clock at a time (issue 45)."""

    async def scenario() -> tuple[int, str | None]:
        player, arena_host, swiss_host = await accounts(server.url, ["sa-player", "sa-arena", "sa-swiss"])
        arena = await create(server.url, arena_host, kind="arena", name="First", clock=CLOCK, minutes=5, rated=False)
        swiss = await create(server.url, swiss_host, kind="swiss", name="Second", clock=CLOCK, rounds=1, rated=False)
        for tid, host in ((arena, arena_host), (swiss, swiss_host)):
            for headers in (player, host):
                async with client(server.url, headers=headers) as http:
                    assert (await http.post(f"/api/tournaments/{tid}/join")).status_code == 204
        await start(server.url, arena_host, arena, 2)
        in_arena = await until(lambda: _my_board(server.url, player, arena))
        await start(server.url, swiss_host, swiss, 2)
        shown = await tournament(server.url, swiss)  # the start paired what it could
        at_once = 1 + sum(1 for boards in shown["rounds"] for board in boards if None not in board["players"])
        async with websockets.connect(
            f"{ws_url(server.url)}/ws/{in_arena['game_id']}", additional_headers=player
        ) as ws:
            await ws.send(json.dumps({"type": "hello", "seat": in_arena["seat"]}))
            assert json.loads(await ws.recv())["type"] == "sync"
            assert (await _answer(ws, "resign"))["type"] == "ack"
        await until(lambda: _my_board(server.url, player, swiss))  # the round is paired once the game is over
        again = await _my_board(server.url, player, arena)
        return at_once, None if again is None else again["game_id"]

    at_once, arena_again = asyncio.run(scenario())
    print(f"\nfigure: games of one player running at once in an Arena and a Swiss: {at_once}")
    assert at_once == 1 and arena_again is None
