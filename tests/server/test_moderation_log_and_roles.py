"""The moderation log exported as JSON lines, and an admin granting and revoking ``moderator``
from the web (issue 48; docs/moderation.md), through a real server on SQLite."""

from __future__ import annotations

import json
from collections.abc import Iterator

import loopback
import pytest
from server_harness import Server
from test_accounts import csrf, signed_in
from test_moderation import moderator
from test_moderation_reports import limited, refused


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    running = limited(tmp_path_factory.mktemp("moderation-more"))
    yield running
    running.stop()


def test_the_whole_log_downloads_as_json_lines_oldest_first(server: Server) -> None:
    mia = moderator(server, "mia")
    signed_in(server, "pat").close()
    for n in range(3):
        warned = mia.post(
            "/api/mod/sanctions", json={"username": "pat", "kind": "warn", "reason": f"w{n}"}, headers=csrf(mia)
        )
        assert warned.status_code == 201, warned.text
    export = mia.get("/api/mod/log.jsonl")
    assert export.status_code == 200, export.text
    assert export.headers["content-type"] == "application/x-ndjson"
    assert export.headers["content-disposition"] == 'attachment; filename="kahuna-moderation-log.jsonl"'
    lines = export.text.splitlines()
    assert export.text.endswith("\n") and all(lines)
    listed = mia.get("/api/mod/log").json()["entries"]
    assert [json.loads(line) for line in lines] == listed[::-1]
    assert [entry["reason"] for entry in listed[:3]] == ["w2", "w1", "w0"]

    pat = signed_in(server, "pat2")
    nothing = server.get("/api/mod/nothing-here").json()
    for answer in (pat.get("/api/mod/log.jsonl"), loopback.get(server.url + "/api/mod/log.jsonl", timeout=10)):
        assert (answer.status_code, answer.json()) == (404, nothing)
    for browser in (mia, pat):
        browser.close()


def test_an_admin_grants_and_revokes_moderator_from_the_web(server: Server) -> None:
    ada = moderator(server, "ada", "admin")
    kim = signed_in(server, "kim")
    a = csrf(ada)
    assert kim.get("/api/mod/reports").status_code == 404

    def names() -> list[str]:
        return [m["username"] for m in ada.get("/api/mod/roles").json()["moderators"]]

    others = names()  # the other tests' moderators on the same server
    assert "kim" not in others

    granted = ada.post("/api/mod/roles", json={"username": "kim", "role": "moderator"}, headers=a)
    assert granted.status_code == 204, granted.text
    assert kim.get("/api/mod/reports").status_code == 200  # at once
    assert (kim.get("/api/me").json()["moderates"], kim.get("/api/me").json()["admin"]) == (True, False)
    assert ada.get("/api/me").json()["admin"] is True  # /mod shows it the moderators' tab
    assert names() == sorted([*others, "kim"])

    gone = ada.delete("/api/mod/roles/kim/moderator", headers=a)
    assert gone.status_code == 204, gone.text
    assert kim.get("/api/mod/reports").status_code == 404  # on the next request
    assert names() == others

    story = [(e["actor"], e["action"], e["target"], e["detail"]) for e in ada.get("/api/mod/log").json()["entries"][:2]]
    assert story == [("ada", "revoke", "kim", {"role": "moderator"}), ("ada", "grant", "kim", {"role": "moderator"})]
    for browser in (ada, kim):
        browser.close()


def test_roles_from_the_web_refused_change_nothing(server: Server) -> None:
    eve = moderator(server, "eve", "admin")
    mo = moderator(server, "mo")
    pia = signed_in(server, "pia")
    e, m = csrf(eve), csrf(mo)
    before = eve.get("/api/mod/log").json(), eve.get("/api/mod/roles").json()

    grant = {"username": "pia", "role": "moderator"}
    refused(mo.post("/api/mod/roles", json=grant, headers=m), 403, "admin_only")
    refused(mo.delete("/api/mod/roles/mo/moderator", headers=m), 403, "admin_only")
    refused(mo.get("/api/mod/roles"), 403, "admin_only")
    nothing = server.get("/api/mod/nothing-here").json()
    for answer in (
        pia.post("/api/mod/roles", json=grant, headers=csrf(pia)),
        pia.get("/api/mod/roles"),
        loopback.post(server.url + "/api/mod/roles", json=grant, timeout=10),
        eve.post("/api/mod/roles", json=grant),  # no CSRF header
    ):
        assert (answer.status_code, answer.json()) == (404, nothing), answer.text

    refused(eve.post("/api/mod/roles", json={"username": "pia", "role": "admin"}, headers=e), 422, "command_line_only")
    refused(eve.delete("/api/mod/roles/eve/admin", headers=e), 422, "command_line_only")
    refused(eve.post("/api/mod/roles", json={"username": "pia", "role": "boss"}, headers=e), 422, "invalid")
    refused(eve.post("/api/mod/roles", json={"username": "nobody", "role": "moderator"}, headers=e), 404, "not_found")
    refused(eve.post("/api/mod/roles", json={"username": "mo", "role": "moderator"}, headers=e), 409, "already_held")
    refused(eve.delete("/api/mod/roles/pia/moderator", headers=e), 409, "not_held")
    refused(eve.delete("/api/mod/roles/nobody/moderator", headers=e), 404, "not_found")

    assert (eve.get("/api/mod/log").json(), eve.get("/api/mod/roles").json()) == before
    assert pia.get("/api/mod/reports").status_code == 404
    assert mo.get("/api/mod/reports").status_code == 200
    for browser in (eve, mo, pia):
        browser.close()
