"""``kahuna bench lobby``: the lobby end to end through a real server, with the figures it yields.

Three measurements, each through HTTP and the WebSockets as a browser or a bot uses them:

1. **Pairing latency**: pairs of guest clients (each from its own loopback address) press "play
   now" at the same moment; the time until both hold their seat in the same game (the second
   gets it in the answer, the first from ``/ws/lobby``).
2. **A rated game between two accounts**: a rated seek, accepted, played to the end by two
   agents over the game WebSocket; both players' ratings before and after.
3. **A rated game against an AI level's bot account** (``ai-<level>``), the same way.

Without ``--url`` it starts its own server on a free port with a throwaway SQLite file.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import secrets
import statistics
import sys
import time
from typing import Any

import httpx
import websockets

from kahuna.bench.server import own_server
from kahuna.bot.client import play_with_agent, ws_url

PASSWORD = "a long bench passphrase 7"
CLOCK = {"initial": 300, "increment": 3}


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = sub.add_parser("lobby", help="pairing latency and rated games through a real server")
    parser.add_argument("--url", default=None, help="a running server (default: start one)")
    parser.add_argument("--pairs", type=int, default=20, help="quick pairings to time (default 20)")
    parser.add_argument("--agent", default="medium", help="the agent of both accounts in the rated games")
    parser.add_argument("--level", default="easy", help="the AI level played against (its ai-<level> account)")
    parser.add_argument("--series", type=int, default=0, help="then one account plays N rated games against the level")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.url is not None:
        report = asyncio.run(measure(args.url.rstrip("/"), args.pairs, args.agent, args.level, args.seed, args.series))
    else:
        with own_server() as (url, _pid):
            report = asyncio.run(measure(url, args.pairs, args.agent, args.level, args.seed, args.series))
    if args.json:
        print(json.dumps(report, indent=1))
    else:
        print_report(report)
    return 0


# ---------------------------------------------------------------------------- clients


def client(url: str, address: str | None = None, headers: dict[str, str] | None = None) -> httpx.AsyncClient:
    """An HTTP client, from ``address`` (a loopback address: one client per simulated person)."""
    transport = httpx.AsyncHTTPTransport(local_address=address) if address else None
    return httpx.AsyncClient(base_url=url, transport=transport, headers=headers or {}, timeout=30)


async def new_account(url: str, username: str, bot: bool = False) -> dict[str, str]:
    """Sign up, sign in, (make the account a bot), and return Bearer headers of a new API token.

    Each account signs up from an address of its own (``127.0.6.x``, from its name), as people do:
    sign-ups are rate limited per address."""
    address = f"127.0.6.{sum(username.encode()) % 250 + 1}" if url.startswith("http://127.") else None
    async with client(url, address) as http:
        created = await http.post("/api/accounts", json={"username": username, "password": PASSWORD})
        assert created.status_code == 201, created.text
        signed_in = await http.post("/api/session", json={"username": username, "password": PASSWORD})
        assert signed_in.status_code == 200, signed_in.text
        csrf = {"X-CSRF-Token": http.cookies.get("csrf") or ""}
        if bot:
            made = await http.post("/api/me/bot", headers=csrf)
            assert made.status_code == 200, made.text
        token = await http.post(
            "/api/tokens", json={"name": "bench", "password": PASSWORD, "scopes": ["play"]}, headers=csrf
        )
        assert token.status_code == 201, token.text
        return {"Authorization": f"Bearer {token.json()['token']}"}


async def rating(url: str, username: str, pool: str = "realtime") -> dict[str, Any]:
    async with client(url) as http:
        answer = await http.get(f"/api/users/{username}")
        answer.raise_for_status()
        shown: dict[str, Any] = answer.json()["ratings"][pool]
        return shown


async def wait_accepted(url: str, seek_id: str, token: str, address: str | None = None) -> dict[str, Any]:
    """Wait on ``/ws/lobby`` until the offer ``seek_id`` is accepted; its owner's seat links."""
    async with websockets.connect(f"{ws_url(url)}/ws/lobby", **_local(address)) as ws:
        await ws.send(json.dumps({"type": "own", "seek_id": seek_id, "token": token}))
        async for text in ws:
            message = json.loads(text)
            if message.get("type") == "accepted" and message.get("seek_id") == seek_id:
                return dict(message)
    raise RuntimeError("the lobby connection closed before the offer was accepted")


def _local(address: str | None) -> dict[str, Any]:
    """``websockets.connect`` options that bind the client to ``address``."""
    return {} if address is None else {"local_addr": (address, 0)}


# ---------------------------------------------------------------------------- measurements


async def pairing_latency(url: str, pairs: int) -> list[float]:
    """Seconds from two players pressing "play now" together until both have their seat."""
    times = []
    for index in range(pairs):
        first_address, second_address = f"127.0.3.{2 * index % 250 + 1}", f"127.0.3.{2 * index % 250 + 2}"
        start = time.perf_counter()
        async with client(url, first_address) as first, client(url, second_address) as second:
            one = (await first.post("/api/pairing", json={"clock": CLOCK, "name": "First"})).json()
            waiting = asyncio.create_task(wait_accepted(url, one["seek_id"], one["token"], first_address))
            two = (await second.post("/api/pairing", json={"clock": CLOCK, "name": "Second"})).json()
            if "game_id" not in two:  # the matcher pairs them within a second instead
                two = await _poll_accepted(second, two)
            seat_one = await waiting
        times.append(time.perf_counter() - start)
        assert seat_one["game_id"] == two["game_id"] and seat_one["seat"] != two["seat"]
    return times


