"""A server that can face the public internet: damaged rows, slow and half-open connections,
hostile frames, orphaned AI workers, the Content-Security-Policy, names, and the seat token in the
first message. Each against a real server with a real SQLite file.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import loopback
import pytest
import websockets
from server_harness import ROOT, Server, connect, free_port, run, wait_for


@pytest.fixture(scope="module")
def strict(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with short timeouts and a small connection cap per IP address."""
    limits = ["header_timeout=1", "body_timeout=1", "hello_timeout=1", "max_connections_per_ip=6"]
    args = tuple(arg for limit in limits for arg in ("--limit", limit))
    running = Server(tmp_path_factory.mktemp("strict"), args=args).start()
    yield running
    running.stop()


# ---------------------------------------------------------------- damaged rows


def test_damaged_games_are_quarantined_and_the_rest_is_served(tmp_path: Path) -> None:
    """A game whose row is damaged (bad variant, seat or action) is quarantined: it answers
    ``damaged`` (410) over HTTP and the WebSocket and is logged, while the server starts and serves
    the healthy games."""
    server = Server(tmp_path).start()
    games = [server.create(opponent="hotseat", seat="first") for _ in range(4)]
    server.stop()
    db = sqlite3.connect(tmp_path / "kahuna.db")
    bad_variant, bad_seat, bad_action, healthy = (g["game_id"] for g in games)
    db.execute("UPDATE games SET variant = '{not json' WHERE id = ?", (bad_variant,))
    db.execute("UPDATE seats SET seat = 7 WHERE game_id = ?", (bad_seat,))
    db.execute("INSERT INTO actions VALUES (?, 0, 0, 'zz', '2026-01-01T00:00:00Z')", (bad_action,))
    db.commit()
    db.close()
    server.start()
    try:
        for game_id in (bad_variant, bad_seat, bad_action):
            answer = server.get(f"/api/games/{game_id}")
            assert answer.status_code == 410 and answer.json()["error"] == "damaged", answer.text
            assert f'"event":"game_quarantined","game_id":"{game_id}"' in server.log()
        assert server.get(f"/api/games/{healthy}").json()["status"] == "playing"
        tokens = [g["token"] for g in games]
        assert [g["game_id"] for g in server.post("/api/my-games", {"tokens": tokens}).json()] == [healthy]

        async def watch_damaged() -> None:
            conn = await connect(server, bad_variant, hello=False)
            assert (await conn.recv())["code"] == "damaged"

        run(watch_damaged())
    finally:
        server.stop()


def test_an_unwritable_database_is_one_line_at_start(tmp_path: Path) -> None:
    Server(tmp_path).start().stop()  # a valid database, then opened read-only
    url = f"sqlite:///file:{tmp_path / 'kahuna.db'}?mode=ro&uri=true"
    command = [sys.executable, "-m", "kahuna", "serve", "--port", str(free_port()), "--db", url]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    assert result.stderr.strip().count("\n") == 0 and "cannot open the database" in result.stderr
    assert "readonly" in result.stderr


# ---------------------------------------------------------------- slow and half-open connections


def _closed_within(sock: socket.socket, seconds: float) -> bool:
    sock.settimeout(seconds)
    try:
        while sock.recv(4096):
            pass
        return True
    except TimeoutError:
        return False
    except OSError:
        return True


def test_silent_and_trickling_connections_are_closed(strict: Server) -> None:
    """A connection that sends nothing, or its headers or body too slowly, is closed once its
    time runs out (a slow body with a 408)."""
    silent = socket.create_connection(("127.0.0.1", strict.port))
    trickle = socket.create_connection(("127.0.0.1", strict.port))
    trickle.sendall(b"GET /api/games/x HTTP/1.1\r\nHost: x\r\n")
    body = socket.create_connection(("127.0.0.1", strict.port))
    head = b"POST /api/games HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 50\r\n\r\n"
    body.sendall(head + b"{")
    assert _closed_within(silent, 5) and _closed_within(trickle, 5)
    body.settimeout(5)
    assert b" 408 " in body.recv(4096).split(b"\r\n")[0] + b" "
    for sock in (silent, trickle, body):
        sock.close()


def test_a_websocket_that_never_says_hello_is_closed(strict: Server) -> None:
    game_id = strict.create(opponent="hotseat")["game_id"]

    async def scenario() -> None:
        ws = await websockets.connect(f"{strict.ws_url}/ws/{game_id}")
        assert json.loads(await asyncio.wait_for(ws.recv(), 5))["code"] == "timeout"
        with pytest.raises(websockets.ConnectionClosed):
            await asyncio.wait_for(ws.recv(), 5)

    run(scenario())


def test_connections_are_capped_per_address(strict: Server) -> None:
    """Of ten silent connections from one address, the four over the cap of six are refused at once;
    the six others are held until their header time runs out. Each of the ten ends in one of those
    two events of the log, so the test waits for ten of them."""
    refused = '"event":"connection_refused","limit":"max_connections_per_ip"'
    timed_out = '"event":"connection_timeout","limit":"header_timeout"'
    start = len(strict.log())

    def since_start(event: str) -> int:
        return strict.log()[start:].count(event)

    held = [socket.create_connection(("127.0.0.1", strict.port), source_address=("127.0.0.2", 0)) for _ in range(10)]
    wait_for(lambda: since_start(refused) + since_start(timed_out) >= 10, "the ten connections to be closed")
    assert (since_start(refused), since_start(timed_out)) == (4, 6)
    other = httpx.Client(
        verify=loopback.NO_CA,
        transport=httpx.HTTPTransport(verify=loopback.NO_CA, local_address="127.0.0.3"),
        timeout=5,
    )
    assert other.get(f"{strict.url}/api/games/nope").status_code == 404  # another address is served
    other.close()
    for sock in held:
        sock.close()


