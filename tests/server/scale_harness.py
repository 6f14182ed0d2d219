"""Test harness for the scale-out tests: PostgreSQL and Redis on 127.0.0.1.

Each PostgreSQL test gets a database of its own (``kahuna_test_<random>``, dropped afterwards), so
that engineers and CI runs on one machine never see each other's rows. Each Redis test gets a
channel prefix of its own. A test marked ``pg`` or ``redis`` skips when the service does not
answer, except in CI (``CI`` set), where the run must fail instead: ``.ci/run`` starts both.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from server_harness import Server
from sqlalchemy import Engine

from kahuna.server.db import store

PG_HOST, PG_PORT = "127.0.0.1", 5432
REDIS_HOST, REDIS_PORT = "127.0.0.1", 6379
ADMIN_URL = f"postgresql://postgres@{PG_HOST}:{PG_PORT}/postgres"


def _answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def require_service(name: str, host: str, port: int) -> None:
    """Skip the test if ``name`` does not answer on ``host:port`` (fail in CI)."""
    if _answers(host, port):
        return
    message = f"{name} does not answer on {host}:{port}"
    if os.environ.get("CI"):
        pytest.fail(message + " (CI must run this test: .ci/run starts it)")
    pytest.skip(message)


def create_database() -> str:
    """A new empty database; its URL (plain ``postgresql://`` scheme, as a user writes it)."""
    import psycopg

    name = "kahuna_test_" + secrets.token_hex(6)
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return f"postgresql://postgres@{PG_HOST}:{PG_PORT}/{name}"


def drop_database(url: str) -> None:
    import psycopg

    name = url.rsplit("/", 1)[1]
    assert name.startswith("kahuna_test_")
    with psycopg.connect(ADMIN_URL, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh PostgreSQL database for one test, dropped afterwards."""
    require_service("PostgreSQL", PG_HOST, PG_PORT)
    url = create_database()
    try:
        yield url
    finally:
        drop_database(url)


@pytest.fixture
def database(pg_url: str) -> Iterator[Engine]:
    """An engine on :func:`pg_url`'s fresh database, for the tests that write its rows and race
    its transactions directly (no server)."""
    engine = store.open_engine(pg_url)
    yield engine
    engine.dispose()


@pytest.fixture
def redis_url() -> str:
    """Redis on 127.0.0.1, database 0."""
    require_service("Redis", REDIS_HOST, REDIS_PORT)
    return f"redis://{REDIS_HOST}:{REDIS_PORT}/0"


def start_instances(tmp: Path, db_url: str, args: tuple[str, ...], names: tuple[str, ...] = ("a", "b")) -> list[Server]:
    """A ``kahuna serve`` per name on the database ``db_url``, each in a folder of ``tmp`` of that
    name, all started with ``args`` (a broker, limits); those started are stopped again if one
    fails to start."""
    servers: list[Server] = []
    try:
        for name in names:
            (tmp / name).mkdir()
            server = Server(tmp / name, args=args)
            server.db = db_url
            servers.append(server.start())
    except BaseException:
        stop_all(servers)
        raise
    return servers


def stop_all(servers: list[Server]) -> None:
    for server in servers:
        server.stop()
