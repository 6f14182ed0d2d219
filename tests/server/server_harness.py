"""Test harness: a real server process on a free loopback port with a real SQLite file, and a client."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import launcher
import loopback
import websockets

ROOT = Path(__file__).resolve().parents[2]
TEST_SEED = os.environ.get("KAHUNA_TEST_SEED", "46")
"""Every ``kahuna serve`` started here draws its deals, first seats and AI seeds from this seed
(``--test-seed``, docs/testing.md): a run is repeatable, and KAHUNA_TEST_SEED runs it with another."""

START_SECONDS = 120
"""How long a server may take to answer before the test fails: it answers in about a second on a
quiet machine, and the wait ends as soon as it does (or its process exits); the bound is for a
machine loaded many times over its cores, where the 30 s it was made tests fail at start-up."""

RUN_WITH_DEALS = """
import json, sys
import uvicorn
from kahuna.server.common import logs
from kahuna.server.app import create_app
from kahuna.server.common.config import Settings

if __name__ == "__main__":
    port, db, deals_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    deals = iter(json.loads(open(deals_file).read()))
    logs.configure()
    app = create_app(Settings(db_url=db), deal_provider=lambda: next(deals))
    uvicorn.run(app, host="127.0.0.1", port=port, log_config=None, ws_per_message_deflate=False)
"""


def wait_for(condition: Callable[[], bool], what: str, timeout: float = 15) -> None:
    """Look at ``condition`` until it holds (the event a test expects has happened); fail saying
    ``what`` was awaited if it does not within ``timeout`` seconds. The pause between two looks is
    no part of what is checked."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        time.sleep(0.05)


async def eventually(condition: Callable[[], Awaitable[bool]], what: str, timeout: float = 15) -> None:
    """:func:`wait_for` inside an event loop, for a condition that must be awaited."""
    deadline = time.monotonic() + timeout
    while not await condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout:g} s for {what}")
        await asyncio.sleep(0.05)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


