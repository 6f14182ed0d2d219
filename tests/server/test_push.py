"""Web Push against a real server and a local push service that checks the VAPID signature and
decrypts every push (``push_harness.py``): the subscription API and its refusals, a your-turn push
after the opponent's move (never a card in it), a device the push service says is gone, and an
account whose notification settings say no (docs/accounts.md, *Notifications*)."""

from __future__ import annotations

import json
import random
import sqlite3
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import loopback
import pytest
from push_harness import Device, PushService
from server_harness import Player, Server, run, wait_for
from test_accounts import csrf, signed_in

from kahuna.server.push.vapid import VapidKey


def events(server: Server, kind: str) -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in server.log().splitlines() if line.startswith("{") and f'"event":"{kind}"' in line
    ]


def queued(server: Server) -> list[tuple[str, str]]:
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
        return list(conn.execute("SELECT notice, status FROM push_queue ORDER BY id"))


def devices(server: Server) -> list[str]:
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
        return [endpoint for (endpoint,) in conn.execute("SELECT endpoint FROM push_subscriptions ORDER BY id")]


@pytest.fixture(scope="module")
def pushes() -> Iterator[PushService]:
    service = PushService().start()
    yield service
    service.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, pushes: PushService) -> Iterator[Server]:
    limits = ("--limit", "signups_burst=100", "--limit", "logins_burst=200", "--limit", "push_devices_per_account=2")
    args = ("--push-insecure-host", "127.0.0.1", "--vapid-subject", "mailto:ops@kahuna.test", *limits)
    running = Server(tmp_path_factory.mktemp("push"), args=args).start()
    pushes.server_key = running.get("/api/push/key").json()["key"]
    yield running
    running.stop()


def friends_game(server: Server, first: httpx.Client, second: httpx.Client) -> tuple[str, str]:
    """A game between two accounts (``first`` has seat 0): its id and ``first``'s seat token."""
    created = first.post(
        "/api/games", json={"opponent": "human", "seat": "first", "name": "Ann"}, headers=csrf(first)
    ).json()
    invite = created["invite_url"].removeprefix("/join/")
    assert second.post(f"/api/join/{invite}", json={"name": "x"}, headers=csrf(second)).status_code == 200
    return created["game_id"], created["token"]


async def play_until_seat_1_moves(server: Server, game_id: str, token: str) -> int:
    """Seat 0 plays random legal actions until seat 1 is to move; the game's version then."""
    player = await Player.join(server, game_id, token)
    rng = random.Random(7)
    while player.last["view"]["to_move"] == 0:
        legal = player.last["legal"]
        await player.play(legal[rng.randrange(len(legal))])
    await player.conn.close()
    return player.version


def subscribe(browser: httpx.Client, device: Device) -> int:
    return browser.post("/api/me/push", json={"subscription": device.subscription()}, headers=csrf(browser)).status_code


# ----------------------------------------------------------------- the API


