"""The Swiss of seven bots on two ``kahuna serve`` instances sharing PostgreSQL and Redis, one of
them killed (SIGKILL) in the middle: the other goes on, each round is paired exactly once, and the
event ends with every invariant of ``test_tournaments.check_swiss``.

The organiser creates and starts the event on instance A; the bots play on instance B; both
instances run the tournaments' loop and race for every pairing and every board's game (claims).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from scale_harness import pg_url, redis_url, start_instances, stop_all
from server_harness import Server
from test_tournaments import check_results_are_the_games, check_swiss, play_swiss, tournament, until

__all__ = ["pg_url", "redis_url"]

pytestmark = [pytest.mark.pg, pytest.mark.redis, pytest.mark.slow]


def events(server: Server, kind: str) -> list[dict[str, Any]]:
    found = []
    for line in server.log().splitlines():
        if f'"event":"{kind}"' in line:
            found.append(json.loads(line))
    return found


@pytest.mark.long  # a race between instances; test_tournaments.py's swiss survives a restart in make test
def test_a_swiss_on_two_instances_survives_one_killed(tmp_path: Path, pg_url: str, redis_url: str) -> None:
    a, b = start_instances(tmp_path, pg_url, ("--broker", redis_url, "--local-ai"))
    try:

        async def kill_a(tid: str) -> None:
            async def round_two() -> bool:
                return len((await tournament(b.url, tid))["rounds"]) >= 2

            await until(round_two, 300)
            await asyncio.to_thread(a.kill)

        _, shown = asyncio.run(play_swiss(b, "pg", 400, kill_a, organiser_server=a))
        check_swiss(shown, 7, 5)
        asyncio.run(check_results_are_the_games(b.url, shown))
        pairings = events(a, "tournament_paired") + events(b, "tournament_paired")
        assert sorted(p["round"] for p in pairings) == [1, 2, 3, 4, 5]  # each round paired once, by one instance
        assert events(b, "tournament_paired")  # the survivor paired after the kill
        started = [e for s in (a, b) for e in events(s, "game_created") if e.get("tournament")]
        assert len(started) == len({e["game_id"] for e in started}) == 15  # each board's game started once
    finally:
        stop_all([a, b])
