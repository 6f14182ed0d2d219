"""Token buckets: how often a client may do something, with a burst allowance.

A refused request learns how many seconds to wait (``retry_after``), which the HTTP API sends
as a ``429`` with a ``Retry-After`` header and the WebSocket as a ``rate_limited`` error.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Protocol

from kahuna.server.common.config import Limits
from kahuna.server.ops import metrics

MAX_KEYS = 100_000
"""Clients remembered per limiter; the least recently seen are forgotten first (memory stays bounded)."""


class Bucket:
    """``burst`` tokens, refilled at ``rate`` per second; each request takes one."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.stamp = time.monotonic()

    def take(self) -> float:
        """0 if allowed (a token is taken), else the seconds until a token is there."""
        now = time.monotonic()
        self.tokens = min(float(self.burst), self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return 0.0
        return (1 - self.tokens) / self.rate


class Limiter(Protocol):
    """Token buckets per key (a client address, an account): kept in this process
    (:class:`RateLimiter`) or shared by every instance in Redis
    (``kahuna.server.cluster.redis_limits.RedisLimiter``, with ``kahuna serve --broker``)."""

    async def take(self, key: str) -> float:
        """0 if ``key`` may go ahead now (a token is taken), else the seconds it must wait (rounded up)."""
        ...

    async def refund(self, key: str) -> None:
        """Give back a token :meth:`take` took (the request turned out not to count: a right
        password); never more than the burst."""
        ...


LimiterFactory = Callable[[str, float, int], Limiter]
"""``(name, rate per second, burst)`` → a limiter; the name keeps two budgets' keys apart."""


class RateLimiter:
    """One bucket per key (an IP address); keys unused for long are dropped."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self._buckets: OrderedDict[str, Bucket] = OrderedDict()

    def check(self, key: str) -> float:
        """0 if ``key`` may go ahead now, else the seconds it must wait (rounded up)."""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(self.rate, self.burst)
            if len(self._buckets) > MAX_KEYS:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        wait = bucket.take()
        return 0.0 if wait == 0 else float(math.ceil(wait))

    async def take(self, key: str) -> float:
        return self.check(key)

    async def refund(self, key: str) -> None:
        bucket = self._buckets.get(key)
        if bucket is not None:
            bucket.tokens = min(float(bucket.burst), bucket.tokens + 1)


class Counted:
    """A limiter whose refusals are counted in the metrics under its budget's name."""

    def __init__(self, name: str, limiter: Limiter) -> None:
        self._refused = metrics.RATE_LIMITED.labels(name)
        self._limiter = limiter

    async def take(self, key: str) -> float:
        wait = await self._limiter.take(key)
        if wait:
            self._refused.inc()
        return wait

    async def refund(self, key: str) -> None:
        await self._limiter.refund(key)


def counted(make: LimiterFactory) -> LimiterFactory:
    """``make``, with each limiter's refusals counted by budget (``kahuna_rate_limited_total``)."""
    return lambda name, rate, burst: Counted(name, make(name, rate, burst))


def memory_limiter(_name: str, rate: float, burst: int) -> Limiter:
    """A limiter of this process only (the embedded default)."""
    return RateLimiter(rate, burst)


PASSWORD_WORK = frozenset(
    {
        ("POST", "/api/accounts"),
        ("POST", "/api/session"),
        ("DELETE", "/api/me"),
        ("POST", "/api/me/password"),
        ("POST", "/api/tokens"),
    }
)
"""Requests that check, judge or hash a password (an Argon2id hash, a strength estimate): the
per-address ``logins`` budget, right or wrong."""


class Quotas:
    """The per-address limits of the HTTP API (``Limits`` gives their sizes), checked in the
    middleware before a request reaches FastAPI, so that a refusal costs next to nothing."""

    def __init__(self, limits: Limits, make: LimiterFactory = memory_limiter) -> None:
        self.games = make("games", limits.games_per_minute / 60, limits.games_burst)
        self.joins = make("joins", limits.joins_per_minute / 60, limits.joins_burst)
        self.reads = make("reads", limits.reads_per_second, limits.reads_burst)
        self.replays = make("replays", limits.replays_per_minute / 60, limits.replays_burst)
        self.signups = make("signups", limits.signups_per_hour / 3600, limits.signups_burst)
        """Accounts created per address: taken by the sign-up once the request is valid."""
        self.logins = make("logins", limits.logins_per_minute / 60, limits.logins_burst)

    def limiter(self, method: str, path: str) -> Limiter | None:
        """Which budget a request draws on (``None``: pages and static files are not limited here)."""
        if not path.startswith("/api/"):
            return None
        if method == "POST" and path in ("/api/games", "/api/seeks", "/api/pairing", "/api/challenges"):
            return self.games  # a lobby offer is a game to be: the same budget as creating one
        if method == "POST" and path == "/api/tournaments":
            return self.games  # an event is games to be
        if method == "POST" and path.startswith("/api/tournaments/") and path.endswith(("/join", "/invite")):
            return self.joins  # entering an event, as taking a seat
        if method == "POST" and path.startswith(("/api/seeks/", "/api/challenges/")) and path.endswith("/accept"):
            return self.joins  # taking a seat, as an invite does
        if method == "DELETE" and path == "/api/session":
            return None  # signing out is never refused
        if method in ("POST", "PUT") and (
            path.startswith("/api/password-reset") or path in ("/api/me/email", "/api/email/verify")
        ):
            return self.logins  # each mails, judges or hashes a password, or tries a mailed token
        if (method, path) in PASSWORD_WORK:
            return self.logins  # each checks, judges or hashes a password
        # accounts created are counted by the sign-up itself (``signups``): refusals do not count
        if path.startswith("/api/join/"):
            return self.joins
        if path.endswith(("/replay", "/record")):
            return self.replays
        return self.reads
