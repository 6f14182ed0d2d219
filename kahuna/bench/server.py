"""``kahuna bench server``: concurrent games of random-action clients over WebSockets on loopback.

Each game is a hotseat game (one HTTP request gives both seat tokens) played by two clients, one
per seat, each choosing uniformly among the legal tokens it is sent after a think time (``--think``,
mean 250 ms, drawn uniformly from half to one and a half times the mean so that games do not move
in step: a brisk player; 0 measures the saturated server, where latency is mostly the queue of the
other games' moves). Clients play for ``--seconds``, starting a new game when theirs ends. The
latency of a move is the time from sending the action to receiving its ``ack`` (the action is then
committed to the database). The round's p50 and p99 count every action; the same figures are
also given for the actions sent after the first ``--warm-up`` seconds (``steady``, default 2 s):
at the start every client connects at once, and the first moves wait behind a burst of
handshakes and ``hello``s that later play does not have. Without
``--url`` the benchmark starts its own server on a free port with a fresh SQLite database in a
temporary directory, and stops it at the end. With ``--ai LEVEL`` each game is against that AI level,
one client per game.

With ``--url`` (a server, or the proxy of a deployment) the run can also report what it cost
(:mod:`kahuna.bench.costs`): CPU per action of the processes named by ``--pid``, PostgreSQL
commits, rows and WAL per action (``--db``), Redis commands per action (``--broker``).
``--games 100,200,400`` plays one round per count and ends with the highest actions/s whose p99
stayed within 50 ms.

On a loopback server every honest game plays from its own address (``127.0.1.x``), as distinct
users would, so that per-address limits apply to each as they would in the wild. :func:`run`
also takes clients to run beside the honest ones for the whole time (``beside``): the
contributors' soak (``tools/server_attacks.py``) passes malicious ones, and the report then adds
what they counted and the server's memory (RSS) sampled every second.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Coroutine, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar
from urllib.parse import urlsplit

import httpx
import websockets

from kahuna.bench import costs, vs_floor
from kahuna.bench.pages import Probes
from kahuna.bot import follow
from kahuna.progress import Progress

T = TypeVar("T")


@dataclass(frozen=True)
class Pace:
    think: float
    """Seconds a client waits before each move."""
    seconds: float
    """How long the clients play."""
    ai: str | None = None
    """An AI level to play against (one client per game, seat 0); ``None``: hotseat games."""
    warm_up: float = 2.0
    """Seconds at the start of a round whose actions the ``steady`` figures leave out."""
    protocol: int = follow.PROTOCOL
    """The game protocol the clients speak (docs/protocol.md): 3 follows the updates' patches, 2 their
    changes (a browser tab opened before 3), 1 gets whole views (an old client)."""

    def new_game(self) -> dict[str, str]:
        """The body of ``POST /api/games`` for one table's game."""
        if self.ai is None:
            return {"opponent": "hotseat", "seat": "first", "name": "bench"}
        return {"opponent": "ai", "level": self.ai, "seat": "first", "name": "bench"}


