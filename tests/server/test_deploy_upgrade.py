"""Upgrading without stopping play: ``deploy/run.sh upgrade`` replaces the two instances, then the
two workers, one at a time while games are played through nginx (docs/deploy.md).

The new build is this same checkout started again: what shows that the processes were replaced
is their pids (each pid file holds a new, running process afterwards). The clients behave as the
browser does (``kahuna/web/js/connection.js``): each reads its socket all the time and, when it
closes, connects again after 0.5 s (then 1, 2, 4, 8 s) with ``hello`` and the last version it
saw; an action whose socket closed before its answer came is taken as unanswered.

Checked: every action acknowledged to a client is in the database at its version; every socket
closed by the switch was closed with 1001 *going away* and its client had the game's state again
(a ``sync``, or the updates it missed) within 5 s; no error frame at all; every client ends at the
server's version; every game is played on after the switch (the AI games by the new workers), and
actions were acknowledged while each instance was out of nginx being replaced.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import statistics
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import loopback
import pytest
import websockets
from deploy_harness import Deployment, alive, run_deployment
from server_harness import ROOT

pytestmark = [pytest.mark.pg, pytest.mark.redis, pytest.mark.slow, pytest.mark.long]  # the deployment

RECONNECT_DELAYS = (0.5, 1.0, 2.0, 4.0, 8.0)
"""The browser's waits before each attempt to connect again (the last one repeats)."""
RESYNC_SECONDS = 5.0
"""The longest a client may be without its game's state after its socket closes."""
STUCK_SECONDS = 30.0
"""A game whose next state does not come within this long is stuck."""
PACE = {"hotseat": 0.25, "ai": 0.5}
"""Seconds between a game's first actions during the switch; the wait grows as its budget of
actions is spent (``_play``), so that the games play until the switch ends, however long it takes."""
MOST_DURING_SWITCH = {"hotseat": 60, "ai": 14}
"""Actions a game plays at most while the switch goes on. A random game lasts 124 actions at
least; a random player loses to the easy AI after 28 of its own at the earliest (15 games played
locally: 28 to 70)."""
RULES_ENDS = ("points", "final-scoring", "bridges", "draw", "no-bridges")
"""A game over by the rules (not by a time-out, resignation or abort)."""
AFTER_SWITCH = 6
"""Actions each game must still play once the switch is done."""


@dataclass
class Player:
    """One seat's client over the deployment's nginx, reading its socket in a task of its own."""

    url: str
    token: str
    changed: asyncio.Event
    """Set at every message or close; shared by the clients of one game (``Game.step`` waits on it)."""
    version: int | None = None
    legal: list[str] = field(default_factory=list)
    over: bool = False
    result: dict[str, Any] | None = None
    acked: dict[int, str] = field(default_factory=dict)
    """Version reached → the action this client sent and the server acknowledged."""
    ack_times: list[float] = field(default_factory=list)
    sent: dict[str, str] = field(default_factory=dict)
    errors: list[dict[str, Any]] = field(default_factory=list)
    close_codes: list[int | None] = field(default_factory=list)
    resync_seconds: list[float] = field(default_factory=list)
    """For each close: seconds until the game's state came on the new socket."""
    syncs: int = 0
    closed_at: float | None = None
    """When the socket closed, until the state came again (``None`` while in sync)."""
    ws: Any = None
    reader: asyncio.Task[None] | None = None
    answers: dict[str, asyncio.Future[dict[str, Any] | None]] = field(default_factory=dict)
    stopping: bool = False

    async def start(self) -> None:
        await self._connect()
        self.reader = asyncio.create_task(self._read())
        await self.wait(lambda: self.version is not None)

    async def stop(self) -> None:
        self.stopping = True
        await self.ws.close()
        if self.reader is not None:
            await self.reader

    async def _connect(self) -> None:
        self.ws = await websockets.connect(self.url, max_size=None, open_timeout=5)
        await self.ws.send(json.dumps({"type": "hello", "version": self.version, "token": self.token}))

    async def _read(self) -> None:
        while True:
            try:
                async for text in self.ws:
                    self._take(json.loads(text))
            except websockets.ConnectionClosed:
                pass
            if self.stopping:
                return
            self.closed_at = time.monotonic()
            self.close_codes.append(None if self.ws.close_code is None else int(self.ws.close_code))
            for answer in self.answers.values():  # no answer comes on a closed socket
                if not answer.done():
                    answer.set_result(None)
            self.changed.set()
            await self._reconnect()

    async def _reconnect(self) -> None:
        for attempt in range(100):
            await asyncio.sleep(RECONNECT_DELAYS[min(attempt, len(RECONNECT_DELAYS) - 1)])
            try:
                await self._connect()
                return
            except (OSError, websockets.InvalidHandshake, TimeoutError):
                continue
        raise AssertionError(f"{self.url}: could not connect again")

    def _take(self, message: dict[str, Any]) -> None:
        kind = message["type"]
        if kind == "update":
            assert self.version is not None and message["version"] == self.version + 1, (self.version, message)
        if kind in ("update", "sync"):
            self.syncs += kind == "sync"
            self.version = message["version"]
            self.legal = message["legal"]
            self.result = message["view"]["result"]
            self.over = self.result is not None
            if self.closed_at is not None:
                self.resync_seconds.append(time.monotonic() - self.closed_at)
                self.closed_at = None
        if kind == "error":
            self.errors.append(message)
        if kind == "ack":
            self.acked[message["version"]] = self.sent[message["id"]]
            self.ack_times.append(time.monotonic())
        if kind in ("ack", "error") and message.get("id") in self.answers:
            answer = self.answers.pop(message["id"])
            if not answer.done():
                answer.set_result(message)
        self.changed.set()

    async def wait(self, condition: Any, timeout: float = STUCK_SECONDS) -> None:
        """Until ``condition()`` holds; a game that does not move within ``timeout`` is stuck."""
        deadline = time.monotonic() + timeout
        while not condition():
            self.changed.clear()
            left = deadline - time.monotonic()
            assert left > 0, f"stuck: {self.url} at version {self.version}"
            await asyncio.wait_for(self.changed.wait(), left)

    async def reach(self, version: int) -> None:
        await self.wait(lambda: self.version is not None and self.version >= version)

    def live(self) -> bool:
        """Whether the socket is open and the game's state came on it."""
        return self.closed_at is None and self.version is not None

    async def act(self, token: str) -> int | None:
        """Send ``token`` at this client's version; the version acknowledged, or ``None`` if the
        socket closed before the answer (the client then learns from the state whether it was played)."""
        msg_id = f"a{len(self.sent)}"
        self.sent[msg_id] = token
        answer = self.answers[msg_id] = asyncio.get_running_loop().create_future()
        try:
            await self.ws.send(json.dumps({"type": "action", "action": token, "version": self.version, "id": msg_id}))
        except websockets.ConnectionClosed:
            return None
        message = await asyncio.wait_for(answer, STUCK_SECONDS)
        if message is None or message["type"] != "ack":
            return None
        version: int = message["version"]
        return version


