"""Token buckets: how often a client may do something, with a burst allowance.

A refused request learns how many seconds to wait (``retry_after``), which the HTTP API sends
as a ``429`` with a ``Retry-After`` header and the WebSocket as a ``rate_limited`` error.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict

from kahuna.server.config import Limits

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


class Quotas:
    """The per-address limits of the HTTP API (``Limits`` gives their sizes), checked in the
    middleware before a request reaches FastAPI, so that a refusal costs next to nothing."""

    def __init__(self, limits: Limits) -> None:
        self.games = RateLimiter(limits.games_per_minute / 60, limits.games_burst)
        self.joins = RateLimiter(limits.joins_per_minute / 60, limits.joins_burst)
        self.reads = RateLimiter(limits.reads_per_second, limits.reads_burst)
        self.replays = RateLimiter(limits.replays_per_minute / 60, limits.replays_burst)
        self.signups = RateLimiter(limits.signups_per_hour / 3600, limits.signups_burst)
        self.logins = RateLimiter(limits.logins_per_minute / 60, limits.logins_burst)

    def limiter(self, method: str, path: str) -> RateLimiter | None:
        """Which budget a request draws on (``None``: pages and static files are not limited here)."""
        if not path.startswith("/api/"):
            return None
        if method == "POST" and path == "/api/games":
            return self.games
        if method == "POST" and path == "/api/accounts":
            return self.signups
        if method in ("POST", "DELETE") and path in ("/api/session", "/api/me"):
            return self.logins  # each checks a password (an Argon2id hash)
        if path.startswith("/api/join/"):
            return self.joins
        if path.endswith(("/replay", "/record")):
            return self.replays
        return self.reads
