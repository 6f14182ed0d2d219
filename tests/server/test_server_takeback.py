"""Take-backs on the real server (issue 31): asked for in one's own turn before drawing, accepted
or declined by the other seat (an AI accepts at once), never in a rated game; stored as an entry of
the log of its own, so versions only grow, a restart rebuilds the game as played after it, and
the record and replay give that game."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_harness import Conn, Player, Server, connect, run

from kahuna.bench.lobby import client, new_account
from kahuna.rules import GameRecord


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = Server(tmp_path_factory.mktemp("takeback")).start()
    yield running
    running.stop()


async def _answer(conn: Conn, kind: str) -> dict[str, Any]:
    """Send a take-back request of ``kind``; the ``ack`` or ``error`` that answers it."""
    await conn.send(type=kind, id=kind)
    return await conn.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == kind)


async def _received(conn: Conn, kind: str, count: int) -> dict[str, Any]:
    """The ``count``-th message of type ``kind`` this connection got (reading on until it comes: a
    request's effect is sent before its ``ack``, so it may have been read while waiting for that)."""
    while True:
        seen = [m for m in map(json.loads, conn.texts) if m["type"] == kind]
        if len(seen) >= count:
            message: dict[str, Any] = seen[count - 1]
            return message
        await conn.recv()


def _a_build(player: Player) -> str:
    build: str = next(token for token in player.last["legal"] if ">" in token)
    return build


def _invited(server: Server) -> tuple[dict[str, Any], dict[str, Any]]:
    """A casual game between two people: the host (Black, to move first) and the invited friend."""
    host = server.create(opponent="human", seat="first", name="Host")
    friend = server.post(f"/api/join/{host['invite_url'].rsplit('/', 1)[1]}", {"name": "Friend"})
    assert friend.status_code == 200, friend.text
    return host, friend.json()


def test_a_card_play_taken_back_with_consent_survives_a_restart_and_leaves_the_record_as_played(
    tmp_path: Path,
) -> None:
    server = Server(tmp_path).start()
    try:
        host, friend = _invited(server)
        game_id = host["game_id"]

        async def scenario() -> tuple[int, dict[str, Any]]:
            black = await Player.join(server, game_id, host["token"])
            white = await Player.join(server, game_id, friend["token"])
            watcher = await connect(server, game_id)
            assert black.last["can_take_back"] is False  # nothing played this turn yet
            assert (await _answer(black.conn, "takeback"))["code"] == "nothing_to_take_back"
            hand = black.last["view"]["hand"]
            build = _a_build(black)
            await black.play(build)
            await white.reach(black.version)
            assert black.last["can_take_back"] is True and white.last["can_take_back"] is False
            assert (await _answer(white.conn, "takeback"))["code"] == "not_your_turn"
            assert (await _answer(watcher, "takeback"))["code"] == "forbidden"
            asked_at = black.version
            assert (await _answer(black.conn, "takeback"))["type"] == "ack"
            offered = await white.conn.until(lambda m: m["type"] == "takeback_offered")
            assert offered == {"type": "takeback_offered", "seat": 0, "version": asked_at}
            again = await connect(server, game_id, friend["token"], hello=False)  # White comes back: asked again
            await again.hello(asked_at)
            assert (await again.until(lambda m: m["type"] == "takeback_offered")) == offered
            await again.close()
            assert (await _answer(white.conn, "takeback_decline"))["type"] == "ack"
            declined = await black.conn.until(lambda m: m["type"] == "takeback_declined")
            assert declined == {"type": "takeback_declined", "seat": 1}
            assert (await _answer(white.conn, "takeback_decline"))["code"] == "no_takeback"
            assert (await _answer(black.conn, "takeback"))["type"] == "ack"  # asked again: accepted
            await white.conn.until(lambda m: m["type"] == "takeback_offered")
            assert (await _answer(white.conn, "takeback"))["type"] == "ack"
            for player in (black, white):
                back = await _received(player.conn, "sync", 2)  # the first answered its hello
                assert back["version"] == asked_at + 1  # the log grew: versions only go up
                assert back["view"]["history"] == []  # the game as played: the build is gone
                player.last = back
            assert black.last["view"]["hand"] == hand  # the card is back in the hand it came from
            seen = await _received(watcher, "sync", 2)
            assert seen["version"] == asked_at + 1 and seen["view"]["bridges"] == black.last["view"]["bridges"]
            stale = await _answer(black.conn, "takeback")
            assert stale["code"] == "nothing_to_take_back"
            await black.play(build)  # played again at the new version, then the turn goes on
            assert black.version == asked_at + 2
            await black.play("d?")
            assert (await _answer(black.conn, "takeback"))["code"] == "not_your_turn"  # the turn ended
            return black.version, black.last["view"]

        version, view = run(scenario())
        server.kill()  # rebuilt from the stored log, take-back included
        server.start()
        summary = server.get(f"/api/games/{game_id}").json()
        assert summary["version"] == version

        async def after_restart() -> None:
            black = await Player.join(server, game_id, host["token"])
            assert black.last["version"] == version
            assert black.last["view"]["bridges"] == view["bridges"] and black.last["view"]["hand"] == view["hand"]
            white = await Player.join(server, game_id, friend["token"])
            await white.play(_a_build(white))  # play goes on at the next version
            assert white.version == version + 1
            await white.conn.send(type="resign", id="r")
            await white.conn.until(lambda m: m["type"] == "sync" and m["status"] == "over")

        run(after_restart())
        record = server.get(f"/api/games/{game_id}/record").json()
        final = GameRecord.from_json(record).replay()  # the record is the game as played
        assert len(final.history) == version + 1 - 2
        steps = json.loads(server.get(f"/api/games/{game_id}/replay").content)["steps"]
        assert [step["action"] for step in steps[1:]] == record["actions"]
    finally:
        server.stop()


def test_the_ai_accepts_a_take_back_at_once(server: Server) -> None:
    created = server.create(opponent="ai", level="easy", seat="first")

    async def scenario() -> None:
        me = await Player.join(server, created["game_id"], created["token"])
        before = me.last["view"]
        await me.play(_a_build(me))
        assert (await _answer(me.conn, "takeback"))["type"] == "ack"
        back = await _received(me.conn, "sync", 2)
        assert back["view"]["hand"] == before["hand"] and back["view"]["bridges"] == before["bridges"]
        assert back["version"] == 2

    run(scenario())


def test_a_rated_game_allows_no_take_back(server: Server) -> None:
    async def seats() -> list[dict[str, Any]]:
        headers = [await new_account(server.url, name) for name in ("Rated-A", "Rated-B")]
        async with client(server.url, headers=headers[0]) as a, client(server.url, headers=headers[1]) as b:
            seek = (await a.post("/api/seeks", json={"clock": {"initial": 300, "increment": 3}, "rated": True})).json()
            taken = (await b.post(f"/api/seeks/{seek['seek_id']}/accept")).json()
            own = (await a.get(f"/api/seeks/{seek['seek_id']}", headers={"X-Seek-Token": seek["token"]})).json()
            return [own, taken]

    async def scenario() -> None:
        pair = await seats()
        players = [await Player.join(server, s["game_id"], s["token"]) for s in pair]
        first = next(p for p in players if p.last["seat"] == 0)
        await first.play(_a_build(first))
        assert first.last["can_take_back"] is False
        assert (await _answer(first.conn, "takeback"))["code"] == "rated"

    run(scenario())
