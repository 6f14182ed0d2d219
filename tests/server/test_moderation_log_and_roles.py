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
from test_moderation_reports import limited


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
