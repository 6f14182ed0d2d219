"""A player whose opponent has left a real-time game (issue 51, point 3): after
``left_claim_seconds`` without a connection on the opponent's seat, ``claim_victory`` ends the game
won (``left``) and ``claim_draw`` drawn (``left-draw``), through the one end path (the record
replays to the same result); before the grace, with the opponent back, by a spectator, in an
untimed game or before the clock started, the claim is refused with its code."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_harness import Conn, Player, Server, connect, run

from kahuna.rules import GameRecord

GRACE = 2.0


@pytest.fixture(scope="module")
def leaving(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    args = ("--limit", f"left_claim_seconds={GRACE}")
    running = Server(tmp_path_factory.mktemp("leaving"), args=args).start()
    yield running
    running.stop()


def _two_players(server: Server, clock: dict[str, int] | None = None) -> tuple[str, str, str]:
    """A game against a friend by link, Ann in the first seat: its id, Ann's token and Bob's."""
    body: dict[str, Any] = {"opponent": "human", "seat": "first", "name": "Ann"}
    if clock is not None:
        body["clock"] = clock
    created = server.create(**body)
    joined = server.post(created["invite_url"].replace("/join/", "/api/join/"), {"name": "Bob"})
    assert joined.status_code == 200, joined.text
    return created["game_id"], created["token"], joined.json()["token"]


async def _claim(conn: Conn, kind: str) -> dict[str, Any]:
    await conn.send(type=kind, id=kind)
    return await conn.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == kind)


async def _gone(conn: Conn, seat: int) -> dict[str, Any]:
    """The presence message that says ``seat`` has no connection."""
    return await conn.until(lambda m: m["type"] == "presence" and not m["online"][seat])


def _replays_to(server: Server, game_id: str, result: dict[str, Any], termination: dict[str, Any]) -> None:
    record = server.get(f"/api/games/{game_id}/record").json()
    assert record["termination"] == termination
    assert GameRecord.from_json(record).replay().to_json()["result"] == result


@pytest.mark.parametrize(("kind", "result"), [("claim_victory", "left"), ("claim_draw", "left-draw")])
def test_a_claim_is_refused_before_the_grace_and_while_the_opponent_is_back_then_accepted(
    leaving: Server, kind: str, result: str
) -> None:
    game_id, ann_token, bob_token = _two_players(leaving, {"initial": 300, "increment": 0})

    async def scenario() -> None:
        ann = await Player.join(leaving, game_id, ann_token)
        bob = await Player.join(leaving, game_id, bob_token)
        await ann.conn.until(lambda m: m["type"] == "presence" and m["online"] == [True, True])
        watcher = await connect(leaving, game_id)
        refused = await _claim(watcher, kind)
        assert refused["code"] == "forbidden"
        assert (await _claim(ann.conn, kind))["code"] == "opponent_here"
        await bob.conn.close()
        gone = await _gone(ann.conn, 1)
        assert gone["away"][0] is None and gone["away"][1] is not None and gone["claim_after"] == GRACE
        early = await _claim(ann.conn, kind)
        assert early["code"] == "too_soon" and 0 < early["retry_after"] <= GRACE
        # Bob comes back: the claim is refused again, and his leaving starts the grace anew.
        bob = await Player.join(leaving, game_id, bob_token)
        await ann.conn.until(lambda m: m["type"] == "presence" and m["online"] == [True, True])
        assert (await _claim(ann.conn, kind))["code"] == "opponent_here"
        await bob.conn.close()
        await _gone(ann.conn, 1)
        early = await _claim(ann.conn, kind)
        assert early["code"] == "too_soon"
        await asyncio.sleep(early["retry_after"])  # the server's own figure of the grace left
        accepted = await _claim(ann.conn, kind)
        assert accepted["type"] == "ack", accepted
        # the end is sent to everybody before the request is answered: it came before the ack
        ended = next(m for m in map(json.loads, ann.conn.texts) if m["type"] == "sync" and m["status"] == "over")
        winner = 0 if result == "left" else None
        assert ended["view"]["result"] == {"winner": winner, "reason": result}
        assert ended["termination"] == {"reason": result, "seat": 1}
        assert (await _claim(ann.conn, kind))["code"] == "game_over"

    run(scenario())
    winner = 0 if result == "left" else None
    _replays_to(leaving, game_id, {"winner": winner, "reason": result}, {"reason": result, "seat": 1})


def test_no_claim_in_an_untimed_game_nor_before_the_clock_runs(leaving: Server) -> None:
    untimed, ann_token, bob_token = _two_players(leaving)
    waiting, wait_token, _ = _two_players(leaving, {"initial": 300, "increment": 0})

    async def scenario() -> None:
        ann = await Player.join(leaving, untimed, ann_token)
        bob = await Player.join(leaving, untimed, bob_token)
        await bob.conn.close()
        await _gone(ann.conn, 1)
        assert (await _claim(ann.conn, "claim_victory"))["code"] == "not_realtime"
        alone = await Player.join(leaving, waiting, wait_token)  # Bob never came: the clock waits
        assert alone.last["clock"]["running"] is None
        assert (await _claim(alone.conn, "claim_draw"))["code"] == "not_started"

    run(scenario())


def test_the_grace_is_a_limit(tmp_path: Path) -> None:
    """``--limit left_claim_seconds`` is read like every limit (the default is 30 s, lichess's)."""
    from kahuna.server.common.config import Limits

    assert Limits().left_claim_seconds == 30.0
