"""Notifications behind ``kahuna serve --broker`` (PostgreSQL and Redis): the instances queue mail,
only ``kahuna worker --smtp`` sends it; two instances scanning the same games queue each reminder
once (the ``notices`` key decides), and its one-click unsubscribe works on either instance."""

from __future__ import annotations

import os
import secrets
from pathlib import Path

import httpx
import loopback
import pytest
import sqlalchemy
from deploy_harness import Child, kahuna
from mail_harness import MailServer, body, link_token
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
TURN = "Kahuna: it is your turn"


def rows(url: str, query: str) -> list[tuple[object, ...]]:
    engine = sqlalchemy.create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            return [tuple(row) for row in conn.execute(sqlalchemy.text(query))]
    finally:
        engine.dispose()


def test_the_worker_sends_and_two_instances_queue_each_reminder_once(
    tmp_path: Path, pg_url: str, redis_url: str
) -> None:
    smtp = MailServer(free_port()).start()
    run = secrets.token_hex(4)
    args = (
        *("--broker", redis_url, "--smtp", f"smtp://127.0.0.1:{smtp.port}", "--mail-from", "Kahuna <k@kahuna.test>"),
        *("--limit", "notice_scan_seconds=0.1", "--limit", "your_turn_after_seconds=1"),
        *("--limit", "mails_per_account_burst=100", "--limit", "mails_per_address_burst=100"),
        *("--limit", "notice_mails_per_account_burst=100", "--limit", "notice_mails_per_address_burst=100"),
        *("--limit", "signups_burst=100", "--limit", "logins_burst=100"),
    )
    servers = [Server(tmp_path / f"i{n}", args=args) for n in range(2)]
    worker: Child | None = None
    # budgets live in the shared Redis: a client address of this run's own meets fresh ones
    client_address = f"127.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}.{secrets.randbelow(250) + 1}"
    clients: list[httpx.Client] = []
    try:
        for server in servers:
            server.tmp.mkdir(exist_ok=True)
            server.db = pg_url
            server.start()  # one after the other: the first migrates

        def signed_in(server: Server, name: str) -> httpx.Client:
            transport = httpx.HTTPTransport(verify=loopback.NO_CA, local_address=client_address)
            http = httpx.Client(verify=loopback.NO_CA, base_url=server.url, timeout=10, transport=transport)
            clients.append(http)
            assert http.post("/api/accounts", json={"username": name, "password": PASSWORD}).status_code == 201
            assert http.post("/api/session", json={"username": name, "password": PASSWORD}).status_code == 200
            http.headers["X-CSRF-Token"] = http.cookies["csrf"]
            answer = http.put("/api/me/email", json={"email": f"{run}-{name}@example.org"})
            assert answer.status_code == 202, answer.text
            return http

        players = [signed_in(servers[n % 2], f"pgn{n}_{run}") for n in range(4)]
        addresses = [f"{run}-pgn{n}_{run}@example.org" for n in range(4)]
        assert rows(pg_url, "SELECT status FROM mail_queue") == [("queued",)] * 4  # no instance sends

        command = kahuna(
            "worker", "--db", pg_url, "--broker", redis_url, "--consumer", f"mail-{run}",
            "--smtp", f"smtp://127.0.0.1:{smtp.port}", "--mail-from", "Kahuna <k@kahuna.test>",
        )  # fmt: skip
        worker = Child(command, tmp_path / "worker.log", env={**os.environ, "KAHUNA_DATA": str(tmp_path)}).start()
        for address in addresses:
            _, token = link_token(smtp.inbox.wait(address)[0])
            assert loopback.post(f"{servers[0].url}/api/email/verify", json={"token": token}).status_code == 204

        games = []
        for n in range(4):  # player n (seat 0, to move) against player n+1, on alternating instances
            first, second = players[n], players[(n + 1) % 4]
            made = first.post(
                "/api/games", json={"opponent": "human", "seat": "first", "clock": {"days": 1}, "name": f"p{n}"}
            )
            assert made.status_code == 201, made.text
            invite = made.json()["invite_url"].rsplit("/", 1)[1]
            assert second.post(f"/api/join/{invite}", json={"name": f"q{n}"}).status_code == 200
            games.append(made.json()["game_id"])

        def turn_mails(n: int) -> list[str]:
            return [body(m) for m in smtp.inbox.to(addresses[n]) if m["Subject"] == TURN]

        wait_for(lambda: all(turn_mails(n) for n in range(4)), "every player's turn mail", timeout=30)
        for n in range(4):
            (mail,) = turn_mails(n)
            assert games[n] in mail
        decided = rows(pg_url, "SELECT subject FROM notices WHERE kind = 'your_turn'")
        assert sorted(str(row[0]) for row in decided) == sorted(games)
        assert all(s == ("sent",) for s in rows(pg_url, "SELECT status FROM mail_queue"))
        senders = [server.log().count('"event":"mail_sent"') for server in servers]
        assert senders == [0, 0]
        assert worker.log().count('"event":"mail_sent"') == 8
        queued_by = [server.log().count('"status":"queued"') for server in servers]
        print(f"\nreminders queued by each instance: {queued_by}")
        assert sum(queued_by) == 4

        # the one-click link of a mail works on the other instance
        (mail_0,) = [m for m in smtp.inbox.to(addresses[0]) if m["Subject"] == TURN]
        link = str(mail_0["List-Unsubscribe"]).strip("<>")
        (queued_on,) = [n for n in range(2) if link.startswith(servers[n].url + "/")]
        link = link.replace(servers[queued_on].url, servers[1 - queued_on].url, 1)
        clicked = loopback.post(link, data={"List-Unsubscribe": "One-Click"})
        assert clicked.status_code == 200 and clicked.json() == {"kind": "your_turn", "mail": False}
        assert players[0].get("/api/me/notifications").json()["kinds"]["your_turn"]["mail"] is False
    finally:
        for http in clients:
            http.close()
        if worker is not None:
            worker.stop()
        for server in servers:
            server.stop()
        smtp.stop()
