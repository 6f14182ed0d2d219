"""The floor of ``kahuna bench server --floor``: the server's transport doing an action's I/O without the game.

What one action costs the game server is measured against what the same I/O costs with no game
behind it (issue 26): the same clients (``kahuna bench server``'s), the same stack (uvicorn with the
server's HTTP protocol class and WebSocket settings, or another of ``kahuna.server.stacks``;
FastAPI; the group-commit :class:`~kahuna.server.db.writer.Writer` on a SQLite database opened as
the server opens it), and per action the same I/O: one frame received and parsed as JSON, one action
row committed before the ``ack``, then the ``ack`` and each connection's ``update`` sent, byte for
byte the frames a real game sends. Those frames are computed before the server starts, by playing a
few games with random legal actions through the referee and encoding every recipient's ``sync`` and
``update`` as the server does (``games/messages.py``); at run time a floor game only walks through
its recorded frames, whatever legal token the client picked. No referee, no views, no logs, no
limits, clocks or chat: what remains is what an action cannot cost less than on this stack.

Run by the bench as ``python -m kahuna.bench.floor --port P --db URL``; it answers
``POST /api/games`` (a hotseat game: ``game_id`` and both ``tokens``) and ``/ws/{game_id}``
(``hello`` with a token, then ``action``), nothing else.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

from fastapi import FastAPI, WebSocket, WebSocketDisconnect
from fastapi.responses import JSONResponse
from starlette.requests import Request

from kahuna.rules import GameState, view_of
from kahuna.server.common.config import Limits
from kahuna.server.common.logs import configure
from kahuna.server.common.tokens import digest, new_game_id, new_secret
from kahuna.server.db import store
from kahuna.server.db.store import ActionRow, StoredGame
from kahuna.server.db.writer import Writer
from kahuna.server.games import messages
from kahuna.server.games.live import HUMAN, Client
from kahuna.server.serve import listen, tune_gc
from kahuna.server.stacks import add_stack_option, run

DEALS = 16
"""Recorded games: floor game ``n`` replays recording ``n % DEALS``."""


@dataclass(frozen=True)
class Recording:
    """One game's frames as each seat got them: ``syncs[seat]`` at the start, then for each action
    ``updates[version - 1][seat, protocol]`` and the seat that played it."""

    deal: str
    syncs: tuple[str, str]
    updates: list[dict[tuple[int, int], str]]
    movers: list[int]


def record(seed: int) -> Recording:
    """Play a game with random legal actions and encode what the server would send each seat."""
    rng = random.Random(seed)
    state = GameState.new(random.Random(seed))
    names, kinds = ["bench", "Player 2"], [HUMAN, HUMAN]
    syncs = []
    for seat in (0, 1):
        sync = messages.sync(state, seat, messages.PLAYING, names, kinds, chat=[])
        syncs.append(messages.encode(sync))
    updates: list[dict[tuple[int, int], str]] = []
    movers = []
    views = [view_of(state, seat).to_json() for seat in (0, 1)]
    while not state.is_over:
        mover = state.to_move
        events = state.apply(rng.choice(state.legal_actions()))
        status = messages.status_of(state, True)
        texts = {}
        for seat in (0, 1):
            shown = view_of(state, seat).to_json()
            for protocol in messages.PROTOCOLS:
                before = views[seat] if protocol > 1 else None
                update = messages.update(
                    state, mover, events, seat, status, view=shown, before=before, protocol=protocol
                )
                texts[seat, protocol] = messages.encode(update)
            views[seat] = shown
        updates.append(texts)
        movers.append(mover)
    assert state.deal is not None
    return Recording(state.deal, (syncs[0], syncs[1]), updates, movers)


@dataclass(eq=False)
class FloorGame:
    game_id: str
    recording: Recording
    version: int = 0
    clients: set[Client] = field(default_factory=set)


class Floor:
    """The games of a floor server and the one writer that commits their rows."""

    def __init__(self, writer: Writer, recordings: list[Recording]) -> None:
        self.writer = writer
        self.recordings = recordings
        self.games: dict[str, FloorGame] = {}
        self.seats: dict[str, tuple[FloorGame, int]] = {}

    async def create(self) -> dict[str, object]:
        game_id = new_game_id()
        recording = self.recordings[len(self.games) % len(self.recordings)]
        tokens = [new_secret(), new_secret()]
        at = store.now()
        stored = StoredGame(
            game_id, at, at, {}, recording.deal, [HUMAN, HUMAN], ["bench", "Player 2"], None,
            [digest(tokens[0]), digest(tokens[1])], messages.PLAYING, [], [],
        )  # fmt: skip
        await self.writer.write(lambda conn: store.insert_game(conn, stored))
        game = self.games[game_id] = FloorGame(game_id, recording)
        for seat, token in enumerate(tokens):
            self.seats[token] = (game, seat)
        return {"game_id": game_id, "tokens": tokens}

    async def act(self, game: FloorGame, seat: int, client: Client, token: str) -> None:
        """Commit the row of the action, then the ``ack`` and every connection's ``update``."""
        version = game.version
        if version >= len(game.recording.movers) or game.recording.movers[version] != seat:
            client.send(messages.error("not_your_turn", "not your turn"))
            return
        row = ActionRow(game.game_id, version, seat, token, (), messages.PLAYING, None, store.now())
        await self.writer.write(row)
        game.version = version + 1
        client.send(messages.ack(None, game.version))
        texts = game.recording.updates[version]
        for other in game.clients:
            if other.seat is not None:
                other.send_text(texts[other.seat, other.protocol])


