"""The reference deployment (deploy/run.sh) under failures: an instance killed, Redis restarted,
PostgreSQL stopped.

One deployment for the module (it starts seven processes): nginx on a free loopback port in
front of two ``kahuna serve`` instances and two ``kahuna worker`` processes, all sharing a private
PostgreSQL cluster and a private Redis server (deploy_harness), never the machine's shared ones,
which these tests restart and stop. The scenarios run in order on that deployment.

The clients behave as the browser does: they keep the last version they saw and, when their
WebSocket drops, connect again (through the proxy) with ``hello`` and that version. Every action
acknowledged to a client must be in the database at its place, whatever happened in between.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import loopback
import pytest
import websockets
from deploy_harness import Deployment, run_deployment
from server_harness import ROOT

pytestmark = [pytest.mark.pg, pytest.mark.redis, pytest.mark.slow, pytest.mark.long]  # the deployment


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with run_deployment(tmp_path_factory.mktemp("deploy")) as running:
        yield running


@dataclass
class Seat:
    """One player's client, as the browser behaves: the last version it saw, a WebSocket that it
    opens again (with ``hello`` and that version) whenever it drops."""

    url: str
    token: str
    version: int | None = None
    legal: list[str] = field(default_factory=list)
    over: bool = False
    acked: dict[int, str] = field(default_factory=dict)
    """Version reached → the action this client sent and the server acknowledged."""
    reconnects: int = 0
    sent: dict[str, str] = field(default_factory=dict)
    """Message id → the action sent with it."""
    syncs: int = 0
    errors: list[str] = field(default_factory=list)
    ws: Any = None

    async def open(self) -> None:
        self.ws = await websockets.connect(self.url, max_size=None, open_timeout=5)
        await self.ws.send(json.dumps({"type": "hello", "version": self.version, "token": self.token}))

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()

    async def recv(self, timeout: float = 15) -> dict[str, Any]:
        """The next message; on a dropped connection, connect again (up to ``timeout`` in all)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no message")
            try:
                message: dict[str, Any] = json.loads(await asyncio.wait_for(self.ws.recv(), left))
            except (websockets.ConnectionClosed, OSError):
                await self._reconnect(deadline)
                continue
            self._take(message)
            return message

    async def _reconnect(self, deadline: float) -> None:
        self.reconnects += 1
        while True:
            try:
                await self.open()
                return
            except (OSError, websockets.InvalidHandshake, TimeoutError):
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.2)

    def _take(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "update":
            # Nothing skipped: each update is the next version after the one this client has.
            assert self.version is not None and message["version"] == self.version + 1, (self.version, message)
        if kind == "sync":
            self.syncs += 1
        if kind in ("update", "sync"):
            self.version = message["version"]
            self.legal = message["legal"]
            self.over = message["view"]["result"] is not None
        if kind == "error":
            self.errors.append(message["code"])
        if kind == "ack":  # an answer to this action or, after a "moved_on", to an earlier one
            self.acked[message["version"]] = self.sent[message["id"]]

    async def reach(self, version: int, timeout: float = 15) -> None:
        while self.version is None or self.version < version:
            await self.recv(timeout)

    async def act(self, token: str, timeout: float = 15) -> dict[str, Any]:
        """Send ``token`` at this client's version; its answer (``ack`` or ``error``, matched by
        the message id), or ``moved_on`` if the game changed or the connection dropped first (the
        action may or may not have been played: the caught-up state tells)."""
        version, connection = self.version, self.reconnects
        msg_id = f"a{len(self.sent)}"
        self.sent[msg_id] = token
        try:
            await self.ws.send(json.dumps({"type": "action", "action": token, "version": version, "id": msg_id}))
        except (websockets.ConnectionClosed, OSError):  # the connection is gone: never sent
            await self._reconnect(time.monotonic() + timeout)
            return {"type": "error", "code": "moved_on"}
        while True:
            message = await self.recv(timeout)
            if message["type"] in ("ack", "error") and message.get("id") == msg_id:
                return message
            if self.version != version or self.reconnects != connection:  # the answer may never come
                return {"type": "error", "code": "moved_on"}


async def _move(client: Seat, rng: random.Random) -> int:
    """One random legal action of ``client``, played again (as a player would click again) until
    acknowledged, then the AI's answer if it is an AI game; the version acknowledged."""
    while True:
        while not client.legal:
            await client.recv()
        answer = await client.act(rng.choice(client.legal))
        if answer["type"] == "ack":
            version: int = answer["version"]
            return version
        assert answer["code"] != "server_error", answer


async def _pair(deployment: Deployment, game: dict[str, Any], urls: tuple[str, str] | None = None) -> list[Seat]:
    seats = []
    for seat in (0, 1):
        base = deployment.ws_url if urls is None else urls[seat]
        client = Seat(f"{base}/ws/{game['game_id']}", game["tokens"][seat])
        await client.open()
        await client.reach(0)
        seats.append(client)
    return seats


async def _play(seats: list[Seat], rng: random.Random, moves: int) -> None:
    """``moves`` random legal actions (or until the end), each seen by both clients."""
    for _ in range(moves):
        if seats[0].over:
            return
        mover = seats[0] if seats[0].legal else seats[1]
        assert mover.legal, "nobody to move"
        answer = await mover.act(rng.choice(mover.legal))
        if answer["type"] != "ack":
            continue  # a client that lost its action sees the game as it is and plays again
        for client in seats:
            await client.reach(answer["version"])


def _check_acknowledged(deployment: Deployment, game_id: str, seats: list[Seat]) -> None:
    """Every acknowledged action is stored, at the version it was acknowledged for."""
    stored = deployment.stored_actions(game_id)
    for client in seats:
        for version, token in client.acked.items():
            assert stored[version - 1] == token, (game_id, version, client.acked, stored)


def test_bench_through_the_proxy_reports_the_costs_per_action(deployment: Deployment) -> None:
    """``kahuna bench server --url`` against the deployment, with the instances' CPU and the
    PostgreSQL and Redis counters (docs/scaling.md is built from these figures)."""
    pids = [f"--pid={name}={deployment.pid(name)}" for name in ("instance1", "instance2", "nginx")]
    command = [sys.executable, "-m", "kahuna", "bench", "server", "--url", deployment.url, "--games", "4"]
    command += ["--seconds", "3", "--think", "50", "--db", deployment.db, "--broker", deployment.redis.url, "--json"]
    out = subprocess.run([*command, *pids], cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)
    assert out.returncode == 0, out.stderr
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert figures["actions"] > 0 and figures["errors"] == 0, figures.get("error_codes")
    costs = figures["costs"]
    assert costs["cpu_ms_per_action"]["instance1"] + costs["cpu_ms_per_action"]["instance2"] > 0
    loops = costs["main_thread_cpu_ms_per_action"]  # the instances' event loops, part of their CPU
    assert loops["instance1"] + loops["instance2"] > 0
    assert all(loops[name] <= costs["cpu_ms_per_action"][name] for name in ("instance1", "instance2", "nginx"))
    assert costs["pg_per_action"]["rows_written"] >= 1  # the action's row, at least
    assert costs["redis_per_action"]["publish"] >= 1  # each stored action is announced


def test_one_instance_killed_mid_game_its_clients_continue_on_the_other(deployment: Deployment) -> None:
    async def scenario() -> None:
        hotseat = deployment.create(opponent="hotseat", seat="first", name="A")
        seats = await _pair(deployment, hotseat)
        victim = deployment.instance_of(hotseat["game_id"])  # nginx routes a game's sockets by its id
        survivor = "instance2" if victim == "instance1" else "instance1"
        for _ in range(20):  # an AI game whose sockets are on the same instance
            against_ai = deployment.create(opponent="ai", level="medium", seat="first", name="B")
            human = Seat(f"{deployment.ws_url}/ws/{against_ai['game_id']}", against_ai["token"])
            await human.open()
            await human.reach(0)
            if deployment.instance_of(against_ai["game_id"]) == victim:
                break
            await human.close()
        rng = random.Random(14)
        await _play(seats, rng, 12)
        for _ in range(4):  # the human's actions and the AI's answers, from a worker
            await _move(human, rng)
        before = [client.version for client in seats]
        seen_by_survivor = len(deployment.log(survivor))
        os.kill(deployment.pid(victim), signal.SIGKILL)
        killed.append(victim)
        await _play(seats, rng, 12)
        assert seats[0].version is not None and before[0] is not None and seats[0].version > before[0]
        assert all(client.reconnects >= 1 for client in seats)
        for _ in range(4):
            await _move(human, rng)
        assert human.reconnects >= 1
        # The clients came back through the proxy to the other instance.
        later = deployment.log(survivor)[seen_by_survivor:]
        for game in (hotseat, against_ai):
            assert f'"ws_open","game_id":"{game["game_id"]}"' in later
        _check_acknowledged(deployment, hotseat["game_id"], seats)
        _check_acknowledged(deployment, against_ai["game_id"], [human])
        for client in [*seats, human]:
            assert "server_error" not in client.errors
            await client.close()

    killed: list[str] = []
    asyncio.run(asyncio.wait_for(scenario(), 90))
    # The script starts the killed instance again, as a service manager would.
    deadline = time.monotonic() + 30
    while f"{killed[0]} (pid" not in (deployment.run_dir.parent / "run.out").read_text():
        assert time.monotonic() < deadline
        time.sleep(0.1)


def test_redis_restarted_instances_and_workers_reconnect_and_clients_resync(deployment: Deployment) -> None:
    direct = tuple(f"ws://127.0.0.1:{port}" for port in deployment.instance_ports)
    assert len(direct) == 2

    async def scenario() -> None:
        for port in deployment.instance_ports:  # one was killed and started again by the last test
            _wait_http(f"http://127.0.0.1:{port}/api/levels")
        hotseat = deployment.create(opponent="hotseat", seat="first", name="A")
        seats = await _pair(deployment, hotseat, (direct[0], direct[1]))  # one seat on each instance
        rng = random.Random(15)
        await _play(seats, rng, 6)
        syncs = [client.syncs for client in seats]
        deployment.redis.restart(down_for=1.0)
        # Both instances reload the games they hold and send their clients a sync.
        for client in seats:
            while client.syncs == syncs[seats.index(client)]:
                await client.recv(20)
        await _play(seats, rng, 6)  # live again across the instances
        _check_acknowledged(deployment, hotseat["game_id"], seats)
        # The AI moves flow again: queued by an instance, played by a worker, seen by the client.
        against_ai = deployment.create(opponent="ai", level="medium", seat="second", name="B")
        human = Seat(f"{deployment.ws_url}/ws/{against_ai['game_id']}", against_ai["token"])
        await human.open()
        while not human.legal:
            await human.recv(20)
        assert human.version is not None and human.version > 0
        for client in [*seats, human]:
            await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 90))
    deadline = time.monotonic() + 20  # each worker looks at Redis's identity every 2 s
    while not all('"new_server":true' in deployment.log(name) for name in ("worker1", "worker2")):
        assert time.monotonic() < deadline, "a worker did not notice the new Redis server"
        time.sleep(0.2)


