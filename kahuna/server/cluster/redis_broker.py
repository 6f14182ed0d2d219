"""The broker between server instances: Redis pub/sub (``kahuna serve --broker redis://HOST:PORT/N``).

The same interface as :class:`~kahuna.server.cluster.broker.LocalBroker`. One Redis connection carries
every subscription of the instance (a channel is subscribed while some local subscriber wants it);
another publishes. Publishing never makes the caller wait on the network: messages go into one
queue, sent in order by one task (pipelined), so the messages of a game reach the other instances
in the order they were stored. Delivery is at most once, as Redis pub/sub is.

When Redis goes away (a restart, a network failure), the reader reconnects with a growing pause
(0.1 s to 2 s), subscribes again to every channel, marks every subscription ``lagged`` and calls the
:meth:`RedisBroker.on_reconnect` callbacks: whatever was published meanwhile is lost, and the
subscribers resynchronise from the database, which is the truth.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

from kahuna.server.cluster.broker import QueueSubscription
from kahuna.server.common import logs
from kahuna.server.common.tasks import cancel_and_wait

PUBLISH_BATCH = 256
"""Messages sent in one pipeline at most."""
OUTBOX_SIZE = 100_000
"""Messages waiting to be published before the oldest are dropped (Redis is down or slow)."""
RETRY_MIN, RETRY_MAX = 0.1, 2.0
"""Seconds between two attempts to reach Redis again."""


class RedisBroker:
    """Pub/sub through Redis; :meth:`start` it inside the running event loop."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.instance = secrets.token_hex(6)
        """This process's name among the instances (its own private channel is ``instance:<it>``)."""
        # A command on a pooled connection that Redis dropped (it restarted) is tried again on a
        # new one, so that the first message after a restart is not lost.
        retry = Retry(ExponentialBackoff(cap=0.5, base=0.05), 3, (RedisConnectionError, RedisTimeoutError))
        self._client: aioredis.Redis = aioredis.Redis.from_url(
            url, decode_responses=True, socket_connect_timeout=2, socket_keepalive=True, health_check_interval=5,
            retry=retry,
        )  # fmt: skip
        # The subscriptions' connection must not reconnect behind our back: an outage has to be
        # seen, because what was published meanwhile is lost and the subscribers must resync.
        self._subscriber_client: aioredis.Redis = aioredis.Redis.from_url(
            url, decode_responses=True, socket_connect_timeout=2, socket_keepalive=True, health_check_interval=5,
            retry=Retry(ExponentialBackoff(), 0),
        )  # fmt: skip
        self._subscribers: dict[str, set[QueueSubscription]] = {}
        self._pubsub: Any = None
        self._outbox: asyncio.Queue[tuple[str, str]] = asyncio.Queue()
        self._sending = False
        self._tasks: list[asyncio.Task[None]] = []
        self._reconnected: list[Callable[[], Awaitable[None]]] = []
        self._control = asyncio.Lock()
        """Serialises SUBSCRIBE/UNSUBSCRIBE on the reader's connection."""

    @property
    def client(self) -> aioredis.Redis:
        """The instance's Redis client (shared rate-limit counters use it too)."""
        return self._client

    async def start(self) -> None:
        """Check that Redis answers (raises if not: a server must not start half-connected), then
        start reading and publishing."""
        await self._client.ping()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._read_loop()), loop.create_task(self._publish_loop())]

    def on_reconnect(self, callback: Callable[[], Awaitable[None]]) -> None:
        """Call ``callback`` each time the subscriptions are back after Redis was away."""
        self._reconnected.append(callback)

    # ----------------------------------------------------------------- publishing

    async def publish(self, channel: str, message: str) -> None:
        self.post(channel, message)

    def post(self, channel: str, message: str) -> None:
        """:meth:`publish` without a coroutine: queue the message for the publishing task (which
        sends what has queued up in one pipeline) and return; the oldest is dropped when the queue
        is full, and the subscribers resync."""
        if self._outbox.qsize() >= OUTBOX_SIZE:
            self._outbox.get_nowait()
        self._outbox.put_nowait((channel, message))

    async def _publish_loop(self) -> None:
        pause = RETRY_MIN
        while True:
            batch = [await self._outbox.get()]
            while not self._outbox.empty() and len(batch) < PUBLISH_BATCH:
                batch.append(self._outbox.get_nowait())
            self._sending = True
            try:
                if len(batch) == 1:
                    await self._client.publish(*batch[0])
                else:
                    async with self._client.pipeline(transaction=False) as pipe:
                        for channel, message in batch:
                            pipe.publish(channel, message)
                        await pipe.execute()
                pause = RETRY_MIN
            except (RedisError, OSError) as exc:  # lost: the subscribers resync when Redis is back
                logs.event("broker_publish_failed", messages=len(batch), error=type(exc).__name__)
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX, pause * 2)
            finally:
                self._sending = False

    # ----------------------------------------------------------------- subscribing

    def subscribe(self, *channels: str, skip: str | None = None) -> QueueSubscription:
        """``skip``: messages starting with it are not delivered (:attr:`QueueSubscription.skip`)."""
        subscription = QueueSubscription(channels, self.unsubscribe, skip)
        new = []
        for channel in channels:
            subscribers = self._subscribers.setdefault(channel, set())
            if not subscribers:
                new.append(channel)
            subscribers.add(subscription)
        if new:
            self._command("subscribe", new)
        return subscription

    def unsubscribe(self, subscription: QueueSubscription) -> None:
        gone = []
        for channel in subscription.channels:
            subscribers = self._subscribers.get(channel)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[channel]
                    gone.append(channel)
        if gone:
            self._command("unsubscribe", gone)

    def subscribers(self, channel: str) -> int:
        return len(self._subscribers.get(channel, ()))

    def _command(self, name: str, channels: list[str]) -> None:
        """(Un)subscribe on the reader's connection, if it is up (else the reconnect does it)."""
        if self._pubsub is None:
            return

        async def run() -> None:
            async with self._control:
                pubsub = self._pubsub
                if pubsub is None:
                    return
                # Whether a channel is wanted is decided now, not when the command was asked for
                # (a game may leave memory and come back meanwhile). No channel: no command, since
                # UNSUBSCRIBE without one would leave every channel.
                wanted = name == "subscribe"
                now = [c for c in channels if (c in self._subscribers) == wanted]
                if not now:
                    return
                with contextlib.suppress(RedisError, OSError):  # the reader notices and reconnects
                    await (pubsub.subscribe(*now) if wanted else pubsub.unsubscribe(*now))

        asyncio.get_running_loop().create_task(run())

    async def _connect(self) -> Any:
        pubsub: Any = self._subscriber_client.pubsub(ignore_subscribe_messages=True)
        try:
            async with self._control:
                # Its own channel keeps the connection subscribed (and so watched) with no game open.
                await pubsub.subscribe(f"instance:{self.instance}", *self._subscribers)
                self._pubsub = pubsub
        except BaseException:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            raise
        return pubsub

    async def _read_loop(self) -> None:
        pause = RETRY_MIN
        away = False
        while True:
            try:
                pubsub = self._pubsub or await self._connect()
                if away:
                    away = False
                    logs.event("broker_reconnected", channels=len(self._subscribers))
                    for subscribers in list(self._subscribers.values()):
                        for subscription in subscribers:
                            subscription.lagged = True
                    for callback in self._reconnected:
                        await callback()
                pause = RETRY_MIN
                while True:
                    message = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        channel, data = message["channel"], message["data"]
                        for subscription in tuple(self._subscribers.get(channel, ())):
                            subscription.deliver(channel, data)
            except (RedisError, OSError) as exc:
                if not away:
                    logs.event("broker_disconnected", error=type(exc).__name__)
                away = True
                await self._drop_pubsub()
                await asyncio.sleep(pause)
                pause = min(RETRY_MAX, pause * 2)

    async def _drop_pubsub(self) -> None:
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()

    async def close(self) -> None:
        """Publish what is queued (for at most a second), then disconnect."""
        for _ in range(100):
            if (self._outbox.empty() and not self._sending) or not self._tasks:
                break
            await asyncio.sleep(0.01)
        for task in self._tasks:
            await cancel_and_wait(task)
        await self._drop_pubsub()
        for subscribers in tuple(self._subscribers.values()):
            for subscription in tuple(subscribers):
                await subscription.close()
        await self._client.aclose()
        await self._subscriber_client.aclose()