async def _send_loop(websocket: WebSocket, client: Client) -> None:
    while True:
        text = await client.outbox.get()
        if text is None:
            return
        await websocket.send_text(text)


async def _serve_socket(floor: Floor, websocket: WebSocket, game_id: str) -> None:
    await websocket.accept()
    game = floor.games.get(game_id)
    if game is None:
        await websocket.close(4404)
        return
    client = Client(None)
    sender = asyncio.create_task(_send_loop(websocket, client))
    try:
        while True:
            frame = await asyncio.wait_for(websocket.receive(), 60)
            if frame["type"] == "websocket.disconnect":
                break
            data = json.loads(frame["text"])
            if data["type"] == "hello":
                found = floor.seats.get(data["token"])
                if found is None or found[0] is not game:
                    break
                client.seat = found[1]
                client.protocol = max(v for v in messages.PROTOCOLS if v <= data.get("protocol", 1))
                client.send_text(game.recording.syncs[found[1]])
                game.clients.add(client)
                client.send(messages.presence([True, True], [None, None], 0.0, 30.0))
            elif data["type"] == "action" and client.seat is not None:
                await floor.act(game, client.seat, client, data["action"])
    except (WebSocketDisconnect, TimeoutError, RuntimeError):
        pass
    finally:
        game.clients.discard(client)
        client.stop()
        sender.cancel()


def create_app(db_url: str) -> FastAPI:
    recordings = [record(seed) for seed in range(DEALS)]
    engine = store.open_engine(db_url)
    writer = Writer(engine)
    floor = Floor(writer, recordings)

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        writer.start()
        yield
        await writer.close()

    app = FastAPI(lifespan=lifespan)

    @app.post("/api/games")
    async def new_game(_request: Request) -> JSONResponse:
        return JSONResponse(await floor.create())

    @app.get("/api/games/{game_id}")
    async def no_game(game_id: str) -> JSONResponse:
        return JSONResponse({"code": "not_found"}, status_code=404)

    @app.websocket("/ws/{game_id}")
    async def game_ws(websocket: WebSocket, game_id: str) -> None:
        await _serve_socket(floor, websocket, game_id)

    return app


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m kahuna.bench.floor", description=__doc__)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--db", required=True, metavar="URL")
    parser.add_argument("--limit", action="append", default=[], metavar="NAME=VALUE", help="as kahuna serve's")
    add_stack_option(parser)
    args = parser.parse_args()
    configure()
    app = create_app(args.db)
    tune_gc()  # as the server does
    run(args.stack, app, listen("127.0.0.1", args.port), Limits().replace(args.limit))


if __name__ == "__main__":
    main()
