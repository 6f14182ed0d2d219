"""``/healthz`` and ``/readyz`` on a real ``kahuna serve`` (docs/deploy.md)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest
from scale_harness import redis_url
from server_harness import Server, wait_for

__all__ = ["redis_url"]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    s = Server(tmp_path)
    try:
        yield s.start()
    finally:
        s.stop()


def test_healthz_answers_and_readyz_checks_each_part(server: Server) -> None:
    health = server.get("/healthz")
    assert (health.status_code, health.json()) == (200, {"status": "ok"})
    ready = server.get("/readyz")
    assert ready.status_code == 200
    checks = {"database": "ok", "broker": "ok", "ai_pool": "ok", "serving": "ok"}
    assert ready.json() == {"ready": True, "checks": checks}


def test_readyz_is_503_when_the_database_is_not_at_the_newest_schema(server: Server) -> None:
    """A database another release moved to another revision: this instance must get no players."""
    path = server.db.removeprefix("sqlite:///")
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0001'")
    wait_for(lambda: server.get("/readyz").status_code == 503, "/readyz to say 503")
    body = server.get("/readyz").json()
    assert body["ready"] is False
    assert body["checks"]["database"].startswith("the database is at revision 0001, not ")
    assert (body["checks"]["broker"], body["checks"]["ai_pool"]) == ("ok", "ok")
    assert server.get("/healthz").status_code == 200  # the process still answers: no restart


def test_readyz_checks_the_broker_of_an_instance(tmp_path: Path, redis_url: str) -> None:
    s = Server(tmp_path, args=("--broker", redis_url))
    try:
        s.start()
        ready = s.get("/readyz")
        assert ready.status_code == 200, ready.text
        assert ready.json()["checks"] == {"database": "ok", "broker": "ok", "ai_pool": "ok", "serving": "ok"}
    finally:
        s.stop()
