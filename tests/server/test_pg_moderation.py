"""Moderation on PostgreSQL (issue 48): ``kahuna admin grant`` and ``revoke`` with ``--db
postgresql://…`` holding on the running server's next request, a report (and the open one refused
a second time by the partial unique index's rule), a warning on it and its undo, once; a warning
appealed once and overturned by the only moderator."""

from __future__ import annotations

from pathlib import Path

import pytest
from scale_harness import pg_url
from server_harness import Server
from test_accounts import csrf, signed_in
from test_moderation_reports import refused

from kahuna.cli import main

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg


def test_roles_reports_and_sanctions_on_postgresql(tmp_path: Path, pg_url: str) -> None:
    server = Server(tmp_path, args=("--limit", "signups_burst=20"))
    server.db = pg_url
    server.start()
    try:
        ivy, jay, kit = signed_in(server, "ivy"), signed_in(server, "jay"), signed_in(server, "kit")
        assert ivy.get("/api/mod/reports").status_code == 404
        assert main(["admin", "grant", "ivy", "moderator", "--db", pg_url]) == 0
        assert main(["admin", "grant", "nobody", "moderator", "--db", pg_url]) == 1
        made = jay.post("/api/reports", json={"username": "kit", "reason": "spam"}, headers=csrf(jay))
        assert made.status_code == 201, made.text
        refused(
            jay.post("/api/reports", json={"username": "kit", "reason": "other"}, headers=csrf(jay)),
            409,
            "already_reported",
        )
        queue = ivy.get("/api/mod/reports").json()["reports"]
        assert [(r["username"], r["reporter"], r["context"]) for r in queue] == [("kit", "jay", {})]
        warn = {"username": "kit", "kind": "warn", "reason": "no spam", "report_id": made.json()["report_id"]}
        sanction = ivy.post("/api/mod/sanctions", json=warn, headers=csrf(ivy))
        assert sanction.status_code == 201, sanction.text
        assert [r["status"] for r in jay.get("/api/me/reports").json()["reports"]] == ["acted_on"]
        path = f"/api/mod/sanctions/{sanction.json()['sanction_id']}"
        assert ivy.delete(path, headers=csrf(ivy)).status_code == 204
        refused(ivy.delete(path, headers=csrf(ivy)), 409, "already_undone")
        again = jay.post("/api/reports", json={"username": "kit", "reason": "other"}, headers=csrf(jay))
        assert again.status_code == 201  # the first is no longer open
        again_warned = {"username": "kit", "kind": "warn", "reason": "again"}
        second = ivy.post("/api/mod/sanctions", json=again_warned, headers=csrf(ivy)).json()["sanction_id"]
        appeal = kit.post(f"/api/me/sanctions/{second}/appeal", json={"note": "not me"}, headers=csrf(kit))
        assert appeal.status_code == 201, appeal.text
        refused(
            kit.post(f"/api/me/sanctions/{second}/appeal", json={"note": "again"}, headers=csrf(kit)),
            409,
            "already_appealed",
        )
        decision = {"decision": "overturned", "reason": "fair"}  # ivy, the only moderator, decides
        assert (
            ivy.post(f"/api/mod/appeals/{appeal.json()['appeal_id']}", json=decision, headers=csrf(ivy)).status_code
            == 204
        )
        assert [s["undone"] for s in kit.get("/api/me/sanctions").json()["sanctions"]] == [True, True]
        actions = [entry["action"] for entry in ivy.get("/api/mod/log").json()["entries"]]
        assert actions == ["decide_appeal", "undo", "appeal", "sanction", "undo", "sanction", "grant"]
        assert main(["admin", "revoke", "ivy", "moderator", "--db", pg_url]) == 0
        assert ivy.get("/api/mod/log").status_code == 404
        for browser in (ivy, jay, kit):
            browser.close()
    finally:
        server.stop()
