"""Smaller attacks of issue 45 (point 10), against a real server: a password made of the reversed
username, a deleted account left in its tournaments.

Each test prints the figure it measured (``figure: ...``; ``pytest -s`` shows it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_harness import Server
from test_account_attacks import PASSWORD, csrf, from_address, signed_in, unique

CLOCK = {"initial": 300, "increment": 3}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    args = ("--limit", "signups_burst=200", "--limit", "logins_burst=200")
    running = Server(tmp_path_factory.mktemp("smaller-attacks"), args=args).start()
    yield running
    running.stop()


def test_the_reversed_username_short_of_its_last_characters_is_no_password(server: Server) -> None:
    tried = [
        (name, name[::-1][:-cut]) for cut, name in ((1, "Marigold_Tern"), (2, "Basalt_Heron"), (3, "Quillwort_Zephyr"))
    ]
    accepted = []
    with from_address(server) as http:
        for username, password in tried:
            answer = http.post("/api/accounts", json={"username": username, "password": password})
            assert answer.status_code in (201, 422), answer.text
            if answer.status_code == 201:
                accepted.append(password)
            else:
                assert answer.json()["reason"] == {"code": "password_username"}, answer.text
    print(f"\nfigure: {len(accepted)} of {len(tried)} passwords of the reversed username accepted: {accepted}")
    assert accepted == []


def test_a_deleted_account_leaves_its_tournaments_and_is_never_paired(server: Server) -> None:
    """Three players join a Swiss; one deletes its account; the creator starts the event: the
    deleted account is no active player, and no board pairs it."""
    names = [unique("tour") for _ in range(3)]
    browsers = [signed_in(server, name) for name in names]
    event = {"kind": "swiss", "name": "After deletion", "clock": CLOCK, "rounds": 1}
    made = browsers[0].post("/api/tournaments", json=event, headers=csrf(browsers[0]))
    assert made.status_code == 201, made.text
    tid = made.json()["tournament_id"]
    for browser in browsers:
        assert browser.post(f"/api/tournaments/{tid}/join", headers=csrf(browser)).status_code == 204
    gone = browsers[2].request("DELETE", "/api/me", json={"password": PASSWORD}, headers=csrf(browsers[2]))
    assert gone.status_code == 204, gone.text
    assert browsers[0].post(f"/api/tournaments/{tid}/start", headers=csrf(browsers[0])).status_code == 204
    shown = browsers[0].get(f"/api/tournaments/{tid}").json()
    active = [p["username"] for p in shown["players"] if p["active"]]
    seated = [name for boards in shown["rounds"] for board in boards for name in board["players"] if name]
    paired = seated.count(names[2])
    print(f"\nfigure: after deletion the account is active: {names[2] in active}, paired on {paired} board(s)")
    assert names[2] not in active and paired == 0
