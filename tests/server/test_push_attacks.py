"""Web Push under attack, against a real server and the local push service of ``push_harness.py``:
endpoints on private addresses in disguise (refused when subscribed, and refused again when sent,
after the host is resolved); devices on a host that never answers, and a challenge-and-cancel loop
(sends in parallel, fair per host and account, and a push budget per account).

Each test prints the figure it measured (``figure: ...``; ``pytest -s`` shows it)."""

from __future__ import annotations

import socket
import sqlite3
import threading
import time
from collections.abc import Iterator

import pytest
from push_harness import PushService
from server_harness import Server, wait_for
from test_account_attacks import csrf, signed_in, unique
from test_push import subscribe

DISGUISED = [
    "https://127.1/push",
    "https://0177.0.0.1/push",
    "https://0x7f.0.0.1/push",
    "https://10.1/push",
    "https://192.168.1/push",
    "https://169.254.43518/push",  # 169.254.169.254, the cloud metadata address
    "https://127.0.0.1./push",
    "https://localhost./push",
    "https://metadata.google.internal./push",
    "https://[::ffff:127.0.0.1]/push",
    "https://[fe80::1]/push",
    "https://2130706433/push",  # 127.0.0.1 as one number
]


@pytest.fixture(scope="module")
def pushes() -> Iterator[PushService]:
    service = PushService().start()
    yield service
    service.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, pushes: PushService) -> Iterator[Server]:
    limits = ("--limit", "signups_burst=100", "--limit", "logins_burst=200", "--limit", "push_devices_per_account=20")
    args = ("--push-insecure-host", "127.0.0.1", *limits)
    running = Server(tmp_path_factory.mktemp("push-attacks"), args=args).start()
    pushes.server_key = running.get("/api/push/key").json()["key"]
    yield running
    running.stop()


def test_endpoints_on_private_addresses_in_disguise_are_refused(server: Server, pushes: PushService) -> None:
    browser = signed_in(server, unique("ssrf"))
    keys = pushes.device("ssrf-keys").subscription()["keys"]
    accepted = []
    for endpoint in DISGUISED:
        answer = browser.post(
            "/api/me/push", json={"subscription": {"endpoint": endpoint, "keys": keys}}, headers=csrf(browser)
        )
        assert answer.status_code in (204, 422), answer.text
        if answer.status_code == 204:
            accepted.append(endpoint)
    print(f"\nfigure: {len(accepted)} of {len(DISGUISED)} disguised private endpoints accepted: {accepted}")
    assert accepted == []


