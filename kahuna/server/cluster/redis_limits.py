"""Rate limits shared by every instance (``kahuna serve --broker``): token buckets in Redis.

A client that spreads its requests over several instances (a proxy balances them) must meet the
same budget as on one. Each bucket is a Redis hash ``<prefix>:<limit>:<key>`` with its tokens and
when they were counted, updated by one Lua script (atomic, one round trip) on Redis's own clock,
so that instances whose clocks differ agree. A bucket expires once it would be full again.

If Redis does not answer, the request goes ahead (logged as ``limit_unavailable``): the limits
protect the server from a flood, and refusing everybody while Redis restarts would be a worse one.
"""

from __future__ import annotations

import math
from typing import Any

from redis.exceptions import RedisError

from kahuna.server.common import logs

PREFIX = "kahuna:limit"

# KEYS[1]: the bucket; ARGV: rate per second, burst, mode ("take" or "refund").
# Returns the seconds to wait as a string (a Lua number would be cut to an integer).
_BUCKET = """
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local mode = ARGV[3]
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local held = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens = tonumber(held[1])
local stamp = tonumber(held[2])
if tokens == nil or stamp == nil then
  tokens = burst
  stamp = now
end
tokens = math.min(burst, tokens + math.max(0, now - stamp) * rate)
local wait = 0
if tokens < 1 then
  wait = (1 - tokens) / rate
end
if mode == 'refund' then
  tokens = math.min(burst, tokens + 1)
elseif wait == 0 then
  tokens = tokens - 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'stamp', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1000)
return tostring(wait)
"""


class RedisLimiter:
    """One budget (``name``) of token buckets per key, shared through Redis (see the module)."""

    def __init__(self, client: Any, name: str, rate: float, burst: int) -> None:
        self.name = name
        self.rate = rate
        self.burst = burst
        self._client = client
        self._script = client.register_script(_BUCKET)

    async def _run(self, key: str, mode: str) -> float:
        try:
            wait = float(await self._script(keys=[f"{PREFIX}:{self.name}:{key}"], args=[self.rate, self.burst, mode]))
        except (RedisError, OSError) as exc:
            logs.event("limit_unavailable", limit=self.name, error=type(exc).__name__)
            return 0.0
        return 0.0 if wait <= 0 else float(math.ceil(wait))

    async def take(self, key: str) -> float:
        return await self._run(key, "take")

    async def refund(self, key: str) -> None:
        await self._run(key, "refund")


def redis_limiters(client: Any) -> Any:
    """A :data:`~kahuna.server.common.ratelimit.LimiterFactory` whose limiters share ``client``'s Redis."""

    def make(name: str, rate: float, burst: int) -> RedisLimiter:
        return RedisLimiter(client, name, rate, burst)

    return make
