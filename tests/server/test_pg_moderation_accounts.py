"""The account sanctions on PostgreSQL (issue 48): a cheating mark giving the opponent its points
back (the refund's row and the leaderboard's condition), a close refusing the sign-in until its
undo, sign-ups blocked from the account's address (the upsert of its address, the block's query)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import httpx
import loopback
import pytest
from scale_harness import pg_url
from server_harness import Server
from test_accounts import PASSWORD, csrf, signed_in
from test_lobby import play_then_resign
from test_moderation_accounts import board, made, rating, sanction, signed_in_answer
from test_moderation_reports import refused
from test_social import rated_seats

from kahuna.bench.lobby import new_account
from kahuna.cli import main

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg


def test_account_sanctions_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    server = Server(tmp_path, args=("--limit", "signups_burst=20", "--limit", "logins_burst=20"))
    server.db = pg_url
    server.start()
    try:

        async def accounts() -> list[dict[str, str]]:
            return [await new_account(server.url, name) for name in ("pgcheat", "pgvictim")]

        seats = asyncio.run(rated_seats(server.url, asyncio.run(accounts())))
        asyncio.run(play_then_resign(server.url, seats, 2, seed=5, loser=1))
        assert rating(server, "pgvictim") < 1500
        mod = signed_in(server, "pgmod")
        assert main(["admin", "grant", "pgmod", "moderator", "--db", pg_url]) == 0
        mark = made(sanction(mod, "pgcheat", "mark_cheating"))
        assert rating(server, "pgvictim") == 1500
        assert "pgcheat" not in board(server)
        refused(sanction(mod, "pgcheat", "mark_cheating"), 409, "already_marked")
        assert mod.delete(f"/api/mod/sanctions/{mark}", headers=csrf(mod)).status_code == 204
        assert "pgcheat" in board(server)

        transport = httpx.HTTPTransport(local_address="127.0.8.1", verify=loopback.NO_CA)
        home = httpx.Client(base_url=server.url, transport=transport, timeout=10)
        assert home.post("/api/accounts", json={"username": "pgpat", "password": PASSWORD}).status_code == 201
        assert signed_in_answer(server, "pgpat").status_code == 200
        closing = made(sanction(mod, "pgpat", "close"))
        refused(signed_in_answer(server, "pgpat"), 403, "account_closed")
        assert mod.delete(f"/api/mod/sanctions/{closing}", headers=csrf(mod)).status_code == 204
        assert signed_in_answer(server, "pgpat").status_code == 200

        made(sanction(mod, "pgpat", "block_signups", minutes=10))
        refused(home.post("/api/accounts", json={"username": "pgpat2", "password": PASSWORD}), 403, "signups_blocked")
    finally:
        server.stop()