def test_postgresql_stopped_actions_refused_nothing_lost_and_play_resumes(deployment: Deployment) -> None:
    async def scenario() -> None:
        hotseat = deployment.create(opponent="hotseat", seat="first", name="A")
        seats = await _pair(deployment, hotseat)
        rng = random.Random(16)
        await _play(seats, rng, 6)
        deployment.postgres.stop()
        try:
            mover = seats[0] if seats[0].legal else seats[1]
            token = rng.choice(mover.legal)
            refused = await mover.act(token)
            assert refused["type"] == "error" and refused["code"] == "server_error", refused
            response = loopback.post(f"{deployment.url}/api/games", json={"opponent": "hotseat"}, timeout=10)
            assert response.status_code >= 500 and response.json()["error"] == "server_error"
        finally:
            deployment.postgres.start()
        answer: dict[str, Any] = {}
        for _ in range(20):  # a connection that was cut may cost one more refusal
            answer = await mover.act(token)
            if answer["type"] == "ack":
                break
            assert answer["code"] == "server_error", answer
            await asyncio.sleep(0.25)
        assert answer["type"] == "ack"
        for client in seats:
            await client.reach(answer["version"])
        await _play(seats, rng, 6)
        _check_acknowledged(deployment, hotseat["game_id"], seats)
        for client in seats:
            await client.close()

    asyncio.run(asyncio.wait_for(scenario(), 90))


def _wait_http(url: str) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            loopback.get(url, timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise AssertionError(f"{url} does not answer")
