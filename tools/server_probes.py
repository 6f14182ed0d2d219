"""Nine attacks, each measured against a fresh server (docs/server.md, *Probes*).

``python tools/server_probes.py [--source DIR] [--only 1,5,9]``: each probe starts ``kahuna
serve`` from a source tree (``--source``, default: this checkout)
on a free loopback port with a throwaway SQLite file, attacks it as listed below, and prints
one line of figures. With ``--source`` pointing at an older checkout (e.g. ``git archive
COMMIT | tar -x -C /tmp/old``) the same command gives the figures from before a change. Seats send
their token both in the first ``hello`` and in the query string, so that servers from before and
after the token moved both see seats (the query string is not read since it was dropped).

1. hello flood: 1,000 ``hello`` at version 0 on a finished game; another game's ping, worst case;
   then 200 concurrent replay requests (from another process) and the same ping.
2. quotas: 30 expert-AI games from one address, then the wait for an easy game's first AI move;
   2,000 game creations from one client and the server's RSS.
3. damaged rows: a game with bad ``variant`` JSON, then a restart; a read-only database.
4. slow connections: a silent socket, trickled headers, 300 idle sockets from one address.
5. hostile frames: 4 KB of nested arrays, then a message ``id`` that is a lone surrogate.
6. AI workers after ``SIGKILL`` of the server.
7. ``/docs`` and the Content-Security-Policy of the pages.
8. names with a bidi override, a zero-width space, a line separator.
9. a seat token in ``hello`` without the query string.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
import websockets
from websockets.asyncio.client import ClientConnection

PROBES = ("1", "2", "3", "4", "5", "6", "7", "8", "9")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="python tools/server_probes.py",
        description="Attack fresh kahuna servers (started from --source) in nine ways and print what each "
        "attack achieved: stalls, quotas, restarts, open sockets, errors, workers.",
    )
    p.add_argument("--source", type=Path, help="source tree to run the servers from (default: this checkout)")
    p.add_argument("--only", default=",".join(PROBES), help="comma-separated probe numbers (default: all)")
    args = p.parse_args(argv)
    source = (args.source or Path(__file__).resolve().parents[1]).resolve()
    only = set(args.only.split(","))
    unknown = only - set(PROBES)
    if unknown:
        p.error(f"no probe {', '.join(sorted(unknown))} (probes: {', '.join(PROBES)})")
    asyncio.run(_main(source, only))
    return 0


async def _main(source: Path, only: set[str]) -> None:
    for probe in PROBES:
        if probe in only:
            with tempfile.TemporaryDirectory(prefix="kahuna-probe-") as tmp:
                line = await PROBE_FUNCTIONS[probe](Launcher(source, Path(tmp)))
            print(f"{probe}. {line}", flush=True)


class Launcher:
    """Starts ``kahuna serve`` processes from a source tree on free loopback ports."""

    def __init__(self, source: Path, tmp: Path) -> None:
        self.source = source
        self.tmp = tmp
        self.db = tmp / "k.db"

    def start(self, *extra: str, db_url: str | None = None) -> tuple[subprocess.Popen[bytes], str]:
        port = _free_port()
        env = {**os.environ, "PYTHONPATH": str(self.source), "KAHUNA_DATA": str(self.tmp)}
        command = [
            sys.executable,
            "-m",
            "kahuna",
            "serve",
            "--port",
            str(port),
            "--db",
            db_url or f"sqlite:///{self.db}",
        ]
        log = open(self.tmp / f"server-{port}.log", "wb")  # noqa: SIM115 - the child writes to it
        process = subprocess.Popen([*command, *extra], cwd=self.source, env=env, stdout=log, stderr=log)
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and process.poll() is None:
            try:
                httpx.get(url + "/api/games/x", timeout=1)
                break
            except httpx.HTTPError:
                time.sleep(0.1)
        return process, url


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        process.wait(10)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _rss_mib(pid: int) -> float:
    with open(f"/proc/{pid}/status", encoding="ascii") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:")) / 1024


async def _connect(url: str, game_id: str, token: str | None = None) -> tuple[ClientConnection, dict[str, Any]]:
    """A connection that has said hello (a seat if ``token``), and its sync."""
    query = "" if token is None else f"?token={token}"  # read only by servers from before the token moved
    ws = await websockets.connect(f"ws{url[4:]}/ws/{game_id}{query}", max_size=None)
    hello: dict[str, Any] = {"type": "hello", "version": None}
    if token is not None:
        hello["token"] = token
    await ws.send(json.dumps(hello))
    while True:
        message = json.loads(await ws.recv())
        if message["type"] == "sync":
            return ws, message


async def _play_to_end(url: str, seed: int) -> tuple[str, int]:
    """A hotseat game played to its end with random legal tokens: its id and length."""
    rng = random.Random(seed)
    created = httpx.post(url + "/api/games", json={"opponent": "hotseat", "seat": "first"}).json()
    seats = [await _connect(url, created["game_id"], token) for token in created["tokens"]]
    last = [sync for _, sync in seats]
    while last[0]["view"]["result"] is None:
        mover = last[0]["view"]["to_move"]
        await seats[mover][0].send(
            json.dumps(
                {"type": "action", "action": rng.choice(last[mover]["legal"]), "version": last[mover]["version"]}
            )
        )
        target = last[mover]["version"] + 1
        for seat in (0, 1):
            while last[seat]["version"] < target:
                message = json.loads(await seats[seat][0].recv())
                if message["type"] in ("update", "sync"):
                    last[seat] = message
                elif message["type"] == "error":  # rate limited: wait, then send it again
                    await asyncio.sleep(float(message.get("retry_after", 0.1)))
                    break
            else:
                continue
            break
    for ws, _ in seats:
        await ws.close()
    return created["game_id"], last[0]["version"]


async def _ping_worst(url: str, game_id: str, stop: asyncio.Event) -> float:
    """Ping ``game_id`` every 100 ms until ``stop``; the worst round trip in ms."""
    ws, _ = await _connect(url, game_id)
    worst = 0.0
    while not stop.is_set():
        start = time.perf_counter()
        await ws.send('{"type":"ping"}')
        while json.loads(await ws.recv())["type"] != "pong":
            pass
        worst = max(worst, time.perf_counter() - start)
        await asyncio.sleep(0.1)
    await ws.close()
    return 1000 * worst


REPLAY_FLOOD = """
import asyncio, json, sys, httpx
async def main():
    async with httpx.AsyncClient(base_url=sys.argv[1], timeout=60) as http:
        answers = await asyncio.gather(*[http.get(sys.argv[2]) for _ in range(200)], return_exceptions=True)
    counts = {}
    for a in answers:
        key = str(a.status_code) if isinstance(a, httpx.Response) else type(a).__name__
        counts[key] = counts.get(key, 0) + 1
    print(json.dumps(counts))
