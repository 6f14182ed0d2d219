"""The community's features under attack, against a real server: events that would make the server
play itself (AI compute for free).

Each test prints the figure it measured (``figure: ...``; ``pytest -s`` shows it)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_harness import Server
from test_account_attacks import csrf, signed_in, unique

CLOCK = {"initial": 300, "increment": 3}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    args = ("--limit", "signups_burst=200", "--limit", "logins_burst=200")
    running = Server(tmp_path_factory.mktemp("community-attacks"), args=args).start()
    yield running
    running.stop()


def test_an_event_of_ai_levels_only_does_not_start(server: Server) -> None:
    """One account creates an Arena, invites two AI levels and starts it: the server would play
    itself for the Arena's length. It needs a person among its players."""
    organiser = signed_in(server, unique("aiarena"))
    event = {"kind": "arena", "name": "Machines only", "clock": CLOCK, "minutes": 60}
    made = organiser.post("/api/tournaments", json=event, headers=csrf(organiser))
    assert made.status_code == 201, made.text
    tid = made.json()["tournament_id"]
    for level in ("ai-easy", "ai-medium"):
        invited = organiser.post(f"/api/tournaments/{tid}/invite", json={"username": level}, headers=csrf(organiser))
        assert invited.status_code == 204, invited.text
    started = organiser.post(f"/api/tournaments/{tid}/start", headers=csrf(organiser))
    shown = organiser.get(f"/api/tournaments/{tid}").json()
    boards = sum(len(boards) for boards in shown["rounds"])
    print(f"\nfigure: an Arena of AI levels only: start {started.status_code}, {shown['status']}, {boards} game(s)")
    assert started.status_code == 409 and started.json()["error"] == "too_few_players", started.text
    assert shown["status"] == "created" and boards == 0
