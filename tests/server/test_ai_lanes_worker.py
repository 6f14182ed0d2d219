"""Issue 33 in worker mode: a grandmaster move is an ``ai-long`` job, played beside the worker's job
loop, so a cheap game's move queued after it is played while it still thinks.

A real ``kahuna worker`` (one job loop, ``--jobs 1``) with its own Redis and SQLite file; the games are
stored directly, as in test_deploy_worker.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from deploy_harness import PrivateRedis
from test_deploy_worker import _flush, _jobs_done, _new_game, _queue, _stored, _wait, _worker

from kahuna.server.cluster.ai_jobs import ai_job
from kahuna.server.games.live import rebuild

pytestmark = [pytest.mark.redis, pytest.mark.slow]

LONG_SPEC = "net:seconds=60,workers=1,iterations=200000,c=1,mix=0.5,heuristic=ismcts-tuned,weights=net"
"""Thinks by time and cannot settle before its iteration bound (some seconds): still busy when checked."""


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


def test_a_cheap_move_queued_after_a_grandmaster_move_is_played_while_it_thinks(
    tmp_path: Path, redis: PrivateRedis
) -> None:
    _flush(redis)
    db = f"sqlite:///{tmp_path / 'k.db'}"
    long_game = _new_game(db, LONG_SPEC, 11)
    cheap_game = _new_game(db, "medium", 12)
    long_job = ai_job(rebuild(_stored(db, long_game)))
    cheap_job = ai_job(rebuild(_stored(db, cheap_game)))
    assert (long_job.kind, cheap_job.kind) == ("ai-long", "ai")
    worker = _worker(tmp_path, db, redis, "solo")
    try:
        _queue(redis.url)(lambda q: q.submit(long_job))
        _queue(redis.url)(lambda q: q.submit(cheap_job))
        _wait(lambda: any(d["game_id"] == cheap_game for d in _jobs_done(worker)), "the cheap game's move")
        assert not any(d["game_id"] == long_game for d in _jobs_done(worker))  # still thinking
        assert _stored(db, long_game).actions == []
    finally:
        worker.stop()
