"""SIGTERM with game sockets open: each is closed with 1001 *going away* once the frame in hand is
answered (``kahuna/server/http/draining.py``), so a player learns of every action stored for it.

Before, uvicorn cut every socket at once with 1012: an action whose commit was under way was
stored but its ``ack`` and ``update`` were thrown away with the connection.
"""

from __future__ import annotations

import json
from pathlib import Path

import websockets
from server_harness import Server, connect, run


def test_sigterm_answers_the_action_in_hand_then_closes_going_away(tmp_path: Path) -> None:
    server = Server(tmp_path).start()
    game = server.create(opponent="hotseat", seat="first")
    received: list[dict[str, object]] = []
    codes: list[int | None] = []

    async def scenario() -> None:
        player = await connect(server, game["game_id"], game["tokens"][0])
        spectator = await connect(server, game["game_id"])
        sync = await player.state()
        await player.send(type="action", action=sync["legal"][0], version=sync["version"], id="a")
        assert server.process is not None
        server.process.terminate()  # the action may be read before the signal or not: both are fine
        for conn in (player, spectator):
            try:
                while True:
                    text = await conn.ws.recv()
                    if conn is player:
                        received.append(json.loads(text))
            except websockets.ConnectionClosed as closed:
                codes.append(closed.rcvd.code if closed.rcvd is not None else None)

    try:
        run(scenario())
        assert server.process is not None
        server.process.wait(15)  # uvicorn ends by raising the signal again: its status is -15
    finally:
        server.stop()
    assert codes == [1001, 1001], codes
    log = server.log()
    assert '"event":"draining"' in log and '"event":"drained","left":0' in log
    acked = [m for m in received if m["type"] == "ack" and m.get("id") == "a"]
    updates = [m for m in received if m["type"] == "update"]
    # Whatever the timing: the action was answered and its update sent before the socket closed,
    # or it was not played at all (the client plays it again where it reconnects).
    restarted = Server(tmp_path).start()
    try:
        version = restarted.get(f"/api/games/{game['game_id']}").json()["version"]
    finally:
        restarted.stop()
    assert version == len(acked) == len(updates), (version, received)


def test_sigterm_closes_the_lobby_going_away_and_leaves_its_offers_to_be_owned_again(tmp_path: Path) -> None:
    """An owner's lobby socket closed by an instance going away does not cancel the owner's offer:
    the owner owns it again on the instance it reconnects to (here: the same one, restarted)."""
    server = Server(tmp_path).start()
    made = server.post("/api/seeks", {"name": "Stayer"})
    assert made.status_code == 201, made.text
    seek = made.json()
    own = json.dumps({"type": "own", "seek_id": seek["seek_id"], "token": seek["token"]})
    codes: list[int | None] = []

    async def leave() -> None:
        async with websockets.connect(f"{server.ws_url}/ws/lobby") as owner:
            assert json.loads(await owner.recv())["type"] == "seeks"
            await owner.send(own)
            assert json.loads(await owner.recv())["type"] == "owned"
            assert server.process is not None
            server.process.terminate()
            try:
                while True:
                    await owner.recv()
            except websockets.ConnectionClosed as closed:
                codes.append(closed.rcvd.code if closed.rcvd is not None else None)

    async def come_back(again: Server) -> tuple[dict[str, object], str]:
        """The answer to ``own`` and the offer's status then (closing this socket cancels it)."""
        async with websockets.connect(f"{again.ws_url}/ws/lobby") as owner:
            await owner.recv()
            await owner.send(own)
            answer: dict[str, object] = json.loads(await owner.recv())
            return answer, again.get(f"/api/seeks/{seek['seek_id']}").json()["status"]

    try:
        run(leave())
        assert server.process is not None
        server.process.wait(15)
    finally:
        server.stop()
    assert codes == [1001], codes
    assert '"event":"lobby_close","owned":1,"going_away":true' in server.log()
    restarted = Server(tmp_path).start()
    try:
        answer, status = run(come_back(restarted))
        assert answer == {"type": "owned", "seek_id": seek["seek_id"], "alive_seconds": 30.0}
        assert status == "open"
    finally:
        restarted.stop()
