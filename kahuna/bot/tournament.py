"""``kahuna bot --tournament ID``: join a tournament with the bot's account and play every game it is
paired into, until the tournament is finished.

The bot learns a new game at once from ``/ws/lobby`` (``tournament_game``) and, should that
connection be down, from ``GET /api/tournaments/<id>/me`` every :data:`POLL_SECONDS`. Its seats are
its account's: it plays them signed in with its token (``hello`` with ``seat``), no seat token.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
from typing import Any

import httpx
import websockets

from kahuna.bot.client import play_with_agent, ws_url

POLL_SECONDS = 1.0


class TournamentBot:
    def __init__(self, server: str, headers: dict[str, str], spec: str, tournament_id: str, seed: int) -> None:
        self.server = server
        self.headers = headers
        self.spec = spec
        self.tournament_id = tournament_id
        self.rng = random.Random(seed)
        self.playing: dict[str, asyncio.Task[dict[str, Any]]] = {}
        self.results: dict[str, dict[str, Any]] = {}

    async def run(self) -> int:
        """Join, play until the tournament is finished; 0, or 1 if the server refused to join."""
        async with httpx.AsyncClient(base_url=self.server, headers=self.headers, timeout=30) as http:
            joined = await http.post(f"/api/tournaments/{self.tournament_id}/join")
            code = joined.json().get("error") if joined.status_code >= 400 else None
            if joined.status_code >= 400 and code != "already_joined":
                print(f"kahuna bot: could not join: {joined.status_code} {joined.text}", file=sys.stderr)
                return 1
            print(f"kahuna bot: joined tournament {self.tournament_id}", file=sys.stderr)
            listener = asyncio.create_task(self._listen())
            try:
                while True:
                    try:
                        mine = (await http.get(f"/api/tournaments/{self.tournament_id}/me")).json()
                    except httpx.HTTPError:  # the server restarts: ask again
                        await asyncio.sleep(POLL_SECONDS)
                        continue
                    if mine.get("game_id"):
                        self._play(mine["game_id"], mine["seat"])
                    if mine.get("status") == "finished" and not any(not t.done() for t in self.playing.values()):
                        break
                    await asyncio.sleep(POLL_SECONDS)
            finally:
                listener.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await listener
            await asyncio.gather(*self.playing.values(), return_exceptions=True)
        print(f"kahuna bot: tournament {self.tournament_id} finished; {len(self.playing)} games", file=sys.stderr)
        return 0

    async def _listen(self) -> None:
        """Games announced on ``/ws/lobby``; the connection is reopened if it drops."""
        while True:
            try:
                async with websockets.connect(f"{ws_url(self.server)}/ws/lobby", additional_headers=self.headers) as ws:
                    async for text in ws:
                        message = json.loads(text)
                        if message.get("type") == "tournament_game" and message["tournament_id"] == self.tournament_id:
                            self._play(message["game_id"], message["seat"])
            except (OSError, websockets.ConnectionClosed, websockets.InvalidStatus, websockets.InvalidMessage):
                await asyncio.sleep(POLL_SECONDS)

    def _play(self, game_id: str, seat: int) -> None:
        """Play the game, unless it is being played; a play that failed (the server refused the seat
        for a while, say) is started again while the tournament still names the game."""
        running = self.playing.get(game_id)
        if running is not None and not (running.done() and not running.cancelled() and running.exception()):
            return
        print(f"kahuna bot: playing {game_id} (seat {seat})", file=sys.stderr)
        seed = self.rng.randrange(2**63)
        task = asyncio.create_task(play_with_agent(self.server, game_id, f"seat:{seat}", self.spec, seed, self.headers))
        self.playing[game_id] = task
