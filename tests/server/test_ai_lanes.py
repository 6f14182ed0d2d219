"""Issue 33, a fair server: the moves of a level that thinks by time (grandmaster) have a lane of
their own with a cap per client, so they never hold up another game's quick AI move.

The queue is checked by its events (which waiter is served when); the pool with real worker
processes: a cheap move is answered while grandmaster moves are still running and queued.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import pytest
from server_harness import Player, Server
from server_harness import run as run_async

from kahuna.ai.levels import DEEP_SPECS, LEVELS
from kahuna.rules import GameState, view_of
from kahuna.server.cluster.ai_jobs import ai_job
from kahuna.server.games.ai_pool import LONG_PER_OWNER, AiPool, FairQueue, choose_token, costly, thinks_by_time
from kahuna.server.games.live import AI_PREFIX, HUMAN, LiveGame


def run(coro: Coroutine[Any, Any, None]) -> None:
    asyncio.run(coro)


def test_only_grandmaster_thinks_by_time() -> None:
    assert [level for level in LEVELS if thinks_by_time(level)] == ["grandmaster"]
    assert thinks_by_time(DEEP_SPECS["grandmaster"])
    assert costly("grandmaster")
    assert not thinks_by_time("net:seconds=0,workers=2") and not thinks_by_time("cmd:net:seconds=1")
    assert thinks_by_time("ismcts:seconds=0.5") and not thinks_by_time("net:seconds=x")


def test_an_owner_holds_at_most_its_cap_while_others_are_served() -> None:
    async def scenario() -> None:
        queue = FairQueue(3, per_owner=LONG_PER_OWNER)
        await queue.acquire("greedy", True)  # one place: the cap
        second = asyncio.ensure_future(queue.acquire("greedy", True))
        await asyncio.sleep(0)  # let it queue
        assert not second.done() and queue.waiting() == 1  # places are free, but not for this owner
        await queue.acquire("other", True)  # another owner is served at once
        assert queue.held("other") == 1
        queue.release("greedy")
        await second  # its own place back: its next move goes
        assert queue.held("greedy") == 1

    run(scenario())


def test_a_cancelled_waiter_leaves_the_queue() -> None:
    async def scenario() -> None:
        queue = FairQueue(1, per_owner=1)
        await queue.acquire("a", True)
        waiter = asyncio.ensure_future(queue.acquire("a", True))
        await asyncio.sleep(0)
        waiter.cancel()
        with pytest.raises(asyncio.CancelledError):
            await waiter
        assert queue.waiting() == 0
        queue.release("a")
        await queue.acquire("b", True)  # the place went back to the free ones, not to the cancelled waiter
        assert queue.held("b") == 1 and queue.held("a") == 0

    run(scenario())


def test_cheap_moves_still_go_before_costly_ones_and_owners_take_turns() -> None:
    async def scenario() -> None:
        queue = FairQueue(1)
        await queue.acquire("x", True)
        order: list[str] = []

        async def move(owner: str, costly_move: bool, name: str) -> None:
            await queue.acquire(owner, costly_move)
            order.append(name)
            queue.release(owner)

        tasks = [
            asyncio.ensure_future(move("a", True, "a-costly-1")),
            asyncio.ensure_future(move("a", True, "a-costly-2")),
            asyncio.ensure_future(move("b", True, "b-costly")),
            asyncio.ensure_future(move("c", False, "c-cheap")),
        ]
        await asyncio.sleep(0)
        queue.release("x")
        await asyncio.gather(*tasks)
        assert order == ["c-cheap", "a-costly-1", "b-costly", "a-costly-2"]

    run(scenario())


def live_game(level: str) -> LiveGame:
    state = GameState.new(random.Random(4))
    kinds = [HUMAN, HUMAN]
    kinds[state.to_move] = AI_PREFIX + level
    return LiveGame("g1", state, kinds, ["me", "ai"], [None, None], None, "", "")


def test_a_grandmaster_move_is_a_long_job_for_the_workers() -> None:
    assert ai_job(live_game("grandmaster")).kind == "ai-long"
    assert ai_job(live_game("master")).kind == "ai"


@pytest.mark.slow
def test_a_cheap_move_is_answered_while_grandmaster_moves_run_and_wait() -> None:
    """One client's three grandmaster games (one thinking, two waiting for the long lane) and
    another's; a third client's medium move is answered meanwhile, by the other lane."""
    view = view_of(GameState.new(random.Random(5)), 0).to_json()
    # A budget that cannot settle before half of it: the long moves are still busy when checked.
    long_spec = "net:seconds=60,workers=1,iterations=100000,c=1,mix=0.5,heuristic=ismcts-tuned,weights=net"

    async def scenario() -> None:
        pool = AiPool(1, long_workers=1)
        await pool.warm_up(long=True)
        try:
            long_moves = [
                asyncio.ensure_future(pool.choose(long_spec, view, seed, owner))
                for seed, owner in enumerate(["greedy", "greedy", "greedy", "other"])
            ]
            while pool.long_queue.held("greedy") == 0:  # the first grandmaster move has its worker
                await asyncio.sleep(0)
            token = await pool.choose("medium", view, 7, "third")
            assert token  # answered ...
            assert not any(move.done() for move in long_moves)  # ... while every long move is busy or waiting
            assert pool.long_queue.waiting() == 3
            for move in long_moves:
                move.cancel()
        finally:
            pool.close()

    run(scenario())


def test_the_worker_side_plays_a_level_by_time_within_its_share_of_a_clock() -> None:
    """A real-time clock reading reaches the agent: with the time left under the reserve the quick
    level answers (in milliseconds) instead of grandmaster."""
    view = view_of(GameState.new(random.Random(5)), 0).to_json()
    token = choose_token("grandmaster", view, 3, (10.0, time.time(), {"initial": 60, "increment": 0}))
    assert token == choose_token("medium", view, 3)


@pytest.mark.slow
def test_the_server_offers_grandmaster_and_plays_it_on_a_clock(tmp_path: Path) -> None:
    """A real server: grandmaster is a level like the others, and on a one-minute clock its first
    move comes through the long lane with the clock's time left (logged as an AI move)."""
    server = Server(tmp_path).start()
    try:
        assert "grandmaster" in server.get("/api/levels").json()["levels"]
        created = server.create(
            opponent="ai", level="grandmaster", seat="second", clock={"initial": 60, "increment": 0}
        )

        async def first_ai_move() -> None:
            player = await Player.join(server, created["game_id"], created["token"])
            await player.reach(1)

        run_async(first_ai_move())
        moves = [line for line in server.log().splitlines() if '"event":"ai_move"' in line]
        assert moves and '"spec":"grandmaster"' in moves[0]
    finally:
        server.stop()


def test_every_level_has_a_fixed_rating_anchor() -> None:
    """A level's bot account plays at a fixed rating; one without an anchor would drift."""
    from kahuna.server.community.ratings import ANCHORS

    assert set(LEVELS) <= set(ANCHORS)
