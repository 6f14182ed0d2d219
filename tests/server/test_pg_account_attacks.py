"""Password guesses sent at once to two instances (``kahuna serve --broker``, one PostgreSQL database,
one Redis): the per-account budget of password checks holds across instances as on one."""

from __future__ import annotations

import asyncio

import httpx
import pytest
from scale_harness import pg_url, redis_url
from server_harness import Server
from test_account_attacks import PASSWORD, burst, unique
from test_lobby_instances import pair

__all__ = ["pair", "pg_url", "redis_url"]

pytestmark = [
    pytest.mark.pg,
    pytest.mark.redis,
    pytest.mark.long,
]  # two instances: make test-all (docs/testing.md, *Markers*)


def test_guesses_sent_at_once_to_two_instances_are_checked_at_most_the_accounts_budget(
    pair: tuple[Server, Server],
) -> None:
    a, b = pair
    victim = unique("victim")
    assert a.post("/api/accounts", {"username": victim, "password": PASSWORD}).status_code == 201

    async def guess(http: httpx.AsyncClient) -> httpx.Response:
        return await http.post("/api/session", json={"username": victim, "password": "a-wrong-guess-here"})

    async def both() -> list[int]:
        addresses = [f"127.0.28.{n}" for n in range(1, 6)]
        first, second = await asyncio.gather(burst(a.url, addresses, 10, guess), burst(b.url, addresses, 10, guess))
        return first + second

    codes = asyncio.run(both())
    checked = codes.count(401)
    print(f"figure: {checked} of {len(codes)} guesses through two instances checked against one account")
    assert checked <= 5 and codes.count(429) == len(codes) - checked, codes
    assert b.post("/api/session", {"username": victim, "password": PASSWORD}).status_code == 429