@dataclass
class Game:
    """A game and its clients: two seats of a hotseat game, or the human seat of an AI game."""

    game_id: str
    kind: str
    """``hotseat`` or ``ai``."""
    players: list[Player]
    rng: random.Random
    acked_during: int = 0
    acked_after: int = 0

    async def step(self) -> int | None:
        """One action of the seat to move, once its client is live; the version acknowledged."""
        players = self.players

        def ready() -> bool:
            return players[0].over or any(p.live() and p.legal for p in players)

        await players[0].wait(ready)
        if players[0].over:
            return None
        mover = next(p for p in players if p.live() and p.legal)
        version = await mover.act(self.rng.choice(mover.legal))
        if version is not None:
            for player in players:  # every seat sees it
                await player.reach(version)
        return version


async def _play(game: Game, switched: asyncio.Event) -> None:
    """Play while the switch goes on (at most ``MOST_DURING_SWITCH`` actions, the later ones
    further apart: ``PACE`` × budget / budget left), then ``AFTER_SWITCH`` actions once it is done."""
    budget = MOST_DURING_SWITCH[game.kind]
    while not switched.is_set():
        if game.acked_during < budget and await game.step() is not None:
            game.acked_during += 1
        pause = PACE[game.kind] * budget / max(1, budget - game.acked_during)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(switched.wait(), pause)
    while game.acked_after < AFTER_SWITCH and not game.players[0].over:
        if await game.step() is not None:
            game.acked_after += 1


async def _ai_game(deployment: Deployment, name: str, seed: int) -> Game:
    """A person (seat 0, to move first) against the easy AI, whose moves the workers play."""
    created = deployment.create(opponent="ai", level="easy", seat="first", name=name)
    player = Player(f"{deployment.ws_url}/ws/{created['game_id']}", created["token"], asyncio.Event())
    await player.start()
    return Game(created["game_id"], "ai", [player], random.Random(seed))


async def _watch_nginx(deployment: Deployment, out: dict[str, list[float]]) -> None:
    """Note, for each instance, when nginx.conf marks it ``down`` (taken out to be replaced) and
    when no longer (back in, replaced), until cancelled."""
    while True:
        conf = (deployment.run_dir / "nginx.conf").read_text()
        if "location /ws/" in conf:  # written whole (the script rewrites it in place)
            for n, port in enumerate(deployment.instance_ports, start=1):
                moments = out.setdefault(f"instance{n}", [])
                down = f"server 127.0.0.1:{port} down;" in conf
                if (not moments and down) or (len(moments) == 1 and not down):
                    moments.append(time.monotonic())
        await asyncio.sleep(0.02)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    with run_deployment(tmp_path_factory.mktemp("deploy")) as running:
        yield running


