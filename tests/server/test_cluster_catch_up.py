"""An instance's look in the database for actions it missed, racing the action it is applying.

A game entering an instance's memory is compared with the database once at once and once a second
later (``RedisReplication._catch_up_if_behind``), in case an action was stored before the instance's
subscription reached Redis. That look reads the stored count without the game's lock; if the
action it counted is made current here meanwhile (this instance's own, or another's applied from
the broker), reloading the game sends each connection a ``sync`` of the version its ``update``
already showed, and a client acting on both is told ``stale_version``. The test makes that race
happen on cue (the look is started while the game's lock is held and the action stored) and checks
that the client gets the action's ``update`` once, and no ``sync``.
"""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest
from scale_harness import redis_url
from server_harness import eventually
from stored_games import stored_game

from kahuna.rules import GameState
from kahuna.server.cluster.redis_broker import RedisBroker
from kahuna.server.cluster.replication import RedisReplication
from kahuna.server.db import store
from kahuna.server.db.store import ActionRow, StoredGame
from kahuna.server.db.writer import Writer
from kahuna.server.games.ai_pool import AiPool
from kahuna.server.games.ai_turns import LocalAiTurns
from kahuna.server.games.ended import EndHooks
from kahuna.server.games.live import Client, rebuild
from kahuna.server.games.service import GameService

__all__ = ["redis_url"]

pytestmark = pytest.mark.redis


def _stored_game(deal: str) -> StoredGame:
    return stored_game("race", deal, seat_tokens=["d0", "d1"])


def _received(client: Client) -> list[dict[str, Any]]:
    out = []
    while not client.outbox.empty():
        text = client.outbox.get_nowait()
        assert text is not None
        out.append(json.loads(text))
    return out


async def _queued_on(lock: asyncio.Lock) -> None:
    """Wait until a task waits for ``lock`` (the catch-up has read the database and wants the game)."""

    async def asked() -> bool:
        return bool(lock._waiters)

    await eventually(asked, "the catch-up to ask for the game's lock", timeout=5)


def test_an_action_counted_by_the_catch_up_and_applied_meanwhile_is_not_sent_again(
    tmp_path: Path, redis_url: str
) -> None:
    state = GameState.new(random.Random(5))
    assert state.deal is not None
    deal = state.deal
    action = state.legal_actions()[0]
    state.apply(action)
    row = ActionRow(
        "race", 0, 0, action.token, tuple(enumerate(state.reshuffles)), "playing", None, "2026-11-30T07:00:01Z"
    )
    reshuffles = [list(drawn) for drawn in row.new_reshuffles]

    async def scenario() -> list[dict[str, Any]]:
        writer = Writer(store.open_engine(f"sqlite:///{tmp_path / 'k.db'}"))
        writer.start()
        broker = RedisBroker(redis_url)
        await broker.start()
        ai = AiPool(1)
        cluster = RedisReplication(broker, writer)
        service = GameService(writer, cluster, LocalAiTurns(ai), EndHooks())
        try:
            stored = _stored_game(deal)
            await writer.write(lambda conn: store.insert_game(conn, stored))
            game = service.games["race"] = rebuild(stored)
            client = Client(1)
            await service.hello(game, client, None)
            _received(client)  # the sync and the presence of the hello
            async with game.lock:  # the instance is busy with the game (here: applying the action)
                await writer.write(row)  # stored: the database is one action ahead of memory
                catch_up = asyncio.get_running_loop().create_task(
                    cluster._catch_up_if_behind(game, service.engine, 0.0)
                )
                await _queued_on(game.lock)
                # made current by the engine, as the replication hands it over, and its update sent
                assert service.engine.apply_stored(game, 0, action.token, reshuffles, None, row.at)
            await catch_up
            return _received(client)
        finally:
            await cluster.close()
            await broker.close()
            await writer.close()
            ai.close()

    got = asyncio.run(scenario())
    assert [(m["type"], m["version"]) for m in got] == [("update", 1)]