@dataclass
class Figures:
    latencies: list[float] = field(default_factory=list)
    """Seconds from sending an action to its ack."""
    steady_latencies: list[float] = field(default_factory=list)
    """The same, of the actions sent after the warm-up (:attr:`Pace.warm_up`): play without the
    start, where every client connects at once."""
    steady_from: float | None = None
    """When the warm-up ends (``time.perf_counter``)."""
    errors: int = 0
    error_codes: dict[str, int] = field(default_factory=dict)
    """The errors by code (``stale_version``, ``not_your_turn``, …)."""
    connection_errors: dict[str, int] = field(default_factory=dict)
    """Seats and game creations lost to the connection, by what happened (``refused``, ``closed``,
    ``handshake``, ``timeout``, ``create``): counted, and the round goes on without them."""
    throttled: int = 0
    """Actions answered ``rate_limited`` (sent again after the wait the server asked for)."""
    games_over: int = 0
    protocol: int = follow.PROTOCOL
    """The game protocol the clients spoke."""
    bytes_received: int = 0
    """What the clients received over their game sockets (the frames' text, UTF-8)."""
    finished_bytes: int = 0
    """Of which the connections of the games played to the end, from ``hello`` to the end."""
    server_cpu: float | None = None
    """CPU seconds the server process used while the games were played (own server on Linux only)."""
    server_loop_cpu: float | None = None
    """Of which its main thread's, the event loop's: the part that bounds how many actions one
    process plays and how long they wait (the writer's thread and the rest run beside it)."""
    rss_mib: list[float] = field(default_factory=list)
    """The server's resident memory, sampled every second (own server on Linux only)."""
    attacks: dict[str, int] = field(default_factory=dict)
    """What the clients run beside the honest ones counted (a soak's attackers: what they sent and
    how it was answered)."""
    games_created: int = 0
    costs: dict[str, Any] = field(default_factory=dict)
    """With ``--url``: what the run cost the named processes, PostgreSQL and Redis (:mod:`kahuna.bench.costs`)."""
    probes: dict[str, dict[str, Any]] = field(default_factory=dict)
    """With ``--probe``: each probed path's latency while the games were played (:mod:`kahuna.bench.pages`)."""


Beside = Callable[[str, list[str], float, dict[str, int]], Coroutine[Any, Any, None]]
"""A client run beside the honest games: given the server's URL, the honest games' ids, the deadline
(``time.perf_counter`` seconds) and the counts to add to, it runs until the deadline."""


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "server",
        help="N concurrent random-action games over WebSockets: move round-trip latency and actions/s",
        description="Play N concurrent games between random-action clients over WebSockets against a "
        "server (started on a free loopback port unless --url is given) and report the move round-trip "
        "latency (p50, p99) and actions/s.",
    )
    add_options(p)
    p.set_defaults(func=run)


