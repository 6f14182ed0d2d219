"""Two real ``kahuna serve`` processes on one PostgreSQL database and one Redis.

A game whose seats are connected to different instances is played live to the end; the same
version acted on through both instances at once is stored once; a deadline both instances know
of is fired once.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import loopback
import pytest
from scale_harness import (
    PG_HOST,
    PG_PORT,
    REDIS_HOST,
    REDIS_PORT,
    create_database,
    drop_database,
    pg_url,
    redis_url,
    require_service,
    start_instances,
)
from server_harness import Player, Server, play_random, run
from sqlalchemy import create_engine, func, select

from kahuna.rules import GameRecord
from kahuna.server.db import schema, store

__all__ = ["pg_url", "redis_url"]

pytestmark = [pytest.mark.pg, pytest.mark.redis]

Pair = tuple[Server, Server, str]
"""Two instances and the URL of their database."""


def _start_pair(tmp: Path, db_url: str, broker_url: str) -> list[Server]:
    # The per-address budgets live in the shared Redis (kahuna:limit:*), where other test runs on
    # this machine draw from them too: wide enough here that no run can spend another's.
    budgets = ("games_burst=100000", "joins_burst=100000", "reads_burst=100000", "clock_min_seconds=1")
    return start_instances(tmp, db_url, ("--broker", broker_url, *(a for b in budgets for a in ("--limit", b))))


@pytest.fixture
def pair(tmp_path: Path, pg_url: str, redis_url: str) -> Iterator[Pair]:
    """Two instances sharing a fresh database and Redis, for a test that stops or kills one."""
    servers = _start_pair(tmp_path, pg_url, redis_url)
    yield servers[0], servers[1], pg_url
    for server in servers:
        server.stop()


@pytest.fixture(scope="module")
def shared_pair(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Pair]:
    """Two instances for the tests that leave both running (each test makes its own games)."""
    require_service("PostgreSQL", PG_HOST, PG_PORT)
    require_service("Redis", REDIS_HOST, REDIS_PORT)
    db_url = create_database()
    try:
        servers = _start_pair(tmp_path_factory.mktemp("pair"), db_url, f"redis://{REDIS_HOST}:{REDIS_PORT}/0")
        yield servers[0], servers[1], db_url
        for server in servers:
            server.stop()
    finally:
        drop_database(db_url)


def _count_actions(url: str, game_id: str) -> int:
    engine = create_engine(store.database_url(url))
    with engine.connect() as conn:
        count = conn.execute(select(func.count()).where(schema.actions.c.game_id == game_id)).scalar()
    engine.dispose()
    return int(count or 0)


def test_seats_on_different_instances_play_a_game_to_the_end(pair: Pair) -> None:
    a, b, url = pair
    game = a.create(opponent="hotseat", seat="first", name="Ana")
    game_id = game["game_id"]

    async def scenario() -> None:
        black = await Player.join(a, game_id, game["tokens"][0])
        white = await Player.join(b, game_id, game["tokens"][1])
        watcher = await Player.join(b, game_id)
        # Presence crosses instances: Black (on a) learns that White is connected (to b).
        presence = await black.conn.until(lambda m: m["type"] == "presence" and m["online"] == [True, True])
        assert presence["online"] == [True, True]
        await play_random({0: black, 1: white}, [watcher], random.Random(11), None)
        assert black.over and white.over and watcher.over
        assert black.last["view"]["result"] == white.last["view"]["result"] == watcher.last["view"]["result"]
        # A chat line from b reaches the players' room on a.
        await white.conn.send(type="chat", text="gg", id="c")
        line = await black.conn.until(lambda m: m["type"] == "chat")
        assert line["text"] == "gg" and line["seat"] == 1
        # A rematch offered on a and accepted on b: both seats get their links to the new game.
        await black.conn.send(type="rematch", id="r0")
        offered = await white.conn.until(lambda m: m["type"] == "rematch_offered")
        assert offered["seat"] == 0
        await white.conn.send(type="rematch", id="r1")
        links = [await p.conn.until(lambda m: m["type"] == "rematch") for p in (black, white)]
        assert links[0]["game_id"] == links[1]["game_id"] and [link["seat"] for link in links] == [1, 0]
        for server, link in zip((b, a), links, strict=True):  # each new token is its seat, anywhere
            token = link["seat_url"].rsplit("#", 1)[1]
            seat = await Player.join(server, link["game_id"], token)
            assert seat.last["seat"] == link["seat"]
        # b stops: its connections are gone, and a's players learn that White is offline.
        await asyncio.to_thread(b.stop)
        gone = await black.conn.until(lambda m: m["type"] == "presence" and m["online"] == [True, False])
        assert gone["online"] == [True, False]

    run(scenario())
    record = GameRecord.from_json(a.get(f"/api/games/{game_id}/record").json())
    assert record.replay().is_over
    assert _count_actions(url, game_id) == len(record.actions)
    assert a.get(f"/api/games/{game_id}").json()["version"] == len(record.actions)


def test_one_version_acted_on_through_both_instances_is_stored_once(shared_pair: Pair) -> None:
    a, b, url = shared_pair
    game = a.create(opponent="hotseat", seat="first")
    game_id = game["game_id"]
    outcomes: list[tuple[str, str]] = []

    async def scenario() -> None:
        on_a = {s: await Player.join(a, game_id, game["tokens"][s]) for s in (0, 1)}
        on_b = {s: await Player.join(b, game_id, game["tokens"][s]) for s in (0, 1)}
        rng = random.Random(5)
        for n in range(20):
            seat = on_a[0].last["view"]["to_move"]
            first, second = on_a[seat], on_b[seat]
            await second.reach(first.version)
            version = first.version
            legal = first.last["legal"]
            # Both instances get an action for the same version at the same moment.
            await asyncio.gather(
                first.conn.send(type="action", action=rng.choice(legal), version=version, id=f"a{n}"),
                second.conn.send(type="action", action=rng.choice(legal), version=version, id=f"b{n}"),
            )
            replies = await asyncio.gather(_reply_and_update(first, version), _reply_and_update(second, version))
            kinds = sorted(r["type"] for r in replies)
            assert kinds == ["ack", "error"], replies
            error = next(r for r in replies if r["type"] == "error")
            assert error["code"] in ("stale_version", "not_your_turn"), error
            outcomes.append((replies[0]["type"], replies[1]["type"]))
            for player in (on_a[1 - seat], on_b[1 - seat]):
                await player.reach(version + 1)
            assert len({p.version for p in (*on_a.values(), *on_b.values())}) == 1
            if on_a[0].over:
                break

    run(scenario())
    version = a.get(f"/api/games/{game_id}").json()["version"]
    assert version == len(outcomes)
    assert _count_actions(url, game_id) == len(outcomes)
    assert b.get(f"/api/games/{game_id}").json()["version"] == version
    # Both instances won some races: the test did race them.
    assert {winner for winner, _ in outcomes} == {"ack", "error"}


async def _reply_and_update(player: Player, version: int) -> dict[str, Any]:
    """The answer to the action just sent, once the connection also has the game past ``version``
    (the update may come before or after the answer)."""
    reply = None
    while reply is None or player.version <= version:
        message = await player.conn.recv()
        if message["type"] in ("ack", "error"):
            reply = message
        elif message["type"] in ("update", "sync"):
            player.last = message
    return reply


def test_a_deadline_known_to_both_instances_fires_once(shared_pair: Pair) -> None:
    a, b, url = shared_pair
    game = a.create(opponent="hotseat", seat="first", clock={"initial": 2, "increment": 0})
    game_id = game["game_id"]

    async def scenario() -> None:
        on_a = await Player.join(a, game_id, game["tokens"][0])
        on_b = await Player.join(b, game_id, game["tokens"][1])
        for player in (on_a, on_b):
            ended = await player.conn.until(lambda m: m["type"] == "sync" and m["termination"] is not None, 10)
            assert ended["termination"] == {"reason": "timeout", "seat": 0}

    run(scenario())
    time.sleep(0.5)
    fired = [
        line
        for server in (a, b)
        for line in server.log().splitlines()
        if '"game_over"' in line and json.loads(line).get("game_id") == game_id
    ]
    assert len(fired) == 1, fired
    engine = create_engine(store.database_url(url))
    with engine.connect() as conn:
        status, result = conn.execute(
            select(schema.games.c.status, schema.games.c.result).where(schema.games.c.id == game_id)
        ).one()
    engine.dispose()
    assert status == "over" and json.loads(result)["termination"] == {"reason": "timeout", "seat": 0}


def test_a_deadline_fires_on_the_other_instance_when_its_own_is_killed(pair: Pair) -> None:
    a, b, url = pair
    game = a.create(opponent="hotseat", seat="first", clock={"initial": 3, "increment": 0})
    game_id = game["game_id"]
    a.kill()  # b never loaded the game: it learns the deadline from the database
    engine = create_engine(store.database_url(url))
    try:
        deadline = time.monotonic() + 15
        status = "playing"
        while status != "over" and time.monotonic() < deadline:
            time.sleep(0.2)
            with engine.connect() as conn:
                status = conn.execute(select(schema.games.c.status).where(schema.games.c.id == game_id)).scalar_one()
        with engine.connect() as conn:
            result = conn.execute(select(schema.games.c.result).where(schema.games.c.id == game_id)).scalar_one()
    finally:
        engine.dispose()
    assert status == "over" and json.loads(result)["termination"] == {"reason": "timeout", "seat": 0}
    assert any('"game_over"' in line and game_id in line for line in b.log().splitlines())


async def _redeem(server: Server, invite: str, name: str) -> int:
    async with httpx.AsyncClient(verify=loopback.NO_CA, base_url=server.url, timeout=10) as client:
        response = await client.post(f"/api/join/{invite}", json={"name": name})
        return response.status_code


async def _join_through_both(a: Server, b: Server, game: dict[str, Any], n: int) -> list[int]:
    """Redeem ``game``'s invite through ``a`` and ``b`` at once; the two answers' status codes."""
    invite = game["invite_url"].rsplit("/", 1)[1]
    host = await Player.join(a, game["game_id"], game["token"])
    codes = list(await asyncio.gather(_redeem(a, invite, f"A{n}"), _redeem(b, invite, f"B{n}")))
    # The host, on a, learns who took the seat, whichever instance they joined through.
    joined = await host.conn.until(lambda m: m["type"] == "sync" and m["players"][1] is not None)
    assert joined["players"][1] == (f"A{n}" if codes[0] == 200 else f"B{n}")
    return codes


def test_an_invite_redeemed_through_both_instances_at_once_gives_one_seat(shared_pair: Pair) -> None:
    a, b, _url = shared_pair
    outcomes = []
    for n in range(5):
        game = a.create(opponent="human", seat="first", name="Host")
        outcomes.append(sorted(run(_join_through_both(a, b, game, n))))
    assert outcomes == [[200, 409]] * 5


def test_a_resignation_through_one_instance_ends_the_game_on_the_other(shared_pair: Pair) -> None:
    a, b, _url = shared_pair
    game = a.create(opponent="hotseat", seat="first")

    async def scenario() -> None:
        black = await Player.join(a, game["game_id"], game["tokens"][0])
        white = await Player.join(b, game["game_id"], game["tokens"][1])
        await play_random({0: black, 1: white}, [], random.Random(2), 6)
        await white.conn.send(type="resign", id="r")
        assert (await white.conn.until(lambda m: m["type"] in ("ack", "error")))["type"] == "ack"
        ended = await black.conn.until(lambda m: m["type"] == "sync" and m["termination"] is not None)
        assert ended["termination"] == {"reason": "resign", "seat": 1}
        # Black, on a, can no longer act: a knows the game is over.
        await black.conn.send(type="action", action="pass", version=ended["version"], id="late")
        late = await black.conn.until(lambda m: m["type"] == "error")
        assert late["code"] == "game_over"

    run(scenario())


def test_a_clock_waiting_for_players_on_two_instances_starts_once_both_are_there(shared_pair: Pair) -> None:
    a, b, _url = shared_pair
    game = a.create(opponent="human", seat="first", name="Host", clock={"initial": 120, "increment": 0})
    friend = b.post(f"/api/join/{game['invite_url'].rsplit('/', 1)[1]}", {"name": "Friend"}).json()

    async def scenario() -> None:
        host = await Player.join(a, game["game_id"], game["token"])
        # a hears of the join on b through the replication channel: the host's first sync may
        # predate it (a clock neither running nor waiting), the sync after a's refresh does not
        waiting = host.last
        if "starts_in" not in waiting["clock"]:
            waiting = await host.conn.until(lambda m: m["type"] == "sync" and "starts_in" in m["clock"])
        assert waiting["clock"]["running"] is None
        guest = await Player.join(b, friend["game_id"], friend["token"])
        for player in (host, guest):  # whichever instance saw both first started it, for both
            started = await player.conn.until(lambda m: m["type"] in ("clock", "sync") and m["clock"]["running"] == 0)
            assert "starts_in" not in started["clock"]

    run(scenario())
    logs = a.log() + b.log()
    started = [line for line in logs.splitlines() if '"clock_started"' in line and game["game_id"] in line]
    assert len(started) == 1, started


def test_a_take_back_asked_on_one_instance_is_accepted_through_the_other(shared_pair: Pair) -> None:
    a, b, _url = shared_pair
    game = a.create(opponent="human", seat="first", name="Host")
    friend = b.post(f"/api/join/{game['invite_url'].rsplit('/', 1)[1]}", {"name": "Friend"}).json()

    async def scenario() -> None:
        host = await Player.join(a, game["game_id"], game["token"])
        guest = await Player.join(b, friend["game_id"], friend["token"])
        # A hears of the join through B from the broker: until then its sync says "waiting"
        while not host.last["legal"]:
            host.last = await host.conn.until(lambda m: m["type"] == "sync")
        await host.play(next(t for t in host.last["legal"] if ">" in t))
        asked_at = host.version
        await host.conn.send(type="takeback", id="t")
        offered = await guest.conn.until(lambda m: m["type"] == "takeback_offered")
        assert offered == {"type": "takeback_offered", "seat": 0, "version": asked_at}
        await guest.conn.send(type="takeback", id="yes")
        for player in (host, guest):
            back = await player.conn.until(lambda m: m["type"] == "sync" and m["version"] == asked_at + 1)
            assert back["view"]["history"] == []

    run(scenario())
