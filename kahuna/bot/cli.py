"""``kahuna bot``: run any agent as an online bot on a Kahuna server (docs/bot-protocol.md).

The bot signs in with a bot account's personal API token (``Authorization: Bearer``), listens on
``/ws/lobby`` for challenges to its account, accepts those its flags allow (declines the others)
and, with ``--seeks``, takes open lobby seeks of the kinds ``--accept`` allows; it plays each game
over the game WebSocket with a fresh agent of ``--agent`` (any agent spec, ``cmd:`` programs
included). A dropped lobby or game connection is reopened. With ``--tournament ID`` it joins that
tournament instead and plays every game it is paired into (``bot/tournament.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
from typing import Any

import httpx
import websockets

from kahuna.ai.registry import make_agent
from kahuna.ai.spec import SpecError
from kahuna.bot.client import RECONNECT_SECONDS, play_with_agent, ws_url
from kahuna.bot.tournament import TournamentBot

PING_SECONDS = 10.0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser(
        "bot",
        help="play on a server as an online bot (a bot account's token, any agent spec)",
        description="Connect an agent to a Kahuna server as an online bot: it accepts challenges and plays them.",
    )
    parser.add_argument("--server", required=True, help="the server's URL, e.g. http://127.0.0.1:8000")
    parser.add_argument("--token", required=True, help="a personal API token of a bot account (POST /api/me/bot)")
    parser.add_argument("--agent", required=True, help='any agent spec, e.g. "medium" or "cmd:python3 examples/bot.py"')
    parser.add_argument(
        "--accept", default="rated,casual", help="which challenges to accept: rated, casual or both (default both)"
    )
    parser.add_argument(
        "--seeks", action="store_true", help="also accept open lobby seeks (of the kinds --accept allows)"
    )
    parser.add_argument(
        "--tournament",
        default=None,
        help="join this tournament (its id) and play every game paired, until it ends"
        " (an id of an older server that begins with -: write --tournament=ID)",
    )
    parser.add_argument("--max-games", type=int, default=0, help="stop after this many games (0: never)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the agent's choices (default: random)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    accept = {part.strip() for part in args.accept.split(",") if part.strip()}
    if not accept <= {"rated", "casual"}:
        print("kahuna bot: --accept takes rated, casual or rated,casual", file=sys.stderr)
        return 2
    try:
        make_agent(args.agent)
    except SpecError as exc:
        print(f"kahuna bot: {exc}", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**63)
    if args.tournament is not None:
        headers = {"Authorization": f"Bearer {args.token}"}
        return asyncio.run(TournamentBot(args.server.rstrip("/"), headers, args.agent, args.tournament, seed).run())
    bot = OnlineBot(args.server.rstrip("/"), args.token, args.agent, accept, args.max_games, seed, args.seeks)
    return asyncio.run(bot.run())


class OnlineBot:
    def __init__(
        self, server: str, token: str, spec: str, accept: set[str], max_games: int, seed: int, seeks: bool = False
    ) -> None:
        self.server = server
        self.headers = {"Authorization": f"Bearer {token}"}
        self.spec = spec
        self.accept = accept
        self.max_games = max_games
        self.rng = random.Random(seed)
        self.started = 0
        self.games: set[asyncio.Task[None]] = set()
        self.seen: set[str] = set()
        self.seeks = seeks
        self.username: str | None = None

    def done(self) -> bool:
        return self.max_games > 0 and self.started >= self.max_games

    async def run(self) -> int:
        attempt = 0
        async with httpx.AsyncClient(base_url=self.server, headers=self.headers, timeout=30) as http:
            while not self.done():
                try:
                    await self._listen(http)
                    attempt = 0
                except (OSError, websockets.ConnectionClosed, websockets.InvalidStatus) as exc:
                    print(f"kahuna bot: lobby connection lost ({type(exc).__name__}); reconnecting", file=sys.stderr)
                    await asyncio.sleep(RECONNECT_SECONDS[min(attempt, len(RECONNECT_SECONDS) - 1)])
                    attempt += 1
            if self.games:
                await asyncio.gather(*self.games)
        return 0

    async def _listen(self, http: httpx.AsyncClient) -> None:
        async with websockets.connect(f"{ws_url(self.server)}/ws/lobby", additional_headers=self.headers) as ws:
            pinger = asyncio.create_task(self._ping(ws))
            try:
                async for text in ws:
                    message = json.loads(text)
                    if message.get("type") == "error" and message.get("code") == "unauthorized":
                        raise SystemExit(f"kahuna bot: the server refused the token: {message.get('message')}")
                    kind = message.get("type")
                    if kind == "challenges":
                        self.username = message.get("username")
                        print(f"kahuna bot: online as {self.username}", file=sys.stderr)
                        for challenge in message["challenges"]:
                            await self._consider(http, challenge)
                    elif kind == "challenge":
                        await self._consider(http, message["challenge"])
                    elif kind == "seeks" and self.seeks:
                        for seek in message["seeks"]:
                            await self._take_seek(http, seek)
                    elif kind == "seek_added" and self.seeks:
                        await self._take_seek(http, message["seek"])
                    if self.done():
                        return
            finally:
                pinger.cancel()

    async def _ping(self, ws: Any) -> None:
        while True:
            await asyncio.sleep(PING_SECONDS)
            await ws.send(json.dumps({"type": "ping"}))

    async def _consider(self, http: httpx.AsyncClient, challenge: dict[str, Any]) -> None:
        seek_id = challenge["seek_id"]
        if seek_id in self.seen or self.done():
            return
        self.seen.add(seek_id)
        wanted = ("rated" if challenge["rated"] else "casual") in self.accept
        if not wanted:
            await http.post(f"/api/challenges/{seek_id}/decline")
            print(f"kahuna bot: declined {challenge['username']}'s challenge", file=sys.stderr)
            return
        answer = await http.post(f"/api/challenges/{seek_id}/accept")
        if answer.status_code != 200:
            print(f"kahuna bot: could not accept ({answer.status_code} {answer.text})", file=sys.stderr)
            return
        self._start(answer.json(), challenge["username"])

    async def _take_seek(self, http: httpx.AsyncClient, seek: dict[str, Any]) -> None:
        """Accept an open lobby seek of a kind ``--accept`` allows (never the bot's own)."""
        wanted = ("rated" if seek["rated"] else "casual") in self.accept
        if not wanted or seek["seek_id"] in self.seen or seek["username"] == self.username or self.done():
            return
        self.seen.add(seek["seek_id"])
        answer = await http.post(f"/api/seeks/{seek['seek_id']}/accept")
        if answer.status_code != 200:  # taken by someone quicker, or withdrawn
            return
        self._start(answer.json(), seek["username"])

    def _start(self, seat: dict[str, Any], opponent: str) -> None:
        self.started += 1
        print(f"kahuna bot: playing {seat['game_id']} against {opponent}", file=sys.stderr)
        task = asyncio.create_task(self._play(seat))
        self.games.add(task)
        task.add_done_callback(self.games.discard)

    async def _play(self, seat: dict[str, Any]) -> None:
        final = await play_with_agent(self.server, seat["game_id"], seat["token"], self.spec, self.rng.randrange(2**63))
        result = final["view"].get("result")
        print(f"kahuna bot: game {seat['game_id']} over: {json.dumps(result)}", file=sys.stderr)
