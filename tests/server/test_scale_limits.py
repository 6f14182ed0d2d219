"""Rate limits shared by instances: two limiters on one Redis spend one budget, like one in memory."""

from __future__ import annotations

import asyncio
import secrets

import pytest
import redis.asyncio as aioredis
from scale_harness import redis_url

from kahuna.server.cluster.redis_limits import RedisLimiter
from kahuna.server.common.ratelimit import Limiter, RateLimiter

__all__ = ["redis_url"]

pytestmark = pytest.mark.redis


async def _spend(limiter: Limiter, other: Limiter, key: str) -> list[float]:
    """Alternate requests of one key between two limiters until one is refused."""
    waits = []
    for n in range(10):
        wait = await (limiter if n % 2 == 0 else other).take(key)
        waits.append(wait)
        if wait:
            break
    return waits


def test_two_instances_share_one_budget_as_one_process_has_it(redis_url: str) -> None:
    async def scenario() -> None:
        client = aioredis.Redis.from_url(redis_url, decode_responses=True)
        name = "test" + secrets.token_hex(4)
        try:
            one = RedisLimiter(client, name, 1 / 60, 4)
            two = RedisLimiter(client, name, 1 / 60, 4)
            shared = await _spend(one, two, "10.0.0.1")
            local = RateLimiter(1 / 60, 4)
            alone = await _spend(local, local, "10.0.0.1")
            assert shared == alone == [0.0, 0.0, 0.0, 0.0, 60.0]
            assert await one.take("10.0.0.2") == 0.0  # another key has its own bucket
            await two.refund("10.0.0.1")  # a refund on one instance is a token for the other
            assert await one.take("10.0.0.1") == 0.0
            assert await two.take("10.0.0.1") == 60.0
            for _ in range(3):
                await one.refund("10.0.0.3")  # never more than the burst
            assert [await two.take("10.0.0.3") for _ in range(5)] == [0.0, 0.0, 0.0, 0.0, 60.0]
            assert 0 < await client.pttl(f"kahuna:limit:{name}:10.0.0.1") <= 241_000
        finally:
            await client.aclose()

    asyncio.run(scenario())
