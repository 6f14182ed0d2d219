"""Accounts on PostgreSQL (``kahuna serve --db postgresql://…``): sign-up, case and look-alike
uniqueness, sign-in, a token, adoption and deletion, against a real server."""

from __future__ import annotations

from pathlib import Path

import httpx
import loopback
import pytest
from scale_harness import pg_url
from server_harness import Server

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg

PASSWORD = "tide-pool-basalt"


def test_accounts_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    server = Server(tmp_path)
    server.db = pg_url
    server.start()
    try:
        game = server.create(opponent="human", name="Guest")
        assert server.post("/api/accounts", {"username": "Kalani", "password": PASSWORD}).status_code == 201
        assert server.post("/api/accounts", {"username": "KaIani", "password": PASSWORD}).status_code == 409
        browser = httpx.Client(verify=loopback.NO_CA, base_url=server.url, timeout=10)
        signed = browser.post(
            "/api/session", json={"username": "kalani", "password": PASSWORD, "tokens": [game["token"]]}
        )
        assert signed.status_code == 200 and signed.json()["adopted"] == 1
        csrf = {"X-CSRF-Token": browser.cookies["csrf"]}
        made = browser.post(
            "/api/tokens", json={"name": "bot", "password": PASSWORD, "scopes": ["play"]}, headers=csrf
        ).json()
        program = httpx.Client(
            verify=loopback.NO_CA, base_url=server.url, headers={"Authorization": f"Bearer {made['token']}"}, timeout=10
        )
        assert program.get("/api/me").json()["username"] == "Kalani"
        assert [g["game_id"] for g in program.get("/api/me/games").json()] == [game["game_id"]]
        assert browser.request("DELETE", "/api/me", json={"password": PASSWORD}, headers=csrf).status_code == 204
        assert program.get("/api/me").status_code == 401
        assert server.post("/api/session", {"username": "Kalani", "password": PASSWORD}).status_code == 401
        assert server.get(f"/api/games/{game['game_id']}").json()["players"][game["seat"]] == "(deleted player)"
    finally:
        server.stop()