def test_instances_and_workers_replaced_one_at_a_time_while_games_are_played(deployment: Deployment) -> None:
    names = ("instance1", "instance2", "worker1", "worker2")
    before = {name: deployment.pid(name) for name in names}
    games: list[Game] = []
    split: list[str] = []
    """The instance each game's sockets were on before the switch."""
    upgrade: dict[str, Any] = {}
    out_of_nginx: dict[str, list[float]] = {}
    """When each instance was taken out of nginx to be replaced, and when put back."""

    async def scenario() -> None:
        for n in range(3):  # two people at one game each, both seats through nginx
            created = deployment.create(opponent="hotseat", seat="first", name=f"H{n}")
            url, changed = f"{deployment.ws_url}/ws/{created['game_id']}", asyncio.Event()
            seats = [Player(url, token, changed) for token in created["tokens"]]
            for seat in seats:
                await seat.start()
            games.append(Game(created["game_id"], "hotseat", seats, random.Random(n)))
        games.extend([await _ai_game(deployment, f"A{n}", 10 + n) for n in range(2)])
        for game in games:
            for _ in range(4):
                assert await game.step() is not None
        split.extend(deployment.instance_of(game.game_id) for game in games)
        switched = asyncio.Event()
        playing = [asyncio.create_task(_play(game, switched)) for game in games]
        command = ["bash", str(ROOT / "deploy" / "run.sh"), "upgrade", "--run-dir", str(deployment.run_dir)]
        upgrade["started"] = time.monotonic()
        watching = asyncio.create_task(_watch_nginx(deployment, out_of_nginx))
        process = await asyncio.create_subprocess_exec(
            *command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT
        )
        out, _ = await asyncio.wait_for(process.communicate(), 180)
        upgrade.update(rc=process.returncode, out=out.decode(), seconds=time.monotonic() - upgrade["started"])
        switched.set()
        watching.cancel()
        await asyncio.gather(*playing)
        fresh = await _ai_game(deployment, "After", 20)  # new instances and workers from the start
        games.append(fresh)
        for _ in range(AFTER_SWITCH):
            assert await fresh.step() is not None
            fresh.acked_after += 1
        for game in games:  # every client at the server's version
            version = loopback.get(f"{deployment.url}/api/games/{game.game_id}", timeout=10).json()["version"]
            for player in game.players:
                await player.reach(version)
                assert player.version == version, (game.game_id, player.version, version)
            for player in game.players:
                await player.stop()

    asyncio.run(asyncio.wait_for(scenario(), 300))

    assert upgrade["rc"] == 0 and upgrade["out"].startswith("done"), upgrade
    after = {name: deployment.pid(name) for name in names}
    for name in names:  # each process replaced by a new one, which runs
        assert after[name] != before[name] and alive(after[name]), (name, before, after)
    players = [player for game in games for player in game.players]
    for game in games:
        stored = deployment.stored_actions(game.game_id)
        for player in game.players:
            for version, token in player.acked.items():
                assert stored[version - 1] == token, (game.game_id, version, player.acked, stored)
        # Played on after the switch (not stuck), or over by the rules during it.
        result = game.players[0].result
        assert game.acked_after == AFTER_SWITCH or (result is not None and result["reason"] in RULES_ENDS), (
            game.game_id,
            result,
        )
    for player in players[:-1]:  # every one but the fresh game's lived through the switch
        assert player.close_codes and set(player.close_codes) == {1001}, player.close_codes
    for player in players:
        assert player.errors == [], player.errors
        assert len(player.resync_seconds) == len(player.close_codes)
    times = [seconds for player in players for seconds in player.resync_seconds]
    during = sum(game.acked_during for game in games)
    acks = sorted(moment for player in players for moment in player.ack_times)
    windows = [out_of_nginx["instance1"], out_of_nginx["instance2"]]  # taken out, drained, replaced, back
    assert all(len(window) == 2 for window in windows), windows
    per_window = [sum(start <= moment < end for moment in acks) for start, end in windows]
    print(f"\nfigure: upgrade of 2 instances and 2 workers took {upgrade['seconds']:.1f} s; {upgrade['out']}")
    ended = [game.game_id for game in games if game.players[0].over]
    print(f"figure: actions acknowledged during the switch: {during} in {len(split)} games (on {split} before)")
    print(f"figure: games over by the rules meanwhile: {ended}; 6 more actions in each other one and in a new AI game")
    print(
        f"figure: {len(times)} sockets closed going away; the state again after "
        f"max {max(times):.2f} s, median {statistics.median(times):.2f} s "
        f"({sum(p.syncs for p in players)} syncs received in all)"
    )
    print(
        f"figure: actions acknowledged while instance1 was replaced: {per_window[0]} "
        f"({windows[0][1] - windows[0][0]:.1f} s), while instance2 was: {per_window[1]} "
        f"({windows[1][1] - windows[1][0]:.1f} s)"
    )
    assert all(count > 0 for count in per_window), per_window  # play went on during each replacement
    assert max(times) < RESYNC_SECONDS, times