async def _poll_accepted(http: httpx.AsyncClient, offer: dict[str, Any]) -> dict[str, Any]:
    while True:
        status = (await http.get(f"/api/seeks/{offer['seek_id']}", headers={"X-Seek-Token": offer["token"]})).json()
        if "game_id" in status:
            return dict(status)
        await asyncio.sleep(0.05)


async def rated_game(url: str, agent: str, seed: int) -> dict[str, Any]:
    """Two new accounts play a rated game from a seek to the end; the ratings it moved."""
    suffix = secrets.token_hex(3)
    names = [f"alice-{suffix}", f"bob-{suffix}"]
    headers = [await new_account(url, name) for name in names]
    before = [await rating(url, name) for name in names]
    async with client(url, headers=headers[0]) as alice, client(url, headers=headers[1]) as bob:
        seek = (await alice.post("/api/seeks", json={"clock": CLOCK, "rated": True})).json()
        waiting = asyncio.create_task(wait_accepted(url, seek["seek_id"], seek["token"]))
        await asyncio.sleep(0.2)  # the seeker's lobby connection owns the seek before it is accepted
        taken = await bob.post(f"/api/seeks/{seek['seek_id']}/accept")
        assert taken.status_code == 200, taken.text
        seats = [await waiting, taken.json()]
    finals = await asyncio.gather(
        *(play_with_agent(url, seat["game_id"], seat["token"], agent, seed + i) for i, seat in enumerate(seats))
    )
    after = [await rating(url, name) for name in names]
    return {
        "game_id": seats[0]["game_id"],
        "players": names,
        "seats": [seat["seat"] for seat in seats],
        "result": finals[0]["view"]["result"],
        "actions": finals[0]["version"],
        "before": before,
        "after": after,
    }


async def bot_level_game(
    url: str, agent: str, level: str, seed: int, player: tuple[str, dict[str, str]] | None = None
) -> dict[str, Any]:
    """An account (a new one unless ``player`` names one and its headers) challenges
    ``ai-<level>`` to a rated game and plays it to the end."""
    if player is None:
        name = f"carol-{secrets.token_hex(3)}"
        headers = await new_account(url, name)
    else:
        name, headers = player
    bot = f"ai-{level}"
    before = [await rating(url, name), await rating(url, bot)]
    async with client(url, headers=headers) as carol:
        answer = await carol.post("/api/challenges", json={"opponent": bot, "clock": CLOCK, "rated": True})
        assert answer.status_code == 201, answer.text
        seat = answer.json()
    final = await play_with_agent(url, seat["game_id"], seat["token"], agent, seed)
    await asyncio.sleep(0.2)
    after = [await rating(url, name), await rating(url, bot)]
    return {
        "game_id": seat["game_id"],
        "players": [name, bot],
        "seat": seat["seat"],
        "result": final["view"]["result"],
        "actions": final["version"],
        "before": before,
        "after": after,
    }


async def series(url: str, agent: str, level: str, games: int, seed: int) -> list[dict[str, Any]]:
    """One new account plays ``games`` rated games in a row against ``ai-<level>``: both ratings
    after each (what a rating against the levels means, and how fast a deviation shrinks)."""
    name = f"dana-{secrets.token_hex(3)}"
    player = (name, await new_account(url, name))
    out = []
    for index in range(games):
        game = await bot_level_game(url, agent, level, seed + index, player)
        winner = game["result"]["winner"]
        result = "draw" if winner is None else "won" if winner == game["seat"] else "lost"
        out.append({"game_id": game["game_id"], "result": result, "player": game["after"][0], "bot": game["after"][1]})
    return out


async def measure(url: str, pairs: int, agent: str, level: str, seed: int, games: int = 0) -> dict[str, Any]:
    times = await pairing_latency(url, pairs)
    rated = await rated_game(url, agent, seed)
    against_bot = await bot_level_game(url, agent, level, seed + 10)
    in_a_row = await series(url, agent, level, games, seed + 100) if games else []
    ms = sorted(t * 1000 for t in times)
    return {
        "pairing_ms": {
            "pairs": len(ms),
            "median": round(statistics.median(ms), 1),
            "p90": round(ms[int(0.9 * (len(ms) - 1))], 1),
            "max": round(ms[-1], 1),
        },
        "rated_game": rated,
        "bot_level_game": against_bot,
        "series": in_a_row,
    }


def print_report(report: dict[str, Any]) -> None:
    pairing = report["pairing_ms"]
    print(
        f"pairing latency over {pairing['pairs']} pairs: median {pairing['median']} ms, "
        f"p90 {pairing['p90']} ms, max {pairing['max']} ms"
    )
    for key in ("rated_game", "bot_level_game"):
        game = report[key]
        print(f"{key}: {game['game_id']} {' vs '.join(game['players'])}, {game['actions']} actions, {game['result']}")
        for name, old, new in zip(game["players"], game["before"], game["after"], strict=True):
            print(f"  {name}: {old['rating']} ±{old['deviation']} -> {new['rating']} ±{new['deviation']}")
    for index, game in enumerate(report["series"], 1):
        player, bot = game["player"], game["bot"]
        print(
            f"series game {index}: {game['result']}; "
            f"player {player['rating']} ±{player['deviation']}, bot {bot['rating']} ±{bot['deviation']}"
        )
    sys.stdout.flush()