def test_the_cap_per_address_counts_websockets_and_frees_their_places(strict: Server) -> None:
    """Six WebSockets from one address fill its cap of six (a seventh connection is refused, the
    upgrade from HTTP kept each counted once); when they close, their six places are free again
    (six new ones open), so no count is lost or left behind across upgrades and closes."""
    refused = '"event":"connection_refused","limit":"max_connections_per_ip"'
    created = strict.create(opponent="hotseat", seat="first")
    gone = f'"event":"ws_close","game_id":"{created["game_id"]}"'

    def counted(line: str, times: int) -> Callable[[], bool]:
        return lambda: strict.log().count(line) == times

    async def scenario() -> None:
        for round_ in range(2):
            sockets = [await connect(strict, created["game_id"], local="127.0.0.4") for _ in range(6)]
            before = strict.log().count(refused)
            with pytest.raises((OSError, websockets.exceptions.WebSocketException)):
                await connect(strict, created["game_id"], local="127.0.0.4")
            wait_for(counted(refused, before + 1), f"round {round_}: the seventh refused")
            closed = strict.log().count(gone)
            for conn in sockets:
                await conn.close()
            # the app hears of a close after uvicorn has let the connection go
            wait_for(counted(gone, closed + 6), f"round {round_}: the six closes")

    run(scenario())


# ---------------------------------------------------------------- hostile frames


def test_deep_json_and_lone_surrogates_are_malformed(server: Server) -> None:
    """Deeply nested JSON and a lone surrogate in an id are answered ``malformed``, and the
    connection goes on answering."""
    created = server.create(opponent="hotseat", seat="first")

    async def scenario() -> None:
        conn = await connect(server, created["game_id"], created["tokens"][0])
        await conn.send_raw("[" * 2000 + "]" * 2000)
        assert (await conn.until(lambda m: m["type"] == "error"))["code"] == "malformed"
        await conn.send_raw('{"type": "action", "action": "Z>Q", "version": 0, "id": "\\ud800"}')
        assert (await conn.until(lambda m: m["type"] == "error"))["code"] == "malformed"
        await conn.send(type="ping")
        assert (await conn.until(lambda m: m["type"] != "presence")) == {"type": "pong"}

    run(scenario())


# ---------------------------------------------------------------- AI workers


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                out.append(int(entry.name))
    return out


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_ai_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    """The AI worker processes (and the resource tracker) exit when the server is killed with
    SIGKILL, when none of its shutdown code runs."""
    server = Server(tmp_path, args=("--ai-workers", "2")).start()
    server.create(opponent="ai", level="easy", seat="second")
    process = server.process
    assert process is not None
    wait_for(lambda: len(_children(process.pid)) >= 2, "the server to start its AI workers", timeout=20)
    children = _children(process.pid)
    server.kill()
    try:
        wait_for(lambda: not any(_alive(pid) for pid in children), "the workers to exit after the server")
    finally:
        for pid in children:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


# ---------------------------------------------------------------- only the project's own scripts


def test_pages_allow_only_the_projects_own_scripts(server: Server) -> None:
    for path in ("/", "/play/abc", "/static/js/app.js", "/api/games/nope"):
        policy = server.get(path).headers["content-security-policy"]
        assert "script-src 'self'" in policy and "default-src 'self'" in policy and "unsafe" not in policy
    assert server.get("/docs").status_code == 404 and server.get("/openapi.json").status_code == 200


# ---------------------------------------------------------------- names


def test_names_are_normalised_and_checked(server: Server) -> None:
    """Names with bidi overrides, zero-width or line separators, control characters, or over 40
    graphemes (a flag is one) are refused; accepted names are shown normalised (NFC, trimmed)."""
    for bad in ("Eve\u202eevil", "a\u200bb", "a\u2028b", "bell\x07", "\u200b", "x" * 41, "🇩🇪" * 41):
        answer = server.post("/api/games", {"opponent": "human", "name": bad})
        assert answer.status_code == 422 and answer.json()["error"] == "invalid", bad
    for good, shown in (("Jose\u0301", "José"), ("🇩🇪" * 40, "🇩🇪" * 40), ("  Ana  ", "Ana")):
        created = server.create(opponent="human", seat="first", name=good)
        assert server.get(f"/api/games/{created['game_id']}").json()["players"][0] == shown


# ---------------------------------------------------------------- the seat token in the first message


def test_the_seat_token_goes_in_the_first_hello(server: Server) -> None:
    created = server.create(opponent="hotseat", seat="first")
    game_id, tokens = created["game_id"], created["tokens"]

    async def scenario() -> None:
        seat = await connect(server, game_id, tokens[1])
        sync = await seat.state()
        assert sync["seat"] == 1
        await seat.send(type="hello", version=None, token=tokens[0])  # a connection keeps its seat
        assert (await seat.until(lambda m: m["type"] == "error"))["code"] == "forbidden"
        watcher = await connect(server, game_id)
        assert (await watcher.state())["seat"] is None
        await watcher.send(type="hello", version=None, token="made-up")  # nor does a spectator become one
        assert (await watcher.until(lambda m: m["type"] == "error"))["code"] == "forbidden"
        old = websockets.connect(f"{server.ws_url}/ws/{game_id}?token={tokens[0]}")
        async with old as ws:  # a token in the query string is not read: the connection is a spectator's
            await ws.send(json.dumps({"type": "hello", "version": None}))
            assert json.loads(await ws.recv())["seat"] is None

    run(scenario())
    assert '"event":"ws_token_in_query"' not in server.log()