asyncio.run(main())
"""


async def probe_hello_flood(launcher: Launcher) -> str:
    process, url = launcher.start()
    try:
        finished, length = await _play_to_end(url, 1)
        other = httpx.post(url + "/api/games", json={"opponent": "hotseat"}).json()["game_id"]
        stop = asyncio.Event()
        pinger = asyncio.create_task(_ping_worst(url, other, stop))
        await asyncio.sleep(0.5)
        flood = await websockets.connect(f"ws{url[4:]}/ws/{finished}", max_size=None)
        for _ in range(1000):
            await flood.send('{"type":"hello","version":0}')
        await asyncio.sleep(3)
        stop.set()
        hello_worst = await pinger
        await flood.close()
        stop = asyncio.Event()
        pinger = asyncio.create_task(_ping_worst(url, other, stop))
        await asyncio.sleep(0.3)
        command = [sys.executable, "-c", REPLAY_FLOOD, url, f"/api/games/{finished}/replay"]
        flood_process = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
        out, _ = await flood_process.communicate()
        stop.set()
        replay_worst = await pinger
    finally:
        _stop(process)
    return (
        f"1,000 hellos on a finished {length}-action game: another game's worst ping {hello_worst:.0f} ms; "
        f"200 concurrent replays ({out.decode().strip()}): worst ping {replay_worst:.0f} ms"
    )


async def probe_quotas(launcher: Launcher) -> str:
    process, url = launcher.start()
    try:
        transport = httpx.AsyncHTTPTransport(local_address="127.0.0.2")
        async with httpx.AsyncClient(base_url=url, timeout=60, transport=transport) as http:
            made = 0
            for _ in range(30):
                body = {"opponent": "ai", "level": "expert", "seat": "second"}
                made += (await http.post("/api/games", json=body)).status_code == 201
        start = time.perf_counter()
        easy = httpx.post(url + "/api/games", json={"opponent": "ai", "level": "easy", "seat": "second"}).json()
        ws, message = await _connect(url, easy["game_id"], easy["token"])
        while not message["view"]["history"]:
            message = json.loads(await ws.recv())
            if message["type"] not in ("update", "sync"):
                message = {"view": {"history": []}}
        waited = time.perf_counter() - start
        await ws.close()
        before = _rss_mib(process.pid)
        counts: dict[int, int] = {}
        start = time.perf_counter()
        async with httpx.AsyncClient(base_url=url, timeout=60) as http:
            for _ in range(2000):
                status = (await http.post("/api/games", json={"opponent": "human"})).status_code
                counts[status] = counts.get(status, 0) + 1
        seconds = time.perf_counter() - start
        after = _rss_mib(process.pid)
    finally:
        _stop(process)
    return (
        f"{made} expert games from one address, then an easy game's first AI move after {waited:.2f} s; "
        f"2,000 creations from one client in {seconds:.1f} s: {counts}, RSS {before:.0f} -> {after:.0f} MiB"
    )


async def probe_damaged(launcher: Launcher) -> str:
    process, url = launcher.start()
    damaged = httpx.post(url + "/api/games", json={"opponent": "hotseat"}).json()["game_id"]
    healthy = httpx.post(url + "/api/games", json={"opponent": "hotseat"}).json()["game_id"]
    _stop(process)
    with sqlite3.connect(launcher.db) as db:
        db.execute("UPDATE games SET variant = '{bad' WHERE id = ?", (damaged,))
    process, url = launcher.start()
    if process.poll() is None:
        answers = [httpx.get(f"{url}/api/games/{game}").status_code for game in (damaged, healthy)]
        restart = f"the server runs; the damaged game answers {answers[0]}, the other {answers[1]}"
        _stop(process)
    else:
        restart = f"the server exits with status {process.returncode}"
    with sqlite3.connect(launcher.db) as db:
        db.execute("UPDATE games SET variant = '{}' WHERE id = ?", (damaged,))
    process, url = launcher.start(db_url=f"sqlite:///file:{launcher.db}?mode=ro&uri=true")
    if process.poll() is None:
        created = httpx.post(url + "/api/games", json={"opponent": "hotseat"}).status_code
        read_only = f"starts, and a new game is answered {created}"
        _stop(process)
    else:
        log = sorted(launcher.tmp.glob("server-*.log"), key=lambda p: p.stat().st_mtime)[-1].read_text().strip()
        read_only = f"exits with status {process.returncode} after {len(log.splitlines())} line(s) of log"
    return f"bad variant JSON, then a restart: {restart}; a read-only database: {read_only}"


def _still_open(sock: socket.socket) -> bool:
    sock.setblocking(False)
    try:
        return sock.recv(1) != b""
    except BlockingIOError:
        return True
    except OSError:
        return False


async def probe_slow(launcher: Launcher) -> str:
    process, url = launcher.start()
    try:
        port = int(url.rsplit(":", 1)[1])
        silent = socket.create_connection(("127.0.0.1", port))
        trickle = socket.create_connection(("127.0.0.1", port))
        trickle.sendall(b"GET /api/games/x HTTP/1.1\r\nHost: x\r\n")
        idle = []
        for _ in range(300):
            try:
                idle.append(socket.create_connection(("127.0.0.1", port), timeout=2))
            except OSError:
                break
        await asyncio.sleep(1)
        kept = sum(_still_open(sock) for sock in idle)
        for sock in idle:
            sock.close()
        await asyncio.sleep(14)
        result = (
            f"after 15 s a silent socket is {'open' if _still_open(silent) else 'closed'}, trickled headers "
            f"{'open' if _still_open(trickle) else 'closed'}; {kept} of 300 idle sockets from one address kept open"
        )
        silent.close()
        trickle.close()
    finally:
        _stop(process)
    return result


async def probe_frames(launcher: Launcher) -> str:
    process, url = launcher.start()
    try:
        created = httpx.post(url + "/api/games", json={"opponent": "hotseat", "seat": "first"}).json()
        ws, _ = await _connect(url, created["game_id"], created["tokens"][0])
        await ws.send("[" * 2000 + "]" * 2000)
        reply = json.loads(await ws.recv())
        while reply["type"] != "error":
            reply = json.loads(await ws.recv())
        await ws.send('{"type":"action","action":"Z>Q","version":0,"id":"\\ud800"}')
        await ws.send('{"type":"ping"}')
        later = []
        try:
            while True:
                later.append(json.loads(await asyncio.wait_for(ws.recv(), 3))["type"])
        except (TimeoutError, websockets.ConnectionClosed):
            pass
        await ws.close()
    finally:
        _stop(process)
    return f"4 KB of nested arrays: error {reply['code']!r}; a lone-surrogate id, then a ping: replies {later}"


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry.name))
            except (OSError, IndexError):
                continue
    return out


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


async def probe_workers(launcher: Launcher) -> str:
    process, url = launcher.start("--ai-workers", "2")
    httpx.post(url + "/api/games", json={"opponent": "ai", "level": "easy", "seat": "second"})
    await asyncio.sleep(2)
    children = _children(process.pid)
    process.send_signal(signal.SIGKILL)
    process.wait()
    await asyncio.sleep(3)
    alive = [pid for pid in children if _alive(pid)]
    memory = sum(_rss_mib(pid) for pid in alive)
    for pid in alive:
        os.kill(pid, signal.SIGKILL)
    return f"SIGKILL: {len(children)} child processes before, {len(alive)} alive 3 s later ({memory:.0f} MiB)"


async def probe_pages(launcher: Launcher) -> str:
    process, url = launcher.start()
    try:
        docs = httpx.get(url + "/docs")
        policy = httpx.get(url + "/").headers.get("content-security-policy")
    finally:
        _stop(process)
    return f"/docs answers {docs.status_code} (a CDN script: {'cdn' in docs.text}); page CSP: {policy!r}"


async def probe_names(launcher: Launcher) -> str:
    process, url = launcher.start()
    try:
        names = {"U+202E": "a\u202eb", "U+200B": "a\u200bb", "U+2028": "a\u2028b"}
        answers = {
            label: httpx.post(url + "/api/games", json={"opponent": "human", "name": name}).status_code
            for label, name in names.items()
        }
    finally:
        _stop(process)
    return f"names with {', '.join(f'{label}: {status}' for label, status in answers.items())}"


async def probe_token(launcher: Launcher) -> str:
    process, url = launcher.start()
    try:
        created = httpx.post(url + "/api/games", json={"opponent": "hotseat"}).json()
        ws = await websockets.connect(f"ws{url[4:]}/ws/{created['game_id']}", max_size=None)
        await ws.send(json.dumps({"type": "hello", "version": None, "token": created["tokens"][0]}))
        sync = json.loads(await ws.recv())
        await ws.close()
    finally:
        _stop(process)
    return f"a seat token in hello, none in the URL: the connection is seat {sync.get('seat')}"


PROBE_FUNCTIONS = {
    "1": probe_hello_flood,
    "2": probe_quotas,
    "3": probe_damaged,
    "4": probe_slow,
    "5": probe_frames,
    "6": probe_workers,
    "7": probe_pages,
    "8": probe_names,
    "9": probe_token,
}


if __name__ == "__main__":
    sys.exit(main())
