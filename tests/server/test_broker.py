"""The in-process broker: what a subscriber receives, in order, and what a slow one is told."""

from __future__ import annotations

import asyncio

from kahuna.server.cluster.broker import LOBBY, QUEUE_SIZE, LocalBroker, QueueSubscription, game_channel, user_channel


async def take(subscription: QueueSubscription, count: int) -> list[tuple[str, str]]:
    """The next ``count`` messages (fewer if the subscription closes first)."""
    got: list[tuple[str, str]] = []
    async for item in subscription:
        got.append(item)
        if len(got) == count:
            break
    return got


def test_each_subscriber_of_a_channel_gets_its_messages_in_order() -> None:
    async def scenario() -> None:
        broker = LocalBroker()
        lobby_and_user = broker.subscribe(LOBBY, user_channel(7))
        game = broker.subscribe(game_channel("g1"))
        await broker.publish(LOBBY, "a")
        await broker.publish(game_channel("g1"), "b")
        await broker.publish(user_channel(7), "c")
        await broker.publish(user_channel(8), "not for anyone")
        assert await take(lobby_and_user, 2) == [(LOBBY, "a"), ("user:7", "c")]
        assert await take(game, 1) == [("game:g1", "b")]
        assert not lobby_and_user.lagged

    asyncio.run(scenario())


def test_a_closed_subscription_ends_and_leaves_the_channel() -> None:
    async def scenario() -> None:
        broker = LocalBroker()
        subscription = broker.subscribe(LOBBY)
        assert broker.subscribers(LOBBY) == 1
        await subscription.close()
        assert broker.subscribers(LOBBY) == 0
        await broker.publish(LOBBY, "late")
        assert await take(subscription, 1) == []

    asyncio.run(scenario())


def test_a_subscriber_that_falls_behind_is_marked_lagged_and_keeps_the_newest() -> None:
    async def scenario() -> None:
        broker = LocalBroker()
        subscription = broker.subscribe(LOBBY)
        for n in range(QUEUE_SIZE + 5):
            await broker.publish(LOBBY, str(n))
        assert subscription.lagged
        first = await take(subscription, 1)
        assert first == [(LOBBY, "5")]

    asyncio.run(scenario())
