"""``kahuna worker``: AI moves taken from the Redis Stream, played once, taken over when a worker dies.

Each test has its own Redis server (deploy_harness.PrivateRedis) and SQLite file; the workers are
real ``kahuna worker`` processes. To hold a worker *in the middle of a move* deterministically,
the test stops (SIGSTOP) the process that computes its moves before the job arrives: the worker
has read the job and waits for the agent, exactly as during a long search.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from deploy_harness import Child, PrivateRedis, kahuna
from server_harness import Server
from stored_games import stored_game

from kahuna.rules import GameState
from kahuna.server.cluster.jobs import GROUP, Job, JobQueue
from kahuna.server.common.tokens import digest
from kahuna.server.db import schema, store
from kahuna.server.games.live import rebuild

pytestmark = [pytest.mark.redis, pytest.mark.slow, pytest.mark.long]  # the deployment


@pytest.fixture(scope="module")
def redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


def _new_game(db: str, ai_spec: str, seed: int) -> str:
    """A game between an AI (seat 0, to move first) and a human seat, stored directly."""
    deal = GameState.new(random.Random(seed)).deal
    assert deal is not None
    game_id = f"w{seed}{os.getpid()}"
    stored = stored_game(
        game_id,
        deal,
        kinds=[f"ai:{ai_spec}", "human"],
        names=["AI", "Human"],
        seat_tokens=[None, digest(f"token{seed}")],
    )
    engine = store.open_engine(db)
    with engine.begin() as conn:
        store.insert_game(conn, stored)
    engine.dispose()
    return game_id


def _stored(db: str, game_id: str) -> store.StoredGame:
    engine = store.open_engine(db)
    with engine.connect() as conn:
        stored = store.load_game(conn, game_id)
    engine.dispose()
    assert stored is not None
    return stored


def _human_to_move(db: str, game_id: str) -> bool:
    game = rebuild(_stored(db, game_id))
    return game.state.is_over or game.state.to_move == 1


def _wait(check: Any, what: str, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _queue(url: str) -> Any:
    async def run(fn: Any) -> Any:
        queue = JobQueue.from_url(url)
        try:
            return await fn(queue)
        finally:
            await queue.close()

    return lambda fn: asyncio.run(run(fn))


def _worker(tmp: Path, db: str, redis: PrivateRedis, name: str, claim_after: float = 1.0) -> Child:
    command = kahuna("worker", "--db", db, "--broker", redis.url, "--consumer", name, "--claim-after", str(claim_after))
    worker = Child(command, tmp / f"{name}.log", env={**os.environ, "KAHUNA_DATA": str(tmp)}).start()
    _wait(lambda: "worker_redis" in worker.log() or not worker.alive(), f"worker {name} to start")
    assert worker.alive(), worker.log()
    return worker


def _jobs_done(*workers: Child) -> list[dict[str, Any]]:
    lines = []
    for worker in workers:
        for line in worker.log().splitlines():
            if '"event":"job_done"' in line:
                lines.append(json.loads(line))
    return lines


def _children(pid: int) -> list[int]:
    with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
        return [int(p) for p in fh.read().split()]


def _signal(pids: list[int], signum: int) -> None:
    assert pids
    for pid in pids:
        os.kill(pid, signum)


def _flush(redis: PrivateRedis) -> None:
    async def flush(queue: JobQueue) -> None:
        await queue.redis.flushdb()
        await queue.ensure_group()

    _queue(redis.url)(flush)


def test_a_queued_ai_turn_is_played_by_a_worker_and_acknowledged(tmp_path: Path, redis: PrivateRedis) -> None:
    _flush(redis)
    db = f"sqlite:///{tmp_path / 'k.db'}"
    game_id = _new_game(db, "medium", 1)
    worker = _worker(tmp_path, db, redis, "one")
    try:
        _queue(redis.url)(lambda q: q.submit(Job("ai", game_id, 0)))
        _wait(lambda: _human_to_move(db, game_id), "the AI's turn")
        stored = _stored(db, game_id)
        _wait(lambda: len(_jobs_done(worker)) >= len(stored.actions), "the last job's log line")
        done = _jobs_done(worker)
        assert [(d["version"], d["outcome"]) for d in done] == [(v, "played") for v in range(len(stored.actions))]
        assert _queue(redis.url)(lambda q: q.waiting()) == 0  # every job acknowledged and removed
        # The queue keeps a second submission of a job out; one that gets in all the same (added
        # by hand here) is past: acknowledged and dropped, nothing played.
        assert not _queue(redis.url)(lambda q: q.submit(Job("ai", game_id, 0)))
        _queue(redis.url)(lambda q: q.redis.xadd(q.stream, Job("ai", game_id, 0).fields()))
        _wait(lambda: len(_jobs_done(worker)) > len(done), "the past job")
        assert _jobs_done(worker)[-1]["outcome"] == "past"
        assert _stored(db, game_id).actions == stored.actions
    finally:
        worker.stop()


def test_a_worker_killed_mid_move_has_its_job_played_once_by_another(tmp_path: Path, redis: PrivateRedis) -> None:
    _flush(redis)
    db = f"sqlite:///{tmp_path / 'k.db'}"
    first = _worker(tmp_path, db, redis, "first")
    second: Child | None = None
    agent_processes: list[int] = []
    try:
        agent_processes = _children(first.pid)  # the agent's process (and multiprocessing's resource tracker)
        _signal(agent_processes, signal.SIGSTOP)  # the first worker's moves now take for ever
        game_id = _new_game(db, "medium", 2)
        _queue(redis.url)(lambda q: q.submit(Job("ai", game_id, 0)))

        async def pending_of_first(queue: JobQueue) -> int:
            rows = await queue.redis.xpending_range(queue.stream, GROUP, min="-", max="+", count=10)
            return sum(1 for row in rows if row["consumer"] == "first")

        _wait(lambda: _queue(redis.url)(pending_of_first) == 1, "the first worker to take the job")
        first.kill()
        _signal(agent_processes, signal.SIGKILL)
        assert _stored(db, game_id).actions == []
        second = _worker(tmp_path, db, redis, "second")
        _wait(lambda: _human_to_move(db, game_id), "the AI's turn, played by the second worker")
        stored = _stored(db, game_id)
        _wait(lambda: len(_jobs_done(second)) >= len(stored.actions), "the last job's log line")
        done = _jobs_done(second)
        assert done[0]["version"] == 0 and done[0]["outcome"] == "played" and done[0]["deliveries"] >= 2
        assert [d["version"] for d in done if d["outcome"] == "played"] == list(range(len(stored.actions)))
        assert _jobs_done(first) == []
        assert _queue(redis.url)(lambda q: q.waiting()) == 0
    finally:
        first.kill()
        for pid in agent_processes:  # stopped: they would not see their parent go
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        if second is not None:
            second.stop()


def test_a_slow_worker_and_its_successor_store_one_move_per_version(tmp_path: Path, redis: PrivateRedis) -> None:
    """The first worker is only slow, not dead: its job is claimed and played by the second; when
    the first one's agent answers at last, the database refuses its move (that version is played)
    and it drops the job as past."""
    _flush(redis)
    db = f"sqlite:///{tmp_path / 'k.db'}"
    first = _worker(tmp_path, db, redis, "first")
    second: Child | None = None
    agent_processes: list[int] = []
    try:
        agent_processes = _children(first.pid)
        _signal(agent_processes, signal.SIGSTOP)
        game_id = _new_game(db, "medium", 3)
        _queue(redis.url)(lambda q: q.submit(Job("ai", game_id, 0)))
        _wait(lambda: _queue(redis.url)(lambda q: q.pending()) == 1, "the first worker to take the job")
        second = _worker(tmp_path, db, redis, "second")
        _wait(lambda: _human_to_move(db, game_id), "the AI's turn, played by the second worker")
        stored = _stored(db, game_id)
        _signal(agent_processes, signal.SIGCONT)  # the first worker's agent answers now, too late
        _wait(lambda: _jobs_done(first) != [], "the first worker's answer")
        assert [(d["version"], d["outcome"]) for d in _jobs_done(first)] == [(0, "past")]
        assert _stored(db, game_id).actions == stored.actions
        played = [d["version"] for d in _jobs_done(first, second) if d["outcome"] == "played"]
        assert sorted(played) == list(range(len(stored.actions)))
        _wait(lambda: _queue(redis.url)(lambda q: q.waiting()) == 0, "every job acknowledged")
    finally:
        for pid in agent_processes:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
        first.stop()
        if second is not None:
            second.stop()


def test_after_a_redis_restart_the_worker_queues_the_due_moves_again(tmp_path: Path, redis: PrivateRedis) -> None:
    """Redis without persistence forgets the queue: the worker reconnects, sees a new server and
    queues from the database every AI move that is due."""
    _flush(redis)
    db = f"sqlite:///{tmp_path / 'k.db'}"
    worker = _worker(tmp_path, db, redis, "one")
    game_id = _new_game(db, "medium", 4)  # stored after the worker's first look: nobody queued it
    try:
        assert _queue(redis.url)(lambda q: q.waiting()) == 0
        assert _stored(db, game_id).actions == []
        redis.restart(down_for=0.5)
        _wait(lambda: _human_to_move(db, game_id), "the AI's turn after the restart")
        assert '"new_server":true' in worker.log()
    finally:
        worker.stop()


def _finished_game(db: str, seed: int) -> tuple[str, int]:
    """A game between two humans played to the end at random and stored as the server stores it;
    its id and number of actions."""
    rng = random.Random(seed)
    state = GameState.new(rng)
    while not state.is_over:
        state.apply(rng.choice(state.legal_actions()))
    game_id = _new_game(db, "medium", seed)
    engine = store.open_engine(db)
    with engine.begin() as conn:
        conn.execute(schema.games.update().where(schema.games.c.id == game_id).values(kind0="human", deal=state.deal))
        rows = [
            store.ActionRow(game_id, seq, seat, action.token, (), "playing", None, "2026-01-01T00:00:00Z")
            for seq, (seat, action) in enumerate(state.history)
        ]
        store.insert_actions(conn, rows)
        for idx, cards in enumerate(state.reshuffles):
            conn.execute(schema.reshuffles.insert().values(game_id=game_id, idx=idx, cards=cards))
        assert state.outcome is not None
        result = json.dumps(state.outcome.to_json())
        conn.execute(schema.games.update().where(schema.games.c.id == game_id).values(status="over", result=result))
    engine.dispose()
    return game_id, len(state.history)


def test_an_analysis_job_is_computed_by_a_worker_with_progress_and_stored_once(
    tmp_path: Path, redis: PrivateRedis
) -> None:
    _flush(redis)
    db = f"sqlite:///{tmp_path / 'k.db'}"
    game_id, version = _finished_game(db, 5)
    assert rebuild(_stored(db, game_id)).state.is_over
    worker = _worker(tmp_path, db, redis, "one")
    try:
        _queue(redis.url)(lambda q: q.submit_analysis(game_id, version, 1, 5))

        def stored_analysis() -> str | None:
            engine = store.open_engine(db)
            with engine.connect() as conn:
                query = schema.analyses.select().where(schema.analyses.c.game_id == game_id)
                row = conn.execute(query).mappings().first()
            engine.dispose()
            return None if row is None else str(row["result"])

        _wait(lambda: stored_analysis() is not None, "the analysis", timeout=60)
        result = json.loads(stored_analysis() or "")
        assert result["budget"] == 5 and result["moves"] and result["graph"]
        progress = _queue(redis.url)(lambda q: q.progress(game_id))
        assert progress["state"] == "done" and int(progress["done"]) == len(result["moves"]) + len(result["graph"]) - 1
        # Asked again (a second instance, a retry): found stored, nothing computed.
        _queue(redis.url)(lambda q: q.submit_analysis(game_id, version, 1, 5))
        _wait(lambda: [d["outcome"] for d in _jobs_done(worker)] == ["played", "past"], "the second job")
        assert _queue(redis.url)(lambda q: q.waiting()) == 0
    finally:
        worker.stop()


def test_with_a_broker_the_server_queues_ai_moves_unless_told_to_play_them(tmp_path: Path, redis: PrivateRedis) -> None:
    """``kahuna serve --broker`` computes no AI move: it queues it (and a worker plays it);
    ``--local-ai`` keeps playing them in the instance, as without a broker."""
    _flush(redis)
    queued = Server(tmp_path / "queued", args=("--broker", redis.url))
    local = Server(tmp_path / "local", args=("--broker", redis.url, "--local-ai"))
    for server in (queued, local):
        server.tmp.mkdir()
        server.start()
    try:
        game = queued.create(opponent="ai", level="medium", seat="second", name="P")
        _wait(lambda: _queue(redis.url)(lambda q: q.waiting()) == 1, "the queued AI move")
        other = local.create(opponent="ai", level="medium", seat="second", name="P")
        _wait(lambda: local.get(f"/api/games/{other['game_id']}").json()["version"] > 0, "the local AI move")
        assert queued.get(f"/api/games/{game['game_id']}").json()["version"] == 0  # meanwhile, nobody played it
        assert _queue(redis.url)(lambda q: q.waiting()) == 1  # the local one was not queued
        worker = _worker(tmp_path, queued.db, redis, "one")
        try:
            _wait(lambda: queued.get(f"/api/games/{game['game_id']}").json()["version"] > 0, "the worker's move")
        finally:
            worker.stop()
    finally:
        for server in (queued, local):
            server.stop()
