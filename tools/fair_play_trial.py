"""Play populations of known honesty in rated games on a real server and count whom the fair-play
screening reports, and after how many games (docs/fair-play.md).

``python tools/fair_play_trial.py --accounts K --games N --seed S [--url URL] [--json]`` makes K
accounts of each kind (``kahuna.bench.cheaters``: the honest levels ``easy``, ``medium``, ``hard``,
``expert``; the cheaters ``always``, ``one_in_three``, ``critical``), and plays N rounds: each
round pairs the accounts at random (never a pair that has had its three rated games of the day,
``games/rated_pairs.py``, whose next game would start casual) and plays every pair's rated game
from a challenge to the end, each seat played by its account's agent over the game socket, as a program
plays. Then it waits until the server has screened every game and reads the moderators' queue: an
account is flagged when the screening filed a ``cheating`` report about it, after the number of
games the report says (``flagged_at_games``).

Without ``--url`` it starts its own ``kahuna serve`` (a new SQLite database, sign-up and request
budgets raised for the trial's accounts), makes its moderator with ``kahuna admin grant``, and also
prints the CPU-seconds of each screened game the server logged (median, p99, max). With ``--url``
the server's operator gives a moderator's API token in ``KAHUNA_MODERATOR_TOKEN`` and the budgets.
The last line is ``{"kinds": {kind: {"accounts", "games", "flagged", "games_to_flag": [...]}}}``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx

from kahuna.bench.cheaters import KINDS, player
from kahuna.bench.lobby import CLOCK, client, new_account
from kahuna.bot.client import chooser, play_seat
from kahuna.server.games.rated_pairs import RATED_PER_PAIR

BUDGETS = (
    "signups_burst=100000",
    "signups_per_hour=100000",
    "logins_burst=100000",
    "logins_per_minute=100000",
    "games_burst=100000",
    "joins_burst=100000",
    "joins_per_minute=100000",
    "games_per_minute=100000",
    "reads_burst=100000",
    "reads_per_second=100000",
)
"""The limits a trial's server is started with: hundreds of accounts from one machine."""


def start_server(tmp: Path, port: int) -> subprocess.Popen[bytes]:
    db = f"sqlite:///{tmp / 'trial.db'}"
    limits = [p for budget in BUDGETS for p in ("--limit", budget)]
    command = [sys.executable, "-m", "kahuna", "serve", "--port", str(port), "--db", db, *limits]
    log = open(tmp / "server.log", "wb")  # noqa: SIM115 - the server writes it until it stops
    env = {**os.environ, "KAHUNA_DATA": str(tmp / "data")}
    process = subprocess.Popen(command, stdout=log, stderr=log, env=env)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            httpx.get(f"http://127.0.0.1:{port}/readyz", timeout=1).raise_for_status()
            return process
        except httpx.HTTPError:
            time.sleep(0.2)
    process.terminate()
    raise RuntimeError("the server did not start: " + (tmp / "server.log").read_text(errors="replace"))


async def moderator_token(url: str, tmp: Path, name: str) -> dict[str, str]:
    """A moderator for a server this tool started: an account, granted the role on its database."""
    headers = await new_account(url, name)
    db = f"sqlite:///{tmp / 'trial.db'}"
    granted = subprocess.run([sys.executable, "-m", "kahuna", "admin", "grant", name, "moderator", "--db", db])
    if granted.returncode != 0:
        raise RuntimeError("kahuna admin grant failed")
    return headers


def pairings(names: list[str], played: Counter[frozenset[str]], rng: random.Random) -> list[tuple[str, str]]:
    """One round's pairs: a random matching of ``names`` without a pair that played its rated
    games of the day (a few tries; an account left without a partner sits the round out)."""
    best: list[tuple[str, str]] = []
    for _ in range(50):
        order = names[:]
        rng.shuffle(order)
        pairs: list[tuple[str, str]] = []
        while len(order) >= 2:
            first = order.pop()
            partner = next((o for o in order if played[frozenset((first, o))] < RATED_PER_PAIR), None)
            if partner is not None:
                order.remove(partner)
                pairs.append((first, partner))
        if len(pairs) > len(best):
            best = pairs
        if 2 * len(best) >= len(names) - 1:
            break
    return best


async def rated_game(url: str, seats: list[tuple[str, dict[str, str]]], seed: int) -> str:
    """A rated challenge of the first account to the second, accepted, and played to the end by
    each account's agent; the game's id (a challenge, which only that account may accept, rather
    than an open seek the lobby's matcher might pair with another)."""
    async with client(url, headers=seats[0][1]) as a, client(url, headers=seats[1][1]) as b:
        made = await a.post("/api/challenges", json={"opponent": seats[1][0], "clock": CLOCK, "rated": True})
        offer = made.json()
        taken = await b.post(f"/api/seeks/{offer.get('seek_id')}/accept")
        own = await a.get(f"/api/seeks/{offer.get('seek_id')}", headers={"X-Seek-Token": offer.get("token", "")})
    tokens = [own.json(), taken.json()]
    if any("game_id" not in seat for seat in tokens):
        raise RuntimeError(
            f"no rated game between {seats[0][0]} and {seats[1][0]}: {made.text} {taken.text} {own.text}"
        )
    plays = []
    for index, ((name, _headers), seat) in enumerate(zip(seats, tokens, strict=True)):
        agent = player(name.split("-")[1])
        plays.append(play_seat(url, seat["game_id"], seat["token"], chooser(agent, random.Random(seed + index))))
    await asyncio.gather(*plays)
    return str(tokens[0]["game_id"])