class Listener:
    """A TCP port on 127.0.0.1 that counts the connections made to it (and answers nothing)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()


def test_a_stored_endpoint_whose_name_resolves_to_loopback_is_never_connected_to(
    server: Server, pushes: PushService
) -> None:
    """A row an older version stored (``https://localhost:PORT``, a name, not an allowed host): the
    sender resolves the name when it sends, sees loopback, and neither connects nor tries again."""
    name = unique("ssrfsend")
    signed_in(server, name)
    sender = signed_in(server, unique("ssrfgo"))
    listener = Listener()
    keys = pushes.device(name).subscription()["keys"]
    endpoint = f"https://localhost:{listener.port}/push/{name}"
    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
        (account,) = conn.execute("SELECT id FROM accounts WHERE username = ?", (name,)).fetchone()
        conn.execute(
            "INSERT INTO push_subscriptions (account_id, endpoint, p256dh, auth, created) VALUES (?, ?, ?, ?, ?)",
            (account, endpoint, keys["p256dh"], keys["auth"], time.time()),
        )

    def status() -> list[str]:
        with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
            rows = conn.execute(
                "SELECT q.status FROM push_queue q JOIN push_subscriptions s ON s.id = q.subscription_id"
                " WHERE s.endpoint = ?",
                (endpoint,),
            )
            return [row[0] for row in rows]

    answer = sender.post("/api/challenges", json={"opponent": name}, headers=csrf(sender))
    assert answer.status_code == 201, answer.text
    wait_for(lambda: listener.connections > 0 or status() == ["failed"], "the push refused or sent")
    print(f"\nfigure: {listener.connections} connection(s) to a loopback endpoint; push {status()}")
    assert listener.connections == 0 and status() == ["failed"]
    listener.sock.close()


# ----------------------------------------------------------------- notifications an attacker controls


class SilentHost:
    """A push service that takes every connection and never answers: it counts the connections
    made to it and those the server gave up on (closed)."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.origin = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.connections = 0
        self.closed = 0
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with self._lock:
                self.connections += 1
            threading.Thread(target=self._hold, args=(conn,), daemon=True).start()

    def _hold(self, conn: socket.socket) -> None:
        with conn:
            while conn.recv(65536):
                pass
        with self._lock:
            self.closed += 1

    def stop(self) -> None:
        self.sock.close()


def test_devices_on_a_host_that_never_answers_do_not_delay_another_players_push(
    server: Server, pushes: PushService
) -> None:
    """An attacker subscribes ten devices on a host that takes connections and never answers, and
    gets challenged just before another player: that player's push is delivered while the silent
    host's connections are still open (not after they time out one by one)."""
    attacker, victim = unique("silent"), unique("waiting")
    silent = SilentHost()
    browser = signed_in(server, attacker)
    keys = pushes.device(f"{attacker}-keys").subscription()["keys"]
    for n in range(10):
        device = {"endpoint": f"{silent.origin}/push/{attacker}{n}", "keys": keys}
        assert browser.post("/api/me/push", json={"subscription": device}, headers=csrf(browser)).status_code == 204
    waiting = signed_in(server, victim)
    assert subscribe(waiting, pushes.device(victim)) == 204
    challenger = signed_in(server, unique("challenger"))
    for name in (attacker, victim):
        answer = challenger.post("/api/challenges", json={"opponent": name}, headers=csrf(challenger))
        assert answer.status_code == 201, answer.text
    moment = time.monotonic()
    wait_for(lambda: bool(pushes.got(victim)), "the other player's push", timeout=240)
    took, connected, gave_up = time.monotonic() - moment, silent.connections, silent.closed
    print(
        f"\nfigure: the other player's push after {took:.1f} s; silent host: {connected} connected, {gave_up} timed out"
    )
    assert connected >= 1 and gave_up == 0
    silent.stop()


def test_a_challenge_and_cancel_loop_rings_the_victims_phone_at_most_the_budget(
    server: Server, pushes: PushService
) -> None:
    """A stranger challenges an account and withdraws the challenge, 40 times: each challenge is a
    push to the account's phone, up to the account's push budget (20 an hour)."""
    victim, loops = unique("ringing"), 40
    phone = signed_in(server, victim)
    assert subscribe(phone, pushes.device(victim)) == 204
    stranger = signed_in(server, unique("ringer"))
    for _ in range(loops):
        made = stranger.post("/api/challenges", json={"opponent": victim}, headers=csrf(stranger))
        assert made.status_code == 201, made.text
        gone = stranger.delete(f"/api/seeks/{made.json()['seek_id']}", headers=csrf(stranger))
        assert gone.status_code == 204, gone.text

    with sqlite3.connect(server.db.removeprefix("sqlite:///")) as conn:
        (account,) = conn.execute("SELECT id FROM accounts WHERE username = ?", (victim,)).fetchone()

    def decided() -> int:
        dropped = sum(
            1
            for line in server.log().splitlines()
            if '"push_over_budget"' in line and f'"account_id":{account}' in line
        )
        return len(pushes.got(victim)) + dropped

    wait_for(lambda: decided() == loops, "every challenge pushed or dropped", timeout=120)
    print(f"\nfigure: a challenge-and-cancel loop of {loops}: {len(pushes.got(victim))} pushes reached the phone")
    assert len(pushes.got(victim)) == 20
