"""The Redis broker: messages between two instances in order, and back after Redis restarts."""

from __future__ import annotations

import asyncio
import json
import random
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from scale_harness import redis_url
from server_harness import eventually, free_port, wait_for
from test_broker import take

from kahuna.rules import GameState
from kahuna.server.cluster.broker import LOBBY, game_channel
from kahuna.server.cluster.redis_broker import RedisBroker
from kahuna.server.cluster.replication import Announcer
from kahuna.server.games.live import HUMAN, LiveGame

__all__ = ["redis_url"]

pytestmark = pytest.mark.redis


async def _subscribed(broker: RedisBroker, channel: str) -> None:
    """Wait until Redis counts a subscriber of ``channel`` (SUBSCRIBE is sent in the background)."""

    async def counted() -> bool:
        return bool(dict(await broker.client.pubsub_numsub(channel)).get(channel))

    await eventually(counted, f"a subscriber of {channel}", timeout=5)


def _redis_answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        return True
    except OSError:
        return False


def test_messages_reach_the_other_instance_in_order(redis_url: str) -> None:
    async def scenario() -> None:
        one, two = RedisBroker(redis_url), RedisBroker(redis_url)
        await one.start()
        await two.start()
        try:
            channel = game_channel("t" + one.instance)
            subscription = two.subscribe(channel, LOBBY + one.instance)
            await _subscribed(one, channel)
            for n in range(300):
                await one.publish(channel, str(n))
            await one.publish(LOBBY + one.instance, "seek")
            got = await asyncio.wait_for(take(subscription, 301), 10)
            assert [m for _, m in got[:300]] == [str(n) for n in range(300)]
            assert got[300] == (LOBBY + one.instance, "seek")
            await subscription.close()
            assert two.subscribers(channel) == 0
        finally:
            await one.close()
            await two.close()

    asyncio.run(scenario())


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A Redis server of this test's own (it is restarted), on a free port."""
    if shutil.which("redis-server") is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    yield port, tmp_path
    subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True, timeout=10)


def _start_redis(port: int, tmp: Path) -> None:
    subprocess.run(
        ["redis-server", "--daemonize", "yes", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
         "--appendonly", "no", "--dir", str(tmp), "--pidfile", str(tmp / "redis.pid")],
        check=True, capture_output=True, timeout=10,
    )  # fmt: skip


def test_after_a_redis_restart_subscriptions_come_back_marked_lagged(private_redis: tuple[int, Path]) -> None:
    port, tmp = private_redis
    _start_redis(port, tmp)
    url = f"redis://127.0.0.1:{port}/0"

    async def scenario() -> None:
        one, two = RedisBroker(url), RedisBroker(url)
        await one.start()
        await two.start()
        back = asyncio.Event()

        async def reconnected() -> None:
            back.set()

        two.on_reconnect(reconnected)
        try:
            subscription = two.subscribe(game_channel("g"))
            await _subscribed(one, game_channel("g"))
            await one.publish(game_channel("g"), "before")
            assert await asyncio.wait_for(take(subscription, 1), 5) == [("game:g", "before")]
            subprocess.run(["redis-cli", "-p", str(port), "shutdown", "nosave"], capture_output=True, timeout=10)
            wait_for(lambda: not _redis_answers(port), "Redis to be down")
            _start_redis(port, tmp)
            await asyncio.wait_for(back.wait(), 15)
            assert subscription.lagged
            await _subscribed(one, game_channel("g"))
            await one.publish(game_channel("g"), "after")
            got = await asyncio.wait_for(take(subscription, 1), 10)
            assert got == [("game:g", "after")]
        finally:
            await one.close()
            await two.close()

    asyncio.run(scenario())


def test_a_channel_left_and_taken_again_at_once_keeps_every_subscription(redis_url: str) -> None:
    async def scenario() -> None:
        one, two = RedisBroker(redis_url), RedisBroker(redis_url)
        await one.start()
        await two.start()
        try:
            first, other = game_channel("a" + two.instance), game_channel("b" + two.instance)
            kept = two.subscribe(other)
            leaving = two.subscribe(first)
            await _subscribed(one, first)
            await _subscribed(one, other)
            await leaving.close()  # a game leaves memory ...
            back = two.subscribe(first)  # ... and is loaded again before Redis heard of it
            marker = game_channel("c" + two.instance)
            two.subscribe(marker)  # (un)subscriptions reach Redis in order: once this one has, so have those
            await _subscribed(one, marker)
            await _subscribed(one, first)
            await one.publish(first, "1")
            await one.publish(other, "2")
            assert await asyncio.wait_for(take(back, 1), 5) == [(first, "1")]
            assert await asyncio.wait_for(take(kept, 1), 5) == [(other, "2")]
        finally:
            await one.close()
            await two.close()

    asyncio.run(scenario())


def test_an_instance_hears_the_announcements_of_others_and_not_its_own(redis_url: str) -> None:
    """Redis sends a publisher's message back to it when it follows the channel too; the
    replication's subscription skips its own (by the signature every one of its messages begins
    with), so they cost the instance no wake-up and no parse."""

    async def scenario() -> None:
        one, two = RedisBroker(redis_url), RedisBroker(redis_url)
        await one.start()
        await two.start()
        try:
            game = LiveGame("s" + two.instance, GameState.new(random.Random(5)), [HUMAN, HUMAN], ["a", "b"],
                            [None, None], None, "", "")  # fmt: skip
            theirs, mine = Announcer(one), Announcer(two)
            subscription = two.subscribe(game_channel(game.game_id), skip=mine.signature)
            await _subscribed(one, game_channel(game.game_id))
            mine.changed(game)
            theirs.chat_stored(game, 0, {"text": "hi"})
            mine.changed(game)
            theirs.changed(game)
            got = await asyncio.wait_for(take(subscription, 2), 5)
            assert [json.loads(text) for _channel, text in got] == [
                {"i": one.instance, "k": "c", "seq": 0, "line": {"text": "hi"}},
                {"i": one.instance, "k": "r"},
            ]
        finally:
            await one.close()
            await two.close()

    asyncio.run(scenario())