async def screened(url: str, mod: dict[str, str], name: str, last_game: str) -> dict[str, Any] | None:
    """The account's figures once its last game is among them (screened in queue order)."""
    async with client(url, headers=mod) as http:
        answer = await http.get(f"/api/mod/players/{name}/fair-play")
        answer.raise_for_status()
        found: dict[str, Any] = answer.json()
    return found if any(g["game_id"] == last_game for g in found["by_game"]) else None


async def trial(url: str, mod: dict[str, str], accounts: int, games: int, seed: int, jobs: int) -> dict[str, Any]:
    rng = random.Random(seed)
    names = [f"f{seed}-{kind}-{i}" for kind in KINDS for i in range(accounts)]
    headers = {name: await new_account(url, name) for name in names}
    played: Counter[frozenset[str]] = Counter()
    last: dict[str, str] = {}
    count: Counter[str] = Counter()
    gate = asyncio.Semaphore(jobs)

    async def one(pair: tuple[str, str], game_seed: int) -> None:
        async with gate:
            game_id = await rated_game(url, [(n, headers[n]) for n in pair], game_seed)
        for name in pair:
            last[name], count[name] = game_id, count[name] + 1

    for round_ in range(games):
        pairs = pairings(names, played, rng)
        played.update(frozenset(p) for p in pairs)
        await asyncio.gather(*(one(pair, seed * 100_000 + round_ * 1000 + k) for k, pair in enumerate(pairs)))
        print(f"round {round_ + 1}/{games}: {len(pairs)} games", file=sys.stderr, flush=True)
    figures: dict[str, dict[str, Any]] = {}
    while len(figures) < len(last):
        for name in last:
            if name not in figures:
                found = await screened(url, mod, name, last[name])
                if found is not None:
                    figures[name] = found
        await asyncio.sleep(1)
    async with client(url, headers=mod) as http:
        queue = (await http.get("/api/mod/reports")).json()["reports"]
    flagged = {r["username"]: r["context"]["flagged_at_games"] for r in queue if r["reporter"] == "kahuna"}
    kinds: dict[str, dict[str, Any]] = {}
    rates: dict[str, list[float]] = {}
    for kind in KINDS:
        mine = [n for n in names if n.split("-")[1] == kind]
        to_flag = sorted(flagged[n] for n in mine if n in flagged)
        kinds[kind] = {
            "accounts": len(mine),
            "games": sum(count[n] for n in mine),
            "flagged": len(to_flag),
            "games_to_flag": to_flag,
        }
        rates[kind] = [figures[n]["match_rate"] for n in mine if n in figures and figures[n]["match_rate"] is not None]
    return {"kinds": kinds, "match_rates": rates}


def costs(log: Path) -> dict[str, Any]:
    """The CPU-seconds of each screened game, from the server's log."""
    cpu = sorted(
        json.loads(line)["cpu"]
        for line in log.read_text(errors="replace").splitlines()
        if '"event":"fair_play_screened"' in line
    )
    if not cpu:
        return {"games": 0}
    p99 = cpu[min(len(cpu) - 1, int(0.99 * len(cpu)))]
    return {"games": len(cpu), "median": round(statistics.median(cpu), 4), "p99": round(p99, 4), "max": cpu[-1]}


def main() -> int:
    p = argparse.ArgumentParser(description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--accounts", type=int, default=3, help="accounts of each kind")
    p.add_argument("--games", type=int, default=10, help="rounds: rated games of each account")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--url", help="a running server (else one is started)")
    p.add_argument("--jobs", type=int, default=4, help="games played at once")
    p.add_argument("--json", action="store_true", help="end with the result as one JSON line")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="fair-play-") as tmp_dir:
        tmp = Path(tmp_dir)
        process = None
        url = args.url
        if url is None:
            port = 8700 + args.seed % 200
            process = start_server(tmp, port)
            url = f"http://127.0.0.1:{port}"
        try:
            if args.url is None:
                mod = asyncio.run(moderator_token(url, tmp, f"f{args.seed}-mod"))
            else:
                mod = {"Authorization": f"Bearer {os.environ['KAHUNA_MODERATOR_TOKEN']}"}
            started = time.monotonic()
            result = asyncio.run(trial(url, mod, args.accounts, args.games, args.seed, args.jobs))
            elapsed = time.monotonic() - started
        finally:
            if process is not None:
                process.terminate()
                process.wait(30)
        cost = costs(tmp / "server.log") if process is not None else {}
    for kind, row in result["kinds"].items():
        rates = result["match_rates"][kind]
        mean = f"{statistics.mean(rates):.3f}" if rates else "-"
        print(
            f"{kind:>13}: {row['flagged']}/{row['accounts']} flagged, after {row['games_to_flag']} games "
            f"({row['games']} games; mean match rate {mean})"
        )
    print(f"screening CPU per game: {json.dumps(cost)}; {elapsed:.0f} s")
    if args.json:
        print(json.dumps({"kinds": result["kinds"]}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