def test_the_key_file_is_made_once_for_its_owner_only_and_a_bad_one_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "vapid.pem"
    made = VapidKey.load_or_create(path, "mailto:ops@kahuna.test")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert VapidKey.load_or_create(path, "mailto:ops@kahuna.test").public_key == made.public_key
    assert [p.name for p in path.parent.iterdir()] == ["vapid.pem"]  # no draft left beside it
    path.write_text("not a key")
    with pytest.raises(ValueError, match="holds no VAPID private key"):
        VapidKey.load_or_create(path, "mailto:ops@kahuna.test")
    serve = [sys.executable, "-m", "kahuna", "serve", "--port", "0", "--db", f"sqlite:///{tmp_path / 'k.db'}"]
    refused = subprocess.run([*serve, "--vapid-key", str(path)], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 1 and "kahuna serve: --vapid-key:" in refused.stderr, refused.stderr
    subject = subprocess.run([*serve, "--vapid-subject", "ops@kahuna.test"], capture_output=True, text=True, timeout=60)
    assert subject.returncode == 2 and "--vapid-subject must start with mailto: or https://" in subject.stderr


def test_the_key_is_a_p256_point_and_stays_the_same_across_a_restart(server: Server) -> None:
    key = server.get("/api/push/key").json()["key"]
    assert len(loopback.get(f"{server.url}/api/push/key").json()["key"]) == 87  # 65 bytes, base64url
    server.stop()
    server.start()
    assert server.get("/api/push/key").json()["key"] == key


def test_bad_subscriptions_are_refused_with_the_reason_and_nothing_is_stored(
    server: Server, pushes: PushService
) -> None:
    browser = signed_in(server, "pushbad")
    good = pushes.device("pushbad").subscription()
    cases = [
        ({**good, "endpoint": "http://push.example.com/x"}, "invalid_endpoint"),  # http elsewhere than allowed
        ({**good, "endpoint": "https://10.0.0.1/x"}, "invalid_endpoint"),
        ({**good, "endpoint": "https://localhost/x"}, "invalid_endpoint"),
        ({**good, "endpoint": "https://push.example.com:8443/x"}, "invalid_endpoint"),
        ({**good, "endpoint": "https://user:pw@push.example.com/x"}, "invalid_endpoint"),
        ({**good, "endpoint": "https://push.example.com/" + "a" * 1100}, "invalid"),
        ({**good, "keys": {**good["keys"], "p256dh": "AAAA"}}, "invalid_keys"),
        ({**good, "keys": {**good["keys"], "auth": "c2hvcnQ"}}, "invalid_keys"),
        ({**good, "keys": {**good["keys"], "p256dh": "!!!"}}, "invalid_keys"),
    ]
    for subscription, code in cases:
        answer = browser.post("/api/me/push", json={"subscription": subscription}, headers=csrf(browser))
        assert answer.status_code == 422, (subscription, answer.text)
        assert answer.json()["error"] == code, (subscription, answer.text)
    assert good["endpoint"] not in devices(server)
    guest = loopback.post(f"{server.url}/api/me/push", json={"subscription": good})
    assert guest.status_code == 401


def test_devices_are_bounded_per_account_and_removed_one_by_one(server: Server, pushes: PushService) -> None:
    browser = signed_in(server, "pushmany")
    first, second, third = (pushes.device(f"pushmany{n}").subscription() for n in range(3))
    for subscription in (first, second, first):  # the same device again is no new one
        answer = browser.post("/api/me/push", json={"subscription": subscription}, headers=csrf(browser))
        assert answer.status_code == 204, answer.text
    assert browser.get("/api/me/push").json() == {"devices": 2, "most": 2}
    refused = browser.post("/api/me/push", json={"subscription": third}, headers=csrf(browser))
    assert refused.status_code == 422 and refused.json()["error"] == "too_many_devices"
    gone = browser.request("DELETE", "/api/me/push", json={"endpoint": first["endpoint"]}, headers=csrf(browser))
    assert gone.status_code == 204
    again = browser.request("DELETE", "/api/me/push", json={"endpoint": first["endpoint"]}, headers=csrf(browser))
    assert again.status_code == 404
    assert browser.post("/api/me/push", json={"subscription": third}, headers=csrf(browser)).status_code == 204
    assert browser.get("/api/me/push").json()["devices"] == 2


# ----------------------------------------------------------------- pushes


def test_the_player_to_move_gets_a_your_turn_push_after_the_opponents_move_only_when_away(
    server: Server, pushes: PushService
) -> None:
    alice, bob = signed_in(server, "pushalice"), signed_in(server, "pushbob")
    assert subscribe(alice, pushes.device("pushalice")) == 204
    assert subscribe(bob, pushes.device("pushbob")) == 204
    spec = {"opponent": "human", "seat": "first", "name": "Ann"}
    created = alice.post("/api/games", json=spec, headers=csrf(alice)).json()
    invite = created["invite_url"].removeprefix("/join/")
    joined = bob.post(f"/api/join/{invite}", json={"name": "Bob"}, headers=csrf(bob)).json()
    game_id = created["game_id"]

    async def scenario() -> int:
        rng = random.Random(11)
        players = {0: await Player.join(server, game_id, created["token"])}
        players[1] = await Player.join(server, game_id, joined["token"])

        async def turn(seat: int, other_here: bool = True) -> None:  # ``seat`` plays until the other is to move
            mover = players[seat]
            while mover.last["view"]["to_move"] == seat:
                ack = await mover.play(mover.last["legal"][rng.randrange(len(mover.last["legal"]))])
                if other_here:
                    await players[1 - seat].reach(ack["version"])

        await turn(0)  # Bob is connected: his turn is no news to him
        await turn(1)  # nor is Alice's to her
        await players[1].conn.close()
        await turn(0, other_here=False)  # Bob is away now
        version = players[0].version
        await players[0].conn.close()
        return version

    version = run(scenario())
    wait_for(lambda: bool(pushes.got("pushbob")), "the push to Bob's device")
    assert pushes.errors == []
    assert pushes.got("pushbob") == [
        {"kind": "your_turn", "game": game_id, "opponent": "pushalice", "url": f"/play/{game_id}#seat:1"}
    ]  # only the turn he was away for; the game, the opponent (its account's name) and the page
    assert [n for n, _ in queued(server) if game_id in n] == [f"your_turn:{game_id}:{version}"]
    assert pushes.got("pushalice") == []


def test_a_device_the_push_service_says_is_gone_is_removed(server: Server, pushes: PushService) -> None:
    carol, dave = signed_in(server, "pushcarol"), signed_in(server, "pushdave")
    device = pushes.device("pushdave")
    pushes.answers["pushdave"] = 410
    assert (
        dave.post("/api/me/push", json={"subscription": device.subscription()}, headers=csrf(dave)).status_code == 204
    )
    assert device.endpoint in devices(server)
    game_id, token = friends_game(server, carol, dave)
    run(play_until_seat_1_moves(server, game_id, token))
    wait_for(lambda: device.endpoint not in devices(server), "the gone device to be removed")
    assert events(server, "push_subscription_gone")[-1]["status"] == 410
    assert dave.get("/api/me/push").json()["devices"] == 0
    assert not [notice for notice, _ in queued(server) if game_id in notice]  # what was queued for it went too
    assert pushes.errors == []


def test_nothing_is_sent_when_the_settings_say_no(server: Server, pushes: PushService) -> None:
    """An account that turned off the ``push`` channel of ``your_turn`` in its notification settings
    gets no your-turn push: the server asks the settings and queues nothing."""
    erin, fay = signed_in(server, "pusherin"), signed_in(server, "pushfay")
    off = {"kinds": {"your_turn": {"push": False}}}
    assert fay.put("/api/me/notifications", json=off, headers=csrf(fay)).status_code == 200
    device = pushes.device("pushfay")
    assert fay.post("/api/me/push", json={"subscription": device.subscription()}, headers=csrf(fay)).status_code == 204
    before = len(events(server, "push_not_wanted"))
    game_id, token = friends_game(server, erin, fay)
    run(play_until_seat_1_moves(server, game_id, token))
    wait_for(lambda: len(events(server, "push_not_wanted")) > before, "the settings to be asked")
    assert events(server, "push_not_wanted")[-1]["push_kind"] == "your_turn"
    assert not [notice for notice, _ in queued(server) if game_id in notice]
    assert pushes.got("pushfay") == [] and pushes.errors == []


def test_a_challenge_is_pushed_to_the_challenged_accounts_devices(server: Server, pushes: PushService) -> None:
    gina, hank = signed_in(server, "pushgina"), signed_in(server, "pushhank")
    device = pushes.device("pushhank")
    assert subscribe(hank, device) == 204
    answer = gina.post("/api/challenges", json={"opponent": "pushhank"}, headers=csrf(gina))
    assert answer.status_code == 201, answer.text
    wait_for(lambda: bool(pushes.got("pushhank")), "the challenge's push")
    assert pushes.got("pushhank") == [{"kind": "challenge", "opponent": "pushgina", "url": "/lobby"}]
    assert pushes.errors == []


def test_a_starting_tournament_game_is_pushed_to_both_players(server: Server, pushes: PushService) -> None:
    ivy, jack = signed_in(server, "pushivy"), signed_in(server, "pushjack")
    for browser, name in ((ivy, "pushivy"), (jack, "pushjack")):
        assert subscribe(browser, pushes.device(name)) == 204
    event = {"kind": "swiss", "name": "Push cup", "clock": {"initial": 300, "increment": 5}, "rounds": 1}
    made = ivy.post("/api/tournaments", json=event, headers=csrf(ivy))
    assert made.status_code == 201, made.text
    tid = made.json()["tournament_id"]
    for browser in (ivy, jack):
        assert browser.post(f"/api/tournaments/{tid}/join", headers=csrf(browser)).status_code == 204
    assert ivy.post(f"/api/tournaments/{tid}/start", headers=csrf(ivy)).status_code == 204
    wait_for(lambda: bool(pushes.got("pushivy") and pushes.got("pushjack")), "both players' pushes")
    (to_ivy,), (to_jack,) = pushes.got("pushivy"), pushes.got("pushjack")
    assert to_ivy["kind"] == to_jack["kind"] == "tournament"
    assert to_ivy["game"] == to_jack["game"]
    assert (to_ivy["opponent"], to_jack["opponent"]) == ("pushjack", "pushivy")
    seats = {to_ivy["url"].rsplit("#", 1)[1], to_jack["url"].rsplit("#", 1)[1]}
    assert seats == {"seat:0", "seat:1"}
    assert to_ivy["url"].startswith(f"/play/{to_ivy['game']}?tournament={tid}#")
    assert set(to_ivy) == {"kind", "game", "opponent", "url"}
    assert pushes.errors == []


def test_a_player_away_from_a_running_clock_is_warned_before_it_runs_out(
    tmp_path_factory: pytest.TempPathFactory, pushes: PushService
) -> None:
    limits = [
        "signups_burst=100",
        "logins_burst=100",
        "clock_min_seconds=1",
        "first_move_grace=0.5",  # the clock starts without waiting for Lena
        "push_clock_low_min_seconds=1",
        "push_clock_low_fraction=0.9",  # warned when 90 % of the turn's time is used: 2 s into 20 s
    ]
    args = ("--push-insecure-host", "127.0.0.1", *(x for limit in limits for x in ("--limit", limit)))
    server = Server(tmp_path_factory.mktemp("push-clock"), args=args).start()
    try:
        pushes.server_key = server.get("/api/push/key").json()["key"]
        kyle, lena = signed_in(server, "pushkyle"), signed_in(server, "pushlena")
        assert subscribe(lena, pushes.device("pushlena")) == 204
        spec = {"opponent": "human", "seat": "first", "name": "Ann", "clock": {"initial": 20, "increment": 0}}
        created = kyle.post("/api/games", json=spec, headers=csrf(kyle)).json()
        invite = created["invite_url"].removeprefix("/join/")
        assert lena.post(f"/api/join/{invite}", json={"name": "x"}, headers=csrf(lena)).status_code == 200
        game_id = created["game_id"]
        version = run(play_until_seat_1_moves(server, game_id, created["token"]))
        wait_for(lambda: len(pushes.got("pushlena")) == 2, "the your-turn push, then the low clock's")
        turn, low = pushes.got("pushlena")
        assert turn["kind"] == "your_turn"
        # A signed-in creator plays under its account's name, whatever the form said (docs/community.md).
        assert low == {"kind": "deadline", "game": game_id, "opponent": "pushkyle", "url": f"/play/{game_id}#seat:1"}
        wait_for(lambda: (f"deadline:{game_id}:{version}", "sent") in queued(server), "the push marked sent")
        assert pushes.errors == []
    finally:
        server.stop()
