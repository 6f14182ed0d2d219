"""The mail queue shared by two instances on PostgreSQL and Redis: a mail server that is down, then
back, gets every mail exactly once, whichever instance queued it (both send; the claims decide)."""

from __future__ import annotations

import secrets
from pathlib import Path

import httpx
import loopback
import pytest
import sqlalchemy
from mail_harness import MailServer
from scale_harness import pg_url, redis_url
from server_harness import Server, free_port, wait_for

__all__ = ["pg_url", "redis_url"]

pytestmark = [
    pytest.mark.pg,
    pytest.mark.redis,
    pytest.mark.slow,
    pytest.mark.long,
]  # two instances: make test-all (docs/testing.md, *Markers*)

PASSWORD = "tide-pool-basalt"


def statuses(url: str) -> list[str]:
    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            return [row[0] for row in conn.execute(sqlalchemy.text("SELECT status FROM mail_queue ORDER BY id"))]
    finally:
        engine.dispose()


def test_two_instances_send_each_mail_once(tmp_path: Path, pg_url: str, redis_url: str) -> None:
    smtp_port = free_port()
    args = (
        *("--broker", redis_url, "--local-ai", "--smtp", f"smtp://127.0.0.1:{smtp_port}"),
        *("--limit", "mail_retry_seconds=0.2", "--limit", "mails_per_account_burst=100"),
        *("--limit", "signups_burst=100", "--limit", "logins_burst=100"),
    )
    servers = [Server(tmp_path / f"i{n}", args=args) for n in range(2)]
    mail_server = MailServer(smtp_port)
    run = secrets.token_hex(4)
    # budgets live in the shared Redis: a client address of this run's own meets fresh ones
    client_address = f"127.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}"
    started = False
    try:
        for server in servers:
            server.tmp.mkdir(exist_ok=True)
            server.db = pg_url
            server.start()  # one after the other: the first migrates
        addresses = []
        for n in range(8):
            server = servers[n % 2]
            username = f"pgmail{n}"
            transport = httpx.HTTPTransport(verify=loopback.NO_CA, local_address=client_address)
            with httpx.Client(verify=loopback.NO_CA, base_url=server.url, timeout=10, transport=transport) as http:
                assert http.post("/api/accounts", json={"username": username, "password": PASSWORD}).status_code == 201
                assert http.post("/api/session", json={"username": username, "password": PASSWORD}).status_code == 200
                address = f"{run}-{n}@example.org"
                answer = http.put(
                    "/api/me/email", json={"email": address}, headers={"X-CSRF-Token": http.cookies["csrf"]}
                )
                assert answer.status_code == 202, answer.text
                addresses.append(address)
        wait_for(lambda: all('"event":"mail_delayed"' in server.log() for server in servers), "both instances trying")
        mail_server.start()
        started = True
        wait_for(lambda: statuses(pg_url) == ["sent"] * 8, "every mail sent", timeout=30)
        assert sorted(mail["To"] for mail in mail_server.inbox.mails) == sorted(addresses)  # each once
        senders = [server.log().count('"event":"mail_sent"') for server in servers]
        print(f"\nmails sent by each instance: {senders}")
        assert sum(senders) == 8
    finally:
        for server in servers:
            server.stop()
        if started:
            mail_server.stop()
