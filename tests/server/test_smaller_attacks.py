"""Smaller attacks of issue 45 (point 10), against a real server: a password made of the reversed
username, a deleted account left in its tournaments, take-back floods, tournaments pairing a blocked
pair or one player in two Arenas at once, a few addresses filling the listed upcoming events.

Each test prints the figure it measured (``figure: ...``; ``pytest -s`` shows it)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from server_harness import Conn, Player, Server, connect, run
from test_account_attacks import PASSWORD, csrf, from_address, signed_in, unique

from kahuna.server.common.config import Limits
from kahuna.server.games.messages import MAX_DECLINED_TAKEBACKS, MAX_TAKEBACKS

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


async def _answers(conn: Conn, kind: str, count: int) -> list[dict[str, Any]]:
    """Send ``count`` requests of ``kind`` at once; their ``ack`` or ``error`` answers, in order."""
    for n in range(count):
        await conn.send(type=kind, id=f"{kind}-{n}")
    answers: list[dict[str, Any]] = []
    while len(answers) < count:
        answers.append(
            await conn.until(lambda m: m["type"] in ("ack", "error") and str(m.get("id")).startswith(f"{kind}-"))
        )
    return answers


def _count(conn: Conn, kind: str) -> int:
    return sum(1 for text in conn.texts if json.loads(text)["type"] == kind)


def _a_build(player: Player) -> str:
    build: str = next(token for token in player.last["legal"] if ">" in token)
    return build


def test_take_back_requests_reach_the_others_a_bounded_number_of_times(server: Server) -> None:
    """The seat to move sends 100 take-back requests at once, then asks again after each of five
    declines: the opponent and a spectator get each request it is let through, nothing more."""
    host = server.create(opponent="human", seat="first", name="Asker")
    friend = server.post(f"/api/join/{host['invite_url'].rsplit('/', 1)[1]}", {"name": "Asked"}).json()
    flood, rounds = 100, 5

    async def scenario() -> tuple[int, int, int, list[str]]:
        black = await Player.join(server, host["game_id"], host["token"])
        white = await Player.join(server, host["game_id"], friend["token"])
        watcher = await connect(server, host["game_id"])
        await black.play(_a_build(black))
        await white.reach(black.version)
        await _answers(black.conn, "takeback", flood)
        declined = 0
        refused = []
        for _ in range(rounds):
            (answer,) = await _answers(white.conn, "takeback_decline", 1)  # after every request sent before
            declined += answer["type"] == "ack"
            (asked,) = await _answers(black.conn, "takeback", 1)
            if asked["type"] == "error":
                refused.append(asked["code"])
        await _answers(white.conn, "takeback_decline", 1)
        await _answers(watcher, "takeback", 1)  # answered after every message queued before it
        return _count(white.conn, "takeback_offered"), _count(watcher, "takeback_offered"), declined, refused

    to_opponent, to_watcher, declined, refused = run(scenario())
    print(
        f"\nfigure: {flood} requests at once, then {rounds} asked after a decline: the opponent got"
        f" {to_opponent} take-back requests, the spectator {to_watcher}; declined {declined}; refused {refused}"
    )
    assert to_opponent == to_watcher == 1 + MAX_DECLINED_TAKEBACKS - 1
    assert refused == ["takeback_limit"] * (rounds - MAX_DECLINED_TAKEBACKS + 1)


def test_take_backs_against_the_ai_are_bounded_per_game(server: Server) -> None:
    """A card play and its take-back, 30 times against the AI (which accepts at once): the game
    stores at most ``MAX_TAKEBACKS`` take-backs, then the request is refused ``takeback_limit``."""
    created = server.create(opponent="ai", level="easy", seat="first")
    tries = 30

    async def scenario() -> tuple[int, list[str], int]:
        me = await Player.join(server, created["game_id"], created["token"])
        build = _a_build(me)
        taken, refused = 0, []
        for _ in range(tries):
            await me.play(build)
            (answer,) = await _answers(me.conn, "takeback", 1)
            if answer["type"] == "error":
                refused.append(answer["code"])
                break
            taken += 1
            me.last = [m for m in map(json.loads, me.conn.texts) if m["type"] == "sync"][-1]  # sent before the ack
        return taken, refused, me.version

    taken, refused, version = run(scenario())
    print(f"\nfigure: {tries} play-and-take-back rounds against the AI: {taken} take-backs stored (log at {version})")
    assert taken == MAX_TAKEBACKS and refused == ["takeback_limit"]


def test_a_tournament_never_pairs_two_players_one_of_whom_blocks_the_other(server: Server) -> None:
    """A Swiss and an Arena of two players, one of whom blocks the other: the creator starts each,
    and no board pairs them (the Swiss has no round to play and ends; the Arena waits)."""
    blocker, blocked = unique("blocker"), unique("blocked")
    browsers = [signed_in(server, name) for name in (blocker, blocked)]
    assert browsers[0].post(f"/api/users/{blocked}/block", headers=csrf(browsers[0])).status_code == 204
    paired = {}
    for kind, length in (("swiss", {"rounds": 1}), ("arena", {"minutes": 5})):
        event = {"kind": kind, "name": f"Apart {kind}", "clock": CLOCK, **length}
        made = browsers[0].post("/api/tournaments", json=event, headers=csrf(browsers[0]))
        assert made.status_code == 201, made.text
        tid = made.json()["tournament_id"]
        for browser in browsers:
            assert browser.post(f"/api/tournaments/{tid}/join", headers=csrf(browser)).status_code == 204
        assert browsers[0].post(f"/api/tournaments/{tid}/start", headers=csrf(browsers[0])).status_code == 204
        shown = browsers[0].get(f"/api/tournaments/{tid}").json()  # the start paired what it paired
        paired[kind] = sum(1 for boards in shown["rounds"] for board in boards if None not in board["players"])
    print(f"\nfigure: boards pairing a blocker with the account it blocks: {paired}")
    assert paired == {"swiss": 0, "arena": 0}


def test_a_player_in_two_arenas_plays_one_clock_at_a_time(server: Server) -> None:
    """A player joins two Arenas (each with one opponent); the first starts and pairs it; the
    second starts while that game runs: the player waits there (its opponent too)."""
    player, first_opponent, second_opponent = (unique(prefix) for prefix in ("twice", "first", "second"))
    browsers = {name: signed_in(server, name) for name in (player, first_opponent, second_opponent)}
    running = 0
    for creator in (first_opponent, second_opponent):
        host = browsers[creator]
        event = {"kind": "arena", "name": f"Arena of {creator}", "clock": CLOCK, "minutes": 5}
        made = host.post("/api/tournaments", json=event, headers=csrf(host))
        assert made.status_code == 201, made.text
        tid = made.json()["tournament_id"]
        for browser in (browsers[player], host):
            assert browser.post(f"/api/tournaments/{tid}/join", headers=csrf(browser)).status_code == 204
        assert host.post(f"/api/tournaments/{tid}/start", headers=csrf(host)).status_code == 204
        mine = browsers[player].get(f"/api/tournaments/{tid}/me").json()  # the start paired what it paired
        running += mine["game_id"] is not None
    print(f"\nfigure: games of one player running at once in two Arenas: {running}")
    assert running == 1


def test_a_few_addresses_cannot_fill_the_listed_upcoming_tournaments(server: Server) -> None:
    """A real event is announced; then 17 accounts from 4 addresses each create 3 events (the most
    one account may have): the real event is still on the list of upcoming events."""
    real_host = signed_in(server, unique("real"), "127.0.45.9")
    event = {"kind": "swiss", "name": "The real one", "clock": CLOCK, "rounds": 3}
    real = real_host.post("/api/tournaments", json=event, headers=csrf(real_host)).json()["tournament_id"]
    created = refused = 0
    for n in range(17):
        flooder = signed_in(server, unique("flood"), f"127.0.45.{1 + n % 4}")
        for _ in range(3):
            made = flooder.post("/api/tournaments", json={**event, "name": "Spam"}, headers=csrf(flooder))
            assert made.status_code in (201, 429), made.text
            created += made.status_code == 201
            refused += made.status_code == 429
    upcoming = [e["tournament_id"] for e in real_host.get("/api/tournaments").json()["upcoming"]]
    print(
        f"\nfigure: 17 accounts from 4 addresses created {created} events ({refused} refused);"
        f" the real event listed among {len(upcoming)} upcoming: {real in upcoming}"
    )
    assert real in upcoming and created == 4 * Limits().upcoming_tournaments_per_address


def test_a_blocked_player_signed_out_cannot_take_the_blockers_seek(server: Server) -> None:
    """The blocked player signs in on a browser, then signs out, and accepts the blocker's casual
    seek from it as a guest: refused as the account would be (403 ``blocked``). Another browser's
    guest takes the seat; the blocked player's own guest seek is never paired with the blocker's."""
    blocker, blocked = unique("blocker"), unique("blocked")
    host = signed_in(server, blocker)
    browser = signed_in(server, blocked)
    assert host.post(f"/api/users/{blocked}/block", headers=csrf(host)).status_code == 204
    assert browser.delete("/api/session", headers=csrf(browser)).status_code == 204
    seek = host.post("/api/seeks", json={"clock": CLOCK, "name": blocker}, headers=csrf(host))
    assert seek.status_code == 201, seek.text
    taken = browser.post(f"/api/seeks/{seek.json()['seek_id']}/accept", json={"name": "Nobody"})
    print(f"\nfigure: the blocked player, signed out, accepting the blocker's seek: {taken.status_code}")
    assert taken.status_code == 403 and taken.json()["error"] == "blocked", taken.text
    with from_address(server) as stranger:
        assert stranger.post(f"/api/seeks/{seek.json()['seek_id']}/accept", json={"name": "Friend"}).status_code == 200
    pool = {"clock": CLOCK, "name": "Quick"}
    waiting = host.post("/api/pairing", json=pool, headers=csrf(host))
    assert waiting.status_code == 201 and "game_id" not in waiting.json(), waiting.text
    paired = browser.post("/api/pairing", json=pool)
    assert paired.status_code == 201 and "game_id" not in paired.json(), paired.text
