"""Web Push with a broker: the instance queues the push of a turn, a real ``kahuna worker`` (with
the same VAPID key) sends it, and the local push service decrypts it (``push_harness.py``). Its own
Redis server (deploy_harness.PrivateRedis) and SQLite file."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from deploy_harness import Child, PrivateRedis, kahuna
from push_harness import PushService
from server_harness import Server, run, wait_for
from test_accounts import signed_in
from test_push import events, friends_game, play_until_seat_1_moves, subscribe

pytestmark = [pytest.mark.redis, pytest.mark.slow]


def test_with_a_broker_the_worker_sends_what_the_instance_queues(tmp_path: Path) -> None:
    redis = PrivateRedis(tmp_path).start()
    pushes = PushService().start()
    key = str(tmp_path / "vapid.pem")
    # the worker connects only to public addresses, or to the hosts allowed as the instance does
    push_args = ("--vapid-key", key, "--vapid-subject", "mailto:ops@kahuna.test", "--push-insecure-host", "127.0.0.1")
    limits = ("--limit", "signups_burst=100", "--limit", "logins_burst=100")
    server = Server(tmp_path, args=("--broker", redis.url, *push_args, *limits))
    worker: Child | None = None
    try:
        server.start()
        command = kahuna("worker", "--db", server.db, "--broker", redis.url, "--consumer", "pusher", *push_args)
        worker = Child(command, tmp_path / "worker.log", env={**os.environ, "KAHUNA_DATA": str(tmp_path)}).start()
        pushes.server_key = server.get("/api/push/key").json()["key"]
        mia, ned = signed_in(server, "pushmia"), signed_in(server, "pushned")
        assert subscribe(ned, pushes.device("pushned")) == 204
        game_id, token = friends_game(server, mia, ned)
        run(play_until_seat_1_moves(server, game_id, token))
        wait_for(lambda: bool(pushes.got("pushned")), "the worker to send the push", timeout=30)
        assert pushes.got("pushned")[0]["kind"] == "your_turn" and pushes.got("pushned")[0]["game"] == game_id
        assert pushes.errors == []
        wait_for(lambda: '"event":"push_sent"' in worker.log(), "the worker to log it (after the push service took it)")
        assert events(server, "push_queued") and not events(server, "push_sent")  # the instance only queued it
    finally:
        if worker is not None:
            worker.stop()
        server.stop()
        pushes.stop()
        redis.stop()