class Server:
    """``kahuna serve`` (or a test script) as a child process; ``log`` is its standard error."""

    def __init__(
        self, tmp: Path, deals: list[str] | None = None, args: tuple[str, ...] = (), script: str | None = None
    ) -> None:
        self.tmp = tmp
        self.script = script
        """A test script run as ``python SCRIPT PORT DB`` instead of ``kahuna serve`` (a server built
        with collaborators the command line cannot give)."""
        self.args = args
        """More ``kahuna serve`` arguments (e.g. ``--limit NAME=VALUE``)."""
        self.db = f"sqlite:///{tmp / 'kahuna.db'}"
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.ws_url = f"ws://127.0.0.1:{self.port}"
        self.log_path = tmp / f"server-{self.port}.log"
        self.deals = deals
        self.process: launcher.ServerProcess | None = None

    def start(self) -> Server:
        env = {**os.environ, "KAHUNA_DATA": str(self.tmp / "data")}
        if self.script is None and self.deals is None:
            serve = ("serve", "--port", str(self.port), "--db", self.db, "--test-seed", TEST_SEED, *self.args)
            self.process = launcher.launch(serve, self.log_path, env, cwd=ROOT)
        else:
            if self.script is not None:
                command = [sys.executable, self.script, str(self.port), self.db]
            else:
                (self.tmp / "deals.json").write_text(json.dumps(self.deals))
                (self.tmp / "run_with_deals.py").write_text(RUN_WITH_DEALS)
                script = str(self.tmp / "run_with_deals.py")
                command = [sys.executable, script, str(self.port), self.db, str(self.tmp / "deals.json")]
            with open(self.log_path, "ab") as log:
                self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)
        deadline = time.monotonic() + START_SECONDS
        while time.monotonic() < deadline:
            assert self.process.poll() is None, self.log()
            try:
                loopback.get(f"{self.url}/api/games/x", timeout=1)
                return self
            except httpx.HTTPError:
                time.sleep(0.05)
        self.stop()  # no test will: a server left running loads the machine the next tests run on
        raise AssertionError("server did not start: " + self.log())

    def kill(self) -> None:
        """SIGKILL: no shutdown code runs."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def post(self, path: str, body: Any) -> httpx.Response:
        return loopback.post(self.url + path, json=body, timeout=10)

    def get(self, path: str) -> httpx.Response:
        return loopback.get(self.url + path, timeout=10)

    def create(self, **body: Any) -> dict[str, Any]:
        response = self.post("/api/games", body)
        assert response.status_code == 201, response.text
        created: dict[str, Any] = response.json()
        return created


class Conn:
    """A WebSocket client speaking docs/protocol.md; ``texts`` keeps every frame received, raw."""

    def __init__(self, ws: Any, token: str | None = None) -> None:
        self.ws = ws
        self.texts: list[str] = []
        self.token = token
        """The seat token, sent with the first ``hello``."""

    async def send(self, **message: Any) -> None:
        await self.ws.send(json.dumps(message))

    async def send_raw(self, text: str | bytes) -> None:
        await self.ws.send(text)

    async def recv(self, timeout: float = 15) -> dict[str, Any]:
        text = await asyncio.wait_for(self.ws.recv(), timeout)
        self.texts.append(text)
        message: dict[str, Any] = json.loads(text)
        return message

    async def until(self, predicate: Callable[[dict[str, Any]], bool], timeout: float = 15) -> dict[str, Any]:
        while True:
            message = await self.recv(timeout)
            if predicate(message):
                return message

    async def state(self) -> dict[str, Any]:
        """Ask for a full sync (hello at the current version) and return it."""
        await self.hello(None)
        return await self.until(lambda m: m["type"] == "sync")

    async def hello(self, version: int | None) -> None:
        """Say hello (with the seat token, on the first one)."""
        token, self.token = self.token, None
        await self.send(type="hello", version=version, **({} if token is None else {"token": token}))

    async def close(self) -> None:
        await self.ws.close()


async def connect(
    server: Server, game_id: str, token: str | None = None, hello: bool = True, local: str | None = None
) -> Conn:
    """A WebSocket to the game (from the loopback address ``local``, e.g. ``127.0.0.7``, if given);
    ``token`` goes in the first ``hello``, sent here unless ``hello`` is false."""
    extra: dict[str, Any] = {} if local is None else {"local_addr": (local, 0)}
    conn = Conn(await websockets.connect(f"{server.ws_url}/ws/{game_id}", max_size=None, **extra), token)
    if hello:
        await conn.hello(None)
        await conn.until(lambda m: m["type"] == "sync")
    return conn


def run(coro: Awaitable[Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coro, 90))


class Player:
    """A connection that keeps the latest ``sync``/``update`` it received (``last``)."""

    def __init__(self, conn: Conn, last: dict[str, Any]) -> None:
        self.conn = conn
        self.last = last

    @classmethod
    async def join(cls, server: Server, game_id: str, token: str | None = None) -> Player:
        conn = await connect(server, game_id, token, hello=False)
        await conn.hello(None)
        return cls(conn, await conn.until(lambda m: m["type"] == "sync"))

    @property
    def version(self) -> int:
        version: int = self.last["version"]
        return version

    @property
    def over(self) -> bool:
        return self.last["view"]["result"] is not None

    async def reach(self, version: int) -> None:
        """Read until the update that brings this connection to ``version``."""
        while self.version < version:
            message = await self.conn.until(lambda m: m["type"] in ("update", "sync"))
            self.last = message

    async def play(self, token: str, msg_id: str = "m") -> dict[str, Any]:
        """Send ``token`` at the current version; the ack, then wait for the update."""
        await self.conn.send(type="action", action=token, version=self.version, id=msg_id)
        reply = await self.conn.until(lambda m: m["type"] in ("ack", "error"))
        assert reply["type"] == "ack", reply
        await self.reach(reply["version"])
        return reply


async def play_random(players: dict[int, Player], others: list[Player], rng: Any, steps: int | None) -> None:
    """Both seats (in ``players``) play random legal tokens; ``others`` follow along. ``None``: to the end."""
    done = 0
    while steps is None or done < steps:
        anyone = next(iter(players.values()))
        if anyone.over:
            return
        mover = players[anyone.last["view"]["to_move"]]
        await mover.reach(anyone.version)
        legal = mover.last["legal"]
        assert legal, mover.last
        ack = await mover.play(legal[rng.randrange(len(legal))])
        for player in [*players.values(), *others]:
            await player.reach(ack["version"])
        done += 1
