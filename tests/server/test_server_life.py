"""A game's whole life on the real server: clocks and timeouts (also across a restart), resign,
abort, rematch and chat, through the WebSocket; every ending replays from the stored record."""

from __future__ import annotations

import asyncio
import calendar
import contextlib
import json
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_harness import Conn, Player, Server, connect, run, wait_for

from kahuna.rules import GameRecord


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server that offers clocks from one second on (the default smallest is a minute)."""
    args = ("--limit", "clock_min_seconds=1", "--limit", "chat_burst=4")
    running = Server(tmp_path_factory.mktemp("quick"), args=args).start()
    yield running
    running.stop()


def _final_record(server: Server, game_id: str) -> dict[str, Any]:
    response = server.get(f"/api/games/{game_id}/record")
    assert response.status_code == 200, response.text
    record: dict[str, Any] = response.json()
    return record


def _replays_to(record: dict[str, Any], result: dict[str, Any]) -> None:
    final = GameRecord.from_json(record).replay()
    assert final.to_json()["result"] == result


def _received(conn: Conn, kind: str) -> list[dict[str, Any]]:
    """The messages of type ``kind`` this connection received so far (requests are answered after
    what they caused has been sent to everybody, so those may arrive before their ``ack``)."""
    return [m for m in map(json.loads, conn.texts) if m["type"] == kind]


async def _next(conn: Conn, kind: str, seen: int) -> dict[str, Any]:
    """The first message of type ``kind`` after the first ``seen`` of them."""
    while len(_received(conn, kind)) <= seen:
        await conn.recv()
    return _received(conn, kind)[seen]


async def _request(conn: Conn, kind: str, **fields: Any) -> dict[str, Any]:
    """Send a resign/abort/rematch/chat request; the ``ack`` or ``error`` that answers it."""
    await conn.send(type=kind, id=kind, **fields)
    return await conn.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == kind)


def test_a_player_who_stops_moving_loses_on_time(quick: Server) -> None:
    """Black, on a 2 s clock, does nothing: the server ends the game by timeout, not before Black's
    deadline (2 s after the clock started, during the creation), and dates the end at it."""
    before = time.time()
    created = quick.create(opponent="hotseat", seat="first", clock={"initial": 2, "increment": 1})
    after = time.time()
    game_id, tokens = created["game_id"], created["tokens"]

    async def scenario() -> None:
        black = await Player.join(quick, game_id, tokens[0])
        assert black.last["clock"]["running"] == 0 and black.last["clock"]["control"] == {"initial": 2, "increment": 1}
        ended = await black.conn.until(lambda m: m["type"] == "sync" and m["status"] == "over", timeout=10)
        assert time.time() >= before + 2, "the game ended before Black's deadline"
        assert ended["view"]["result"] == {"winner": 1, "reason": "timeout"}
        assert ended["termination"] == {"reason": "timeout", "seat": 0}
        assert ended["clock"]["running"] is None and ended["clock"]["remaining"][0] == 0
        assert ended["legal"] == []

    run(scenario())
    record = _final_record(quick, game_id)
    assert record["termination"] == {"reason": "timeout", "seat": 0}
    dated = calendar.timegm(time.strptime(record["meta"]["ended"], "%Y-%m-%dT%H:%M:%SZ"))
    assert int(before + 2) <= dated <= after + 2
    _replays_to(record, {"winner": 1, "reason": "timeout"})


def test_the_increment_is_added_at_the_end_of_each_turn(quick: Server) -> None:
    created = quick.create(opponent="hotseat", seat="first", clock={"initial": 30, "increment": 5})
    game_id, tokens = created["game_id"], created["tokens"]

    async def scenario() -> None:
        black = await Player.join(quick, game_id, tokens[0])
        build = next(t for t in black.last["legal"] if ">" in t)
        sent = time.monotonic()
        await black.play(build)  # a card play: the turn goes on, so does Black's clock
        assert black.last["clock"]["running"] == 0 and black.last["clock"]["remaining"][0] <= 30
        left = black.last["clock"]["remaining"][0]  # at the card play
        await black.play("d?")  # the turn ends: +5 s, White's clock runs
        between = time.monotonic() - sent  # the server's time between the two actions is at most this
        clock = black.last["clock"]
        assert clock["running"] == 1 and clock["remaining"][1] <= 30
        # What the server decided: the time since the card play taken off, then the increment added
        # (however long the loaded machine took; a millisecond for the figures' rounding).
        assert left + 5 - between - 0.001 <= clock["remaining"][0] <= left + 5 + 0.001

    run(scenario())


def _stored_deadlines(db: Path) -> dict[str, float]:
    """Each timed game's deadline as stored (``since`` plus the running seat's time left)."""
    with contextlib.closing(sqlite3.connect(db)) as conn:
        rows = conn.execute(
            "SELECT game_id, since + CASE running WHEN 0 THEN remaining0 ELSE remaining1 END FROM clocks"
            " WHERE running IS NOT NULL"
        ).fetchall()
    return {game_id: deadline for game_id, deadline in rows}


def test_games_whose_deadline_passed_while_the_server_was_down_end_at_start(tmp_path: Path) -> None:
    """Two timed games, nobody connected; the server is killed, and while it is down their stored
    deadlines are moved into the past (as if it had been down for two minutes). At start both end
    by timeout, each exactly once and dated at its deadline, not when the server noticed."""
    server = Server(tmp_path).start()
    try:
        games = [server.create(opponent="hotseat", clock={"initial": seconds})["game_id"] for seconds in (60, 90)]
        db = tmp_path / "kahuna.db"
        wait_for(lambda: _stored_deadlines(db).keys() >= set(games), "both clocks to be stored")
        server.kill()  # SIGKILL: nothing written at shutdown
        with contextlib.closing(sqlite3.connect(db)) as conn, conn:
            conn.execute("UPDATE clocks SET since = since - 120")
        deadlines = _stored_deadlines(db)
        assert max(deadlines.values()) < time.time()
        server.start()
        for game_id in games:
            summary = server.get(f"/api/games/{game_id}").json()
            assert summary["status"] == "over" and summary["result"] == {"winner": 1, "reason": "timeout"}
            record = _final_record(server, game_id)
            assert record["termination"] == {"reason": "timeout", "seat": 0}
            assert record["meta"]["ended"] == time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(int(deadlines[game_id])))
            _replays_to(record, {"winner": 1, "reason": "timeout"})
        assert server.log().count('"event":"game_over"') == 2  # decided exactly once each
    finally:
        server.stop()


def test_resign_abort_and_their_refusals(quick: Server) -> None:
    aborted = quick.create(opponent="hotseat", seat="first")
    resigned = quick.create(opponent="hotseat", seat="first")

    async def scenario() -> None:
        black = await Player.join(quick, aborted["game_id"], aborted["tokens"][0])
        watcher = await connect(quick, aborted["game_id"])
        assert (await _request(watcher, "abort"))["code"] == "forbidden"
        assert (await _request(black.conn, "abort"))["type"] == "ack"
        synced = await _next(black.conn, "sync", 1)
        assert synced["view"]["result"] == {"winner": None, "reason": "aborted"}
        assert (await _request(black.conn, "resign"))["code"] == "game_over"

        white = await Player.join(quick, resigned["game_id"], resigned["tokens"][1])
        black = await Player.join(quick, resigned["game_id"], resigned["tokens"][0])
        await black.play("d?")  # Black finished a turn: too late to abort
        await white.reach(1)
        too_late = await _request(white.conn, "abort")
        assert too_late["code"] == "too_late"
        assert (await _request(white.conn, "rematch"))["code"] == "not_over"
        assert (await _request(white.conn, "resign"))["type"] == "ack"  # on White's own turn
        ended = await black.conn.until(lambda m: m["type"] == "sync")
        assert ended["view"]["result"] == {"winner": 0, "reason": "resign"} and ended["legal"] == []

    run(scenario())
    _replays_to(_final_record(quick, aborted["game_id"]), {"winner": None, "reason": "aborted"})
    _replays_to(_final_record(quick, resigned["game_id"]), {"winner": 0, "reason": "resign"})


def test_a_rematch_swaps_the_seats_and_links_both_games(quick: Server) -> None:
    old = quick.create(opponent="hotseat", seat="first", variant=["replace_on_remove"], clock={"initial": 120})

    async def scenario() -> str:
        black = await Player.join(quick, old["game_id"], old["tokens"][0])
        white = await Player.join(quick, old["game_id"], old["tokens"][1])
        watcher = await connect(quick, old["game_id"])
        assert (await _request(black.conn, "resign"))["type"] == "ack"
        assert (await _request(black.conn, "rematch"))["type"] == "ack"
        offered = await _next(white.conn, "rematch_offered", 0)
        assert offered == {"type": "rematch_offered", "seat": 0}
        assert (await _request(white.conn, "rematch"))["type"] == "ack"
        links = [await _next(p.conn, "rematch", 0) for p in (black, white)]
        seen = await _next(watcher, "rematch", 0)
        new_id = links[0]["game_id"]
        assert links[1]["game_id"] == new_id and seen == {"type": "rematch", "game_id": new_id,
                                                           "spectator_url": f"/watch/{new_id}"}  # fmt: skip
        assert [link["seat"] for link in links] == [1, 0]  # Black of the old game plays White now
        arrived = []
        for link in links:
            token = link["seat_url"].split("#", 1)[1]
            again = await Player.join(quick, new_id, token)
            arrived.append(again)
            assert again.last["seat"] == link["seat"] and again.last["rematch_of"] == old["game_id"]
            assert again.last["view"]["variant"]["replace_on_remove"] is True
            assert again.last["clock"]["control"] == {"initial": 120, "increment": 0}
        first_clock = arrived[0].last["clock"]  # only one player there: the clock waits for the other
        assert first_clock["running"] is None and 0 < first_clock["starts_in"] <= 30
        for player in arrived:  # the second one is there: the clock of the seat to move runs
            started = await player.conn.until(lambda m: m["type"] == "clock" and m["clock"]["running"] is not None)
            assert started["clock"]["running"] == 0 and "starts_in" not in started["clock"]
        back = await Player.join(quick, old["game_id"], old["tokens"][0])  # coming back later: the link again
        link = await _next(back.conn, "rematch", 0)
        assert link["seat_url"] == links[0]["seat_url"]
        return str(new_id)

    new_id = run(scenario())
    assert quick.get(f"/api/games/{old['game_id']}").json()["rematch"] == new_id
    assert quick.get(f"/api/games/{new_id}").json()["rematch_of"] == old["game_id"]


def test_a_clock_waits_for_the_players_at_most_its_grace_and_hot_seat_never(tmp_path: Path) -> None:
    server = Server(tmp_path, args=("--limit", "clock_min_seconds=1", "--limit", "first_move_grace=1")).start()
    try:
        invited = server.create(opponent="human", seat="first", clock={"initial": 60})
        before_join = time.time()
        joined = server.post(f"/api/join/{invited['invite_url'].rsplit('/', 1)[1]}", {"name": "Friend"})
        assert joined.status_code == 200, joined.text
        together = server.create(opponent="hotseat", seat="first", clock={"initial": 60})

        async def scenario() -> None:
            alone = await Player.join(server, invited["game_id"], invited["token"])  # the friend never comes
            assert alone.last["clock"]["running"] is None and alone.last["clock"]["starts_in"] <= 1
            started = await alone.conn.until(lambda m: m["type"] == "clock" and m["clock"]["running"] == 0)
            assert time.time() >= before_join + 1  # not before the grace ended
            assert started["clock"]["remaining"][0] <= 60
            hotseat = await Player.join(server, together["game_id"], together["tokens"][0])
            assert hotseat.last["clock"]["running"] == 0 and "starts_in" not in hotseat.last["clock"]

        run(scenario())
        assert '"event":"clock_started"' in server.log()
    finally:
        server.stop()


def test_a_rematch_against_the_ai_starts_at_once(quick: Server) -> None:
    old = quick.create(opponent="ai", level="easy", seat="first")

    async def scenario() -> None:
        me = await Player.join(quick, old["game_id"], old["token"])
        assert (await _request(me.conn, "resign"))["type"] == "ack"
        assert (await _request(me.conn, "rematch"))["type"] == "ack"
        link = await _next(me.conn, "rematch", 0)
        assert link["seat"] == 1
        summary = quick.get(f"/api/games/{link['game_id']}").json()
        assert summary["kinds"] == ["ai:easy", "human"] and summary["status"] == "playing"

    run(scenario())


@pytest.mark.parametrize("unlisted", [False, True], ids=["listed", "unlisted"])
def test_a_rematch_is_listed_as_its_game_was(quick: Server, unlisted: bool) -> None:
    old = quick.create(opponent="ai", level="easy", seat="first", unlisted=unlisted)

    async def scenario() -> str:
        me = await Player.join(quick, old["game_id"], old["token"])
        assert (await _request(me.conn, "resign"))["type"] == "ack"
        assert (await _request(me.conn, "rematch"))["type"] == "ack"
        return str((await _next(me.conn, "rematch", 0))["game_id"])

    rematch = run(scenario())
    assert quick.get(f"/api/games/{rematch}").json()["status"] == "playing"
    listed = {game["game_id"] for game in quick.get("/api/games/live?limit=50").json()["games"]}
    assert (rematch in listed) is not unlisted  # the newest casual game: first after any rated one


def test_chat_rooms_limits_and_history(quick: Server) -> None:
    created = quick.create(opponent="hotseat", seat="first", name="Ann")
    game_id, tokens = created["game_id"], created["tokens"]

    async def scenario() -> None:
        black = await Player.join(quick, game_id, tokens[0])
        white = await Player.join(quick, game_id, tokens[1])
        watcher = await connect(quick, game_id)
        other_watcher = await connect(quick, game_id)
        assert (await _request(black.conn, "chat", text="  good luck <b>!</b> ")).get("type") == "ack"
        line = await _next(white.conn, "chat", 0)
        assert line["room"] == "players" and line["seat"] == 0 and line["text"] == "good luck <b>!</b>"
        assert line["line_id"] == 0
        assert (await _request(watcher, "chat", text="nice bridge")).get("type") == "ack"
        heard = await _next(other_watcher, "chat", 0)
        assert heard["room"] == "spectators" and heard["seat"] is None and heard["line_id"] == 1
        for bad, words in (("x" * 301, "at most 300"), ("a\u202eb", "invisible formatting"), ("   ", "visible")):
            refused = await _request(black.conn, "chat", text=bad)
            assert refused["code"] == "invalid" and words in refused["message"]
        codes = [(await _request(white.conn, "chat", text=f"line {i}")).get("code") for i in range(6)]
        assert "rate_limited" in codes
        again = await Player.join(quick, game_id, tokens[0])
        assert [c["text"] for c in again.last["chat"]][:1] == ["good luck <b>!</b>"]
        assert again.last["chat"][0]["line_id"] == 0  # sync's lines carry their ids too
        assert all(c["room"] == "players" for c in again.last["chat"])  # not the spectators' room
        spectator = await Player.join(quick, game_id)
        assert [(c["line_id"], c["text"]) for c in spectator.last["chat"]] == [(1, "nice bridge")]
        await asyncio.sleep(0)
        # Players never receive the spectators' room during the game.
        assert not any('"spectators"' in text for text in black.conn.texts)

    run(scenario())


@pytest.mark.parametrize(
    "clock",
    [{"initial": 300, "increment": -1}, {"days": 10000}, {"days": 0}, {"minutes": 5}, {"initial": 0},
     {"initial": 300, "days": 2}, [300, 3], "5+3", {"initial": "300"}],
)  # fmt: skip
def test_bad_clocks_are_refused_and_create_nothing(server: Server, clock: object) -> None:
    created_before = server.log().count('"event":"game_created"')
    response = server.post("/api/games", {"opponent": "hotseat", "clock": clock})
    assert response.status_code == 422, response.text
    assert "clock" in response.text
    assert server.log().count('"event":"game_created"') == created_before


def test_the_timeout_bench_reports_how_late_games_end() -> None:
    """``kahuna bench timeouts`` plays its games to their timeout and reports how late they ended
    (a figure of the machine and its load, which this test does not bound)."""
    done = subprocess.run(
        [sys.executable, "-m", "kahuna", "bench", "timeouts", "--games", "3", "--seconds", "1", "--json"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    figures = json.loads(done.stdout.splitlines()[-1])
    assert figures["games"] == 3
    assert figures["late_ms_min"] <= figures["late_ms_median"] <= figures["late_ms_p95"] <= figures["late_ms_max"]