def add_options(p: argparse.ArgumentParser) -> None:
    """The options of ``kahuna bench server`` (also those of the contributors' soak)."""
    p.add_argument(
        "--games",
        type=_game_counts,
        default=[50],
        metavar="N[,N...]",
        help="concurrent games (default 50); several numbers: one round each, then the highest actions/s "
        f"with p99 <= {P99_TARGET_MS:g} ms",
    )
    p.add_argument("--url", help="base URL of a running server or proxy (default: start one)")
    p.add_argument(
        "--pid",
        action="append",
        default=[],
        metavar="NAME=PID",
        help="with --url: a server process (an instance, nginx) whose CPU time per action to report, with its"
        " children, and its main thread's alone (an instance's event loop) (repeatable)",
    )
    p.add_argument(
        "--db", metavar="URL", help="with --url: the servers' PostgreSQL, to report commits and rows per action"
    )
    p.add_argument("--broker", metavar="URL", help="with --url: the servers' Redis, to report commands per action")
    p.add_argument("--think", type=float, default=250.0, metavar="MS", help="mean think time per move (default 250)")
    p.add_argument("--seconds", type=float, default=20.0, help="stop playing after this long (default 20)")
    p.add_argument(
        "--warm-up",
        type=float,
        default=2.0,
        help="seconds at the start left out of the 'after the warm-up' latencies (default 2): every "
        "client connects at once then; the round's own p50 and p99 count every action",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the clients' choices (default 0)")
    p.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2, 3),
        default=follow.PROTOCOL,
        help="the game protocol the clients speak (default 3: updates carry what their events do not say; "
        "2: what changed; 1: whole views, as an old client)",
    )
    p.add_argument(
        "--ai",
        metavar="LEVEL",
        help="games against this AI level, one client each (default: hotseat games, two clients each); "
        "with a broker the AI moves are the workers' load",
    )
    p.add_argument(
        "--floor",
        action="store_true",
        help="play against the floor instead of the game server: the same stack and I/O per action "
        "(frame in, one row committed, the same frames out) without the game (kahuna.bench.floor)",
    )
    p.add_argument(
        "--vs-floor",
        type=int,
        metavar="ROUNDS",
        help="play each game count ROUNDS times against the game server and against the floor in turn "
        "(each a fresh server; the floor first in odd rounds), and end with each round's server / floor "
        "ratios of CPU per action and p99, and their medians (kahuna.bench.vs_floor)",
    )
    p.add_argument(
        "--probe",
        action="append",
        default=[],
        metavar="PATH",
        help="also GET this path (e.g. /api/games/live?limit=50) every 0.2 s, in turn with the other "
        "probes, while the games are played, and report its latency (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="end with one JSON line of the figures")


OPEN_TIMEOUT = 120.0
"""Seconds a client waits for its WebSocket handshake."""

P99_TARGET_MS = 50.0
"""The latency a round must keep to count in the summary of several rounds (issue 14)."""


def _game_counts(text: str) -> list[int]:
    try:
        counts = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number or list of numbers: {text!r}") from None
    if not counts or min(counts) <= 0:
        raise argparse.ArgumentTypeError("game counts must be positive")
    return counts


def run(args: argparse.Namespace, beside: Sequence[Beside] = ()) -> int:
    """Play the rounds the options ask for, with the clients ``beside`` running next to the honest
    ones in each round."""
    if args.think < 0 or args.seconds <= 0:
        raise SystemExit("kahuna bench server: --think must not be negative, --seconds must be positive")
    if not args.url and (args.pid or args.db or args.broker):
        raise SystemExit("kahuna bench server: --pid, --db and --broker go with --url")
    floor = getattr(args, "floor", False)
    if floor and (args.url or args.ai):
        raise SystemExit("kahuna bench server: --floor starts its own floor server, of hotseat games")
    in_turn: int | None = getattr(args, "vs_floor", None)
    if in_turn is not None and (in_turn < 1 or args.url or args.ai or floor or getattr(args, "probe", []) or beside):
        raise SystemExit(
            "kahuna bench server: --vs-floor takes a number of rounds of at least 1, starts its own server and"
            " floor of hotseat games, and goes with neither --url, --ai, --floor, --probe nor clients beside"
        )
    try:
        pids = costs.parse_pids(args.pid)
    except ValueError as exc:
        raise SystemExit(f"kahuna bench server: {exc}") from None
    if args.warm_up < 0 or args.warm_up >= args.seconds:
        raise SystemExit("kahuna bench server: --warm-up must be at least 0 and shorter than --seconds")
    pace = Pace(args.think / 1000, args.seconds, args.ai, args.warm_up, args.protocol)
    paths: list[str] = getattr(args, "probe", [])
    if any(not path.startswith("/") for path in paths):
        raise SystemExit("kahuna bench server: --probe takes a path that starts with /")
    rounds: list[tuple[int, float, float]] = []
    in_turns: list[vs_floor.Round] = []
    try:
        for games in args.games:
            if in_turn is not None:
                in_turns += [_in_turn(games, index, pace, args.seed, args.json) for index in range(in_turn)]
                continue
            probes = Probes(paths)
            beside_all = [*beside, probes.client] if paths else list(beside)
            if args.url:
                url = args.url.rstrip("/")
                before = costs.take(pids, args.db, args.broker)
                figures, seconds = _run_loop(_bench(url, games, pace, args.seed, None, beside_all))
                after = costs.take(pids, None, None)  # CPU at the end of play, the stores once settled
                costs.settle(args.db)
                stores = costs.take({}, args.db, args.broker)
                after.pg, after.redis = stores.pg, stores.redis
                figures.costs = costs.per_action(before, after, len(figures.latencies), figures.games_created)
            else:
                room = room_for(games)
                with own_server(*room, module=FLOOR_MODULE if floor else SERVER_MODULE) as (url, pid):
                    figures, seconds = _run_loop(_bench(url, games, pace, args.seed, pid, beside_all))
            if paths:
                figures.probes = probes.summary()
            rate, p99 = report(figures, seconds, games, args.json)
            rounds.append((games, rate, p99))
    except (OSError, httpx.HTTPError, websockets.WebSocketException, RuntimeError) as exc:
        raise SystemExit(f"kahuna bench server: {exc}") from None
    if in_turns:
        vs_floor.report(in_turns, args.json)
    elif len(rounds) > 1:
        kept = [r for r in rounds if r[2] <= P99_TARGET_MS]
        if kept:
            games, rate, p99 = max(kept, key=lambda r: r[1])
            print(
                f"highest rate with p99 <= {P99_TARGET_MS:g} ms: {rate:,.0f} actions/s "
                f"({games} games, p99 {p99:.1f} ms)"
            )
        else:
            print(f"no round kept p99 <= {P99_TARGET_MS:g} ms")
    return 0


def _in_turn(games: int, index: int, pace: Pace, seed: int, as_json: bool) -> vs_floor.Round:
    """Round ``index`` of ``--vs-floor``: the server and the floor one after the other, each its own
    fresh process and database, the same clients and seed."""
    runs = {}
    for side in vs_floor.order(index):
        print(f"{games} games, round {index + 1}: the {side}")
        module = FLOOR_MODULE if side == vs_floor.FLOOR else SERVER_MODULE
        with own_server(*room_for(games), module=module) as (url, pid):
            figures, seconds = _run_loop(_bench(url, games, pace, seed, pid))
        rate, p99 = report(figures, seconds, games, as_json)
        actions = len(figures.latencies)
        cpu_ms, loop_ms = _per_action(figures.server_cpu, actions), _per_action(figures.server_loop_cpu, actions)
        steady_p99 = round(_percentiles_ms(figures.steady_latencies)[1], 2)
        runs[side] = vs_floor.Run(cpu_ms, loop_ms, round(p99, 2), steady_p99, round(rate, 1), figures.errors)
    return vs_floor.Round(games, index, runs[vs_floor.SERVER], runs[vs_floor.FLOOR])


def _per_action(seconds: float | None, actions: int) -> float | None:
    """CPU milliseconds per action (``None`` without a CPU figure or an action)."""
    return None if seconds is None or not actions else round(1000 * seconds / actions, 3)


def _run_loop(main: Coroutine[Any, Any, T]) -> T:
    """Run the clients on uvloop when it is installed (uvicorn's server uses it too): the clients
    share the machine with the server, and their own overhead would otherwise show up as latency."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(main)
    return uvloop.run(main)


@contextmanager
def collector_off() -> Iterator[None]:
    """The clients' cyclic garbage collector off while they play, as ``timeit`` turns it off while
    it times: with 4,000 sockets in this process its collections paused every client for 20-30 ms
    twice a second and for 94-122 ms every four seconds (a full collection: 347 ms), and the round
    counted each pause as the server's latency (docs/scaling.md). What the round leaves is
    collected after it."""
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        gc.enable()
        gc.collect()


def report(figures: Figures, seconds: float, games: int, as_json: bool) -> tuple[float, float]:
    """Print the figures of a round; its actions/s and p99 (ms)."""
    actions = len(figures.latencies)
    p50, p99 = _percentiles_ms(figures.latencies)
    steady_p50, steady_p99 = _percentiles_ms(figures.steady_latencies)
    rate = actions / seconds if seconds > 0 else 0.0
    print(f"{games} concurrent games ({figures.games_over} played to the end), {actions} actions in {seconds:.2f} s")
    codes = ", ".join(f"{code} {count}" for code, count in sorted(figures.error_codes.items()))
    errors = f"{figures.errors} errors" + (f" ({codes})" if codes else "")
    print(f"move round-trip p50 {p50:.1f} ms, p99 {p99:.1f} ms; {rate:,.0f} actions/s; {errors}")
    print(
        f"after the warm-up: p50 {steady_p50:.1f} ms, p99 {steady_p99:.1f} ms "
        f"over {len(figures.steady_latencies)} actions"
    )
    per_action = figures.bytes_received / actions if actions else 0.0
    per_game = figures.finished_bytes / figures.games_over if figures.games_over else 0.0
    print(
        f"the clients received {figures.bytes_received:,} bytes: {per_action:,.0f} per action, "
        f"{per_game:,.0f} per game played to the end (its seats, protocol {figures.protocol})"
    )
    if figures.throttled:
        print(f"{figures.throttled} actions were rate limited and sent again")
    if figures.connection_errors:
        lost = ", ".join(f"{kind} {count}" for kind, count in sorted(figures.connection_errors.items()))
        print(f"connections lost (counted, the round went on without them): {lost}")
    cpu_ms = _per_action(figures.server_cpu, actions)
    loop_ms = _per_action(figures.server_loop_cpu, actions)
    if cpu_ms is not None:
        of_which = "" if loop_ms is None else f"; of which its event loop's thread {loop_ms:.2f} ms"
        print(f"server CPU {cpu_ms:.2f} ms per action ({figures.server_cpu:.1f} s in all){of_which}")
    if figures.attacks:
        print("attackers: " + ", ".join(f"{kind} {count:,}" for kind, count in sorted(figures.attacks.items())))
    if figures.rss_mib:
        rss = figures.rss_mib
        print(f"server RSS: {rss[0]:.0f} MiB at start, {max(rss):.0f} MiB at most, {rss[-1]:.0f} MiB at the end")
    spent = figures.costs
    if "cpu_ms_per_action" in spent:
        each = ", ".join(f"{name} {ms:.3f}" for name, ms in spent["cpu_ms_per_action"].items())
        print(f"CPU ms per action: {each}; in all {sum(spent['cpu_ms_per_action'].values()):.3f}")
    if "main_thread_cpu_ms_per_action" in spent:
        each = ", ".join(f"{name} {ms:.3f}" for name, ms in spent["main_thread_cpu_ms_per_action"].items())
        print(f"  of which each process's main thread (a server's event loop): {each}")
    if "pg_per_action" in spent:
        pg = spent["pg_per_action"]
        print(
            f"PostgreSQL per action: {pg['commits']:.3f} commits, {pg['rows_written']:.3f} rows written, "
            f"{pg['wal_bytes']:,.0f} WAL bytes; "
            f"{spent.get('pg_bytes_per_game', 0):,} bytes of database per game created"
        )
    if "redis_per_action" in spent:
        rd = spent["redis_per_action"]
        print(
            f"Redis per action: {rd['commands']:.3f} commands ({rd['publish']:.3f} PUBLISH), "
            f"{rd['bytes_in']:,.0f} bytes in"
        )
    for path, probe in figures.probes.items():
        answered = (
            f"{probe['requests']} answered, p50 {probe['p50_ms']:.1f} ms, p99 {probe['p99_ms']:.1f} ms"
            if probe["requests"]
            else "none answered"
        )
        print(f"probe {path}: {answered}" + (f"; {probe['failed']} failed" if probe["failed"] else ""))
    if as_json:
        line: dict[str, Any] = {"games": games, "actions": actions, "seconds": round(seconds, 3)}
        line["p50_ms"] = round(p50, 2)
        line.update({"p99_ms": round(p99, 2), "actions_per_s": round(rate, 1), "errors": figures.errors})
        line.update(protocol=figures.protocol, bytes_per_action=round(per_action), bytes_per_game=round(per_game))
        line["steady"] = {
            "actions": len(figures.steady_latencies),
            "p50_ms": round(steady_p50, 2),
            "p99_ms": round(steady_p99, 2),
        }
        if figures.error_codes:
            line["error_codes"] = figures.error_codes
        if figures.connection_errors:
            line["connection_errors"] = figures.connection_errors
        line["server_cpu_ms_per_action"] = cpu_ms
        line["server_loop_cpu_ms_per_action"] = loop_ms
        if figures.attacks:
            line["attacks"] = figures.attacks
        if figures.rss_mib:
            line["rss_mib"] = [round(r, 1) for r in figures.rss_mib]
        if figures.probes:
            line["probes"] = figures.probes
        if figures.costs:
            line["costs"] = figures.costs
            line["games_created"] = figures.games_created
        print(json.dumps(line))
    return rate, p99


def _percentiles_ms(latencies: list[float]) -> tuple[float, float]:
    """p50 and p99 of ``latencies`` (seconds) in milliseconds; 0 for none."""
    lat = sorted(latencies)
    if not lat:
        return 0.0, 0.0
    return 1000 * lat[len(lat) // 2], 1000 * lat[min(len(lat) - 1, int(len(lat) * 0.99))]


def is_loopback(url: str) -> bool:
    """Whether the server is on this machine's loopback network (so clients may pick 127.x addresses)."""
    host = urlsplit(url).hostname or ""
    return host.startswith("127.")


def honest_address(url: str, game: int) -> str | None:
    """The loopback address the clients of honest game number ``game`` use (``None``: the default)."""
    return f"127.0.1.{1 + game % 250}" if is_loopback(url) else None


async def _bench(
    url: str, games: int, pace: Pace, seed: int, server_pid: int | None, beside: Sequence[Beside] = ()
) -> tuple[Figures, float]:
    figures = Figures(protocol=pace.protocol)
    async with _GameMaker(url, pace, figures) as maker:
        made = [await maker.new_game(honest_address(url, i)) for i in range(games)]
        created = [game for game in made if game is not None]
        with Progress(games, "games") as bar, collector_off():
            return await _play(url, created, pace, seed, server_pid, beside, figures, maker, bar)


async def _play(
    url: str,
    created: list[dict[str, Any]],
    pace: Pace,
    seed: int,
    server_pid: int | None,
    beside: Sequence[Beside],
    figures: Figures,
    maker: _GameMaker,
    bar: Progress,
) -> tuple[Figures, float]:
    """Every table plays until the round's deadline: the figures of a round."""
    cpu_before, loop_before = _cpu_seconds(server_pid), _loop_cpu_seconds(server_pid)
    start = time.perf_counter()
    deadline = start + pace.seconds
    figures.steady_from = start + pace.warm_up
    clients = []
    for i, game in enumerate(created):
        rngs = (random.Random(seed * 1009 + 2 * i), random.Random(seed * 1009 + 2 * i + 1))
        table = _Table(url, honest_address(url, i), rngs, pace, deadline, figures, bar, maker)
        clients.append(table.play(game))
    game_ids = [game["game_id"] for game in created]
    clients.extend(client(url, game_ids, deadline, figures.attacks) for client in beside)
    if server_pid is not None and beside:
        clients.append(_sample_rss(server_pid, deadline, figures.rss_mib))
    await asyncio.gather(*clients)
    seconds = min(time.perf_counter(), deadline) - start
    loop_after = _loop_cpu_seconds(server_pid)  # the part read inside the whole's reads: never more than it
    cpu_after = _cpu_seconds(server_pid)
    if cpu_before is not None and cpu_after is not None:
        figures.server_cpu = cpu_after - cpu_before
    if loop_before is not None and loop_after is not None:
        figures.server_loop_cpu = loop_after - loop_before
    return figures, seconds


class _GameMaker:
    """Creates the round's games over HTTP with one client per local address, kept for the round:
    a client per game built an SSL context each, and with the collector off (:func:`collector_off`)
    the garbage of 2,000 games' clients took the clients' process to 1.9 GB resident."""

    def __init__(self, url: str, pace: Pace, figures: Figures) -> None:
        self.url = url
        self.pace = pace
        self.figures = figures
        self.clients: dict[str | None, httpx.AsyncClient] = {}

    async def __aenter__(self) -> _GameMaker:
        return self

    async def __aexit__(self, *exc: object) -> None:
        for http in self.clients.values():
            await http.aclose()

    async def new_game(self, address: str | None) -> dict[str, Any] | None:
        """A new game (``POST /api/games``) asked for from ``address``; ``None`` when the request
        failed (counted in :attr:`Figures.connection_errors` as ``create``)."""
        http = self.clients.get(address)
        if http is None:
            transport = httpx.AsyncHTTPTransport(local_address=address) if address else None
            http = self.clients[address] = httpx.AsyncClient(base_url=self.url, timeout=30, transport=transport)
        try:
            response = await http.post("/api/games", json=self.pace.new_game())
            response.raise_for_status()
        except httpx.HTTPError:
            _count(self.figures.connection_errors, "create")
            return None
        self.figures.games_created += 1
        game: dict[str, Any] = response.json()
        return game


@dataclass
class _Table:
    """The two seats of one honest game; a new game follows each finished one until the end."""

    url: str
    address: str | None
    rngs: tuple[random.Random, random.Random]
    pace: Pace
    deadline: float
    figures: Figures
    bar: Progress
    maker: _GameMaker

    async def play(self, game: dict[str, Any]) -> None:
        ws_url = "ws" + self.url[len("http") :]
        while True:
            seats = []
            tokens = [game["token"]] if self.pace.ai else game["tokens"]
            for seat, token in enumerate(tokens):
                hello: dict[str, Any] = {"type": "hello", "version": None, "token": token}
                if self.pace.protocol > 1:  # an old client names none
                    hello["protocol"] = self.pace.protocol
                seats.append(
                    _seat(
                        f"{ws_url}/ws/{game['game_id']}",
                        hello,
                        self.address,
                        self.rngs[seat],
                        self.pace.think,
                        self.deadline,
                        self.figures,
                        self.bar,
                    )
                )
            ended = await asyncio.gather(*seats)
            if time.perf_counter() >= self.deadline or not all(ended):
                return  # a table that lost a seat to its connection stops (no new game each instant)
            made = await self.maker.new_game(self.address)
            if made is None:
                return
            game = made


async def _sample_rss(pid: int, deadline: float, samples: list[float]) -> None:
    """The server's resident memory every second until ``deadline`` (Linux ``/proc``)."""
    while time.perf_counter() < deadline:
        try:
            with open(f"/proc/{pid}/status", encoding="ascii") as fh:
                kib = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
        except (OSError, StopIteration):
            return
        samples.append(kib / 1024)
        await asyncio.sleep(1)


def _cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process and its children, from /proc (``None`` elsewhere)."""
    return None if pid is None else costs.tree_cpu_seconds(pid)


def _loop_cpu_seconds(pid: int | None) -> float | None:
    """User + system CPU time of a process's main thread, its event loop's (``None`` elsewhere)."""
    return None if pid is None else costs.cpu_seconds(pid, thread=pid)


async def _seat(
    game_url: str,
    hello: dict[str, Any],
    address: str | None,
    rng: random.Random,
    think: float,
    deadline: float,
    figures: Figures,
    bar: Progress,
) -> bool:
    """One seat's client: answer every position where it is to move with a random legal token;
    whether the seat ended as a client does (``False``: its connection was lost).

    A connection refused, closed without a close frame, or a handshake that fails is counted in
    :attr:`Figures.connection_errors` and ends this seat only: a round of a thousand games must give
    its figures, not stop at the first socket the server or the machine dropped."""
    try:
        await _play_seat(game_url, hello, address, rng, think, deadline, figures, bar)
        return True
    except websockets.ConnectionClosed:
        _count(figures.connection_errors, "closed")
    except websockets.InvalidHandshake:
        _count(figures.connection_errors, "handshake")
    except TimeoutError:
        _count(figures.connection_errors, "timeout")
    except OSError:
        _count(figures.connection_errors, "refused")
    return False


def _count(counts: dict[str, int], kind: str) -> None:
    counts[kind] = counts.get(kind, 0) + 1


async def _play_seat(
    game_url: str,
    hello: dict[str, Any],
    address: str | None,
    rng: random.Random,
    think: float,
    deadline: float,
    figures: Figures,
    bar: Progress,
) -> None:
    local = None if address is None else (address, 0)
    # A loaded machine can take more than websockets' default 10 s to answer a thousand handshakes
    # at once: a slow handshake is part of the figures, not a reason to abandon the round.
    async with websockets.connect(game_url, max_size=None, local_addr=local, open_timeout=OPEN_TIMEOUT) as ws:
        await ws.send(json.dumps(hello))
        sent_at = 0.0
        last_sent = ""
        received = 0
        game = follow.Follower()
        while True:
            try:
                raw = await asyncio.wait_for(ws.recv(), max(deadline - time.perf_counter(), 0.001))
            except TimeoutError:
                return
            size = len(raw) if isinstance(raw, bytes) else len(raw.encode())
            received += size
            figures.bytes_received += size
            message: dict[str, Any] = json.loads(raw)
            kind = message["type"]
            if kind == "ack":
                figures.latencies.append(time.perf_counter() - sent_at)
                if figures.steady_from is not None and sent_at >= figures.steady_from:
                    figures.steady_latencies.append(figures.latencies[-1])
            elif kind == "error" and message["code"] == "rate_limited":  # a client that plays too fast waits
                figures.throttled += 1
                await asyncio.sleep(float(message.get("retry_after", 0.1)))
                await ws.send(last_sent)
            elif kind == "error":
                figures.errors += 1
                figures.error_codes[message["code"]] = figures.error_codes.get(message["code"], 0) + 1
            elif kind in ("sync", "update"):
                try:
                    whole = game.follow(message)
                except follow.OutOfStep:  # a version missed: the whole state again
                    await ws.send(json.dumps({**hello, "version": None}))
                    continue
                if whole is None:
                    continue
                message = whole
                if message["view"]["result"] is not None:
                    figures.finished_bytes += received
                    if message["view"]["seat"] == 0:
                        figures.games_over += 1
                        bar.advance()
                    return
                if message["legal"]:
                    if think:  # players are not in step: each think time is drawn around the mean
                        pause = think * rng.uniform(0.5, 1.5)  # and none outlasts the round
                        await asyncio.sleep(min(pause, max(deadline - time.perf_counter(), 0.0)))
                    if time.perf_counter() >= deadline:
                        return
                    action = message["legal"][rng.randrange(len(message["legal"]))]
                    sent_at = time.perf_counter()
                    last_sent = json.dumps({"type": "action", "action": action, "version": message["version"]})
                    await ws.send(last_sent)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def room_for(games: int) -> list[str]:
    """The limits the bench's own server is started with so that the round's own clients fit: two
    sockets a game, the game makers' HTTP clients (one per local address) and the probes. The
    server's default ``max_connections`` (2,000) is exactly the sockets of 1,000 games, and the
    1,000-game round used to stop at the first socket past it (issue 54)."""
    return ["--limit", f"max_connections={max(2000, 2 * games + 500)}"]


SERVER_MODULE = ("kahuna", "serve")
FLOOR_MODULE = ("kahuna.bench.floor",)
"""How :func:`own_server` starts the game server, and the floor (``--floor``) in its place."""


@contextmanager
def own_server(*args: str, module: tuple[str, ...] = SERVER_MODULE) -> Iterator[tuple[str, int]]:
    """A ``kahuna serve`` process (with ``args``), or the floor server, on a free loopback port
    with a throwaway database."""
    with tempfile.TemporaryDirectory(prefix="kahuna-bench-") as tmp:
        port = _free_port()
        db = f"sqlite:///{tmp}/bench.db"
        command = [sys.executable, "-m", *module, "--port", str(port), "--db", db, *args]
        log = open(os.path.join(tmp, "server.log"), "wb")  # noqa: SIM115 - closed below
        env = {**os.environ, "KAHUNA_DATA": tmp}  # its VAPID key too is thrown away
        server = subprocess.Popen(command, stdout=log, stderr=log, env=env)
        url = f"http://127.0.0.1:{port}"
        try:
            _wait_until_up(url, server)
            yield url, server.pid
        finally:
            server.terminate()
            try:
                server.wait(10)
            except subprocess.TimeoutExpired:
                server.kill()
                server.wait()
            log.close()


def _wait_until_up(url: str, server: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise RuntimeError(f"the server exited with status {server.returncode}")
        try:
            httpx.get(f"{url}/api/games/none", timeout=1)
            return
        except httpx.HTTPError:
            time.sleep(0.1)
    raise RuntimeError("the server did not start within 30 s")
