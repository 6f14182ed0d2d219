"""Messages between the parts of the server that may live in other processes: game updates, lobby
events, presence, a user's own notifications.

A small interface with two implementations, as boardgame.io keeps its pub/sub behind an adapter:
:class:`LocalBroker` (the embedded default: one process, no service to install) and a Redis one for
several instances (``kahuna serve --broker redis://…``). A message is a string (JSON by convention)
published on a named channel; every subscription to that channel, in any instance, receives it.
Delivery is at most once: a subscriber that was away (a Redis restart, a full queue) is told so by
:attr:`Subscription.lagged` and resynchronises from the database, which is the truth.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from typing import Protocol

LOBBY = "lobby"
"""Seeks added, removed and accepted."""


def game_channel(game_id: str) -> str:
    """Stored actions, chat and presence of one game."""
    return f"game:{game_id}"


def user_channel(account_id: int) -> str:
    """What one account must learn wherever it is connected (its seek was accepted, a challenge)."""
    return f"user:{account_id}"


class Subscription(Protocol):
    """Messages of some channels, in the order they were published on each channel."""

    lagged: bool
    """Set when messages may have been lost since the subscription began (the subscriber resyncs)."""

    def __aiter__(self) -> AsyncIterator[tuple[str, str]]:
        """``(channel, message)`` pairs, until :meth:`close`."""
        ...

    async def close(self) -> None: ...


class Broker(Protocol):
    async def publish(self, channel: str, message: str) -> None: ...

    def subscribe(self, *channels: str) -> Subscription: ...

    async def close(self) -> None: ...


QUEUE_SIZE = 1000
"""Messages a local subscriber may fall behind by before it is marked lagged and the oldest are
dropped: a slow consumer never makes a publisher wait."""


class QueueSubscription:
    """A subscription as both brokers hand it out: the broker's reader puts each message of the
    subscription's channels in a bounded queue (:meth:`deliver`); closing it tells the broker."""

    def __init__(
        self, channels: tuple[str, ...], on_close: Callable[[QueueSubscription], None], skip: str | None = None
    ) -> None:
        self.channels = channels
        self.lagged = False
        self.skip = skip
        """Messages that start with this are not delivered: an instance's own announcements, which
        Redis sends back to it like anyone else's (dropped here, they cost no wake-up and no parse)."""
        self._on_close = on_close
        self._queue: asyncio.Queue[tuple[str, str] | None] = asyncio.Queue()
        self._closed = False

    def deliver(self, channel: str, message: str) -> None:
        if self.skip is not None and message.startswith(self.skip):
            return
        if self._queue.qsize() >= QUEUE_SIZE:
            self._queue.get_nowait()
            self.lagged = True
        self._queue.put_nowait((channel, message))

    async def __aiter__(self) -> AsyncIterator[tuple[str, str]]:
        while not self._closed:
            item = await self._queue.get()
            if item is None:
                return
            yield item

    async def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._on_close(self)
            self._queue.put_nowait(None)


class LocalBroker:
    """Channels inside one process: ``publish`` hands the message to each subscriber's queue at once."""

    def __init__(self) -> None:
        self._subscribers: dict[str, set[QueueSubscription]] = {}

    async def publish(self, channel: str, message: str) -> None:
        for subscription in tuple(self._subscribers.get(channel, ())):
            subscription.deliver(channel, message)

    def subscribe(self, *channels: str) -> QueueSubscription:
        subscription = QueueSubscription(channels, self.unsubscribe)
        for channel in channels:
            self._subscribers.setdefault(channel, set()).add(subscription)
        return subscription

    def unsubscribe(self, subscription: QueueSubscription) -> None:
        for channel in subscription.channels:
            subscribers = self._subscribers.get(channel)
            if subscribers is not None:
                subscribers.discard(subscription)
                if not subscribers:
                    del self._subscribers[channel]

    def subscribers(self, channel: str) -> int:
        """How many subscriptions listen on ``channel`` (for tests and the lobby's presence)."""
        return len(self._subscribers.get(channel, ()))

    async def close(self) -> None:
        for subscribers in tuple(self._subscribers.values()):
            for subscription in tuple(subscribers):
                await subscription.close()
