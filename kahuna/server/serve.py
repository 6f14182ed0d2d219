"""``kahuna serve``: run the game server (FastAPI on uvicorn) and print the URL to open."""

from __future__ import annotations

import argparse
import gc
import socket
import sys
from pathlib import Path

from sqlalchemy.exc import SQLAlchemyError

from kahuna.server import serve_config, stacks
from kahuna.server.common import draws, logs
from kahuna.server.common.config import Limits, Settings, default_db_url
from kahuna.server.mail.options import senders
from kahuna.server.ops.options import add_metrics_option, check_listen, start_metrics
from kahuna.server.push.options import add_push_options
from kahuna.server.push.vapid import KeyFileError

_EXTRAS = {"psycopg": ("PostgreSQL", "postgres"), "redis": ("--broker", "redis")}
"""The optional packages a URL may need, and the extra that installs each."""


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "serve",
        help="run the game server (web UI, HTTP API, WebSocket play) and print the URL to open",
        description="Run the Kahuna game server: games against the AI or a friend, live or over days, "
        "with spectators. Games are stored in a database (SQLite under $KAHUNA_DATA, "
        "$XDG_DATA_HOME/kahuna or ~/.local/share/kahuna by default) and resumed on restart.",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    p.add_argument("--db", metavar="URL", help="SQLAlchemy database URL (default: SQLite in the data directory)")
    p.add_argument(
        "--broker",
        metavar="URL",
        help="Redis URL (redis://HOST:PORT/N) joining several instances that share one --db "
        "(default: none, one process)",
    )
    p.add_argument("--ai-workers", type=int, default=1, metavar="N", help="AI worker processes (default 1)")
    p.add_argument(
        "--ai-long-workers",
        type=int,
        default=1,
        metavar="N",
        help="AI worker processes for the levels that think by time, grandmaster (default 1; each uses every core)",
    )
    p.add_argument(
        "--local-ai",
        action="store_true",
        help="with --broker: compute AI moves in this instance (default: queue them for kahuna worker)",
    )
    p.add_argument(
        "--limit",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="change one of the per-client limits (repeatable; names and defaults in docs/server.md: "
        + ", ".join(Limits.names())
        + ")",
    )
    p.add_argument(
        "--smtp",
        metavar="URL",
        help="send e-mail (address verification, password reset, notifications) through this mail server: "
        "smtp://[USER:PASS@]HOST:PORT (plain), smtp://...?starttls=1 (STARTTLS required), "
        "smtps://... (TLS); default: no e-mail. With --broker (and no --local-ai) this only queues "
        "the mail: kahuna worker --smtp sends it",
    )
    p.add_argument(
        "--mail-from", metavar="ADDRESS", help="the mails' From (default: Kahuna <noreply@HOST of --public-url>)"
    )
    p.add_argument(
        "--public-url",
        metavar="URL",
        help="the address players open, which mailed links start with (default: http://HOST:PORT/ of this server)",
    )
    add_push_options(p)
    add_metrics_option(p)
    add_housekeeping_options(p)
    p.add_argument(
        "--config",
        metavar="FILE",
        type=Path,
        help="read the options and limits from this TOML file (keys as the options without dashes, a "
        "[limits] table; flags given here win; docs/server.md)",
    )
    p.add_argument("--print-config", action="store_true", help="print the configuration in effect (TOML) and exit")
    # For the test suite only (docs/testing.md), so not in --help: every draw (deals, first seats,
    # the AI's seeds) from random.Random(N) and passwords hashed cheaply. Never in production.
    p.add_argument("--test-seed", type=int, metavar="N", help=argparse.SUPPRESS)
    stacks.add_stack_option(p)  # for measuring only (docs/scaling.md, *Another serving stack*)
    p.set_defaults(func=run, parser=p)


def add_housekeeping_options(p: argparse.ArgumentParser) -> None:
    """The options of the server's archiving and guest-game deletion (``db/housekeeping.py``)."""
    p.add_argument(
        "--archive-after",
        type=float,
        default=30.0,
        metavar="DAYS",
        help="fold a finished game's action rows into one compressed archive record DAYS after it ended "
        "(default 30; 0: never; kahuna admin archive does it by hand)",
    )
    p.add_argument(
        "--delete-guest-games-after",
        type=float,
        default=7.0,
        metavar="DAYS",
        help="delete guests' aborted games, and their untimed games left unfinished, DAYS after they were "
        "last touched (default 7; 0: never)",
    )


def run(args: argparse.Namespace) -> int:
    if args.config is not None:
        argv: list[str] = args.argv
        try:
            args = serve_config.apply(args.parser, argv[argv.index("serve") + 1 :], args.config)
        except serve_config.ConfigError as exc:
            print(f"kahuna serve: --config {exc}", file=sys.stderr)
            return 2
    if not check_listen("serve", args.metrics_listen):
        return 2
    if args.ai_workers < 1 or args.ai_long_workers < 1:
        print("kahuna serve: --ai-workers and --ai-long-workers must be at least 1", file=sys.stderr)
        return 2
    if args.broker is not None and not args.broker.startswith(("redis://", "rediss://", "unix://")):
        print("kahuna serve: --broker takes a Redis URL: redis://HOST:PORT/N", file=sys.stderr)
        return 2
    if args.archive_after < 0 or args.delete_guest_games_after < 0:
        print(
            "kahuna serve: --archive-after and --delete-guest-games-after take 0 (never) or more days", file=sys.stderr
        )
        return 2
    if not 0 <= args.port <= 65535:
        print("kahuna serve: --port must be between 0 and 65535", file=sys.stderr)
        return 2
    try:
        limits = Limits().replace(args.limit)
    except ValueError as exc:
        print(f"kahuna serve: --limit: {exc}", file=sys.stderr)
        return 2
    if args.print_config:
        print(serve_config.render(args, limits), end="")
        return 0
    try:
        sock = listen(args.host, args.port)
    except OSError as exc:
        print(f"kahuna serve: cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    own = f"http://{shown}:{port}/" if host in ("127.0.0.1", "::1", "localhost") else None
    chosen = senders(args, args.public_url or own)  # the links of the mails start at --public-url
    if isinstance(chosen, str):
        print(f"kahuna serve: {chosen}", file=sys.stderr)
        return 2
    mail, push = chosen
    logs.configure()
    if args.test_seed is not None:
        draws.seed_for_tests(args.test_seed)
    from kahuna.server.app import create_app
    from kahuna.server.http.draining import Drain

    try:
        db_url = args.db or default_db_url()
        settings = Settings(
            db_url=db_url,
            ai_workers=args.ai_workers,
            ai_long_workers=args.ai_long_workers,
            broker_url=args.broker,
            local_ai=args.local_ai,
            limits=limits,
            mail=mail,
            push=push,
            archive_after_days=args.archive_after,
            guest_games_after_days=args.delete_guest_games_after,
        )
        drain = Drain()  # told to close the sockets going away on SIGTERM (http/conns.py)
        app = create_app(settings, drain=drain)
    except ModuleNotFoundError as exc:
        extra = _EXTRAS.get((exc.name or "").split(".")[0])
        if extra is None:
            raise
        print(f"kahuna serve: {extra[0]} needs the {extra[1]} extra: pip install 'kahuna[{extra[1]}]'", file=sys.stderr)
        return 1
    except KeyFileError as exc:
        print(f"kahuna serve: --vapid-key: {exc}", file=sys.stderr)
        return 1
    except (SQLAlchemyError, OSError, ValueError) as exc:
        print(f"kahuna serve: cannot open the database: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    if not start_metrics("serve", args.metrics_listen):
        return 1
    broker = "" if args.broker is None else f", broker: {_safe_url(args.broker)}"
    mailing = "" if mail is None else f", mail: {_safe_url(args.smtp)}"
    print(f"Kahuna server: open http://{shown}:{port}/  (database: {_safe_url(db_url)}{broker}{mailing})", flush=True)
    tune_gc()
    stacks.run(args.stack, app, sock, limits, drain)
    return 0


GC_YOUNG_THRESHOLD = 100_000
"""Allocations between two collections of the youngest generation (CPython's default: 700)."""


def tune_gc() -> None:
    """Collect cyclic garbage less often than CPython's defaults, which suit short scripts.

    Every action allocates a few hundred short-lived objects (a copy of the state, views, message
    dictionaries) that reference counting frees at once; with the default threshold the collector
    still ran every 700 allocations, and each run promoted survivors that the older generations
    then traversed again, with every game in memory (under ``kahuna bench server`` at 300 games,
    over the server's life with a 20 s round: 762 young, 69 middle and 6 full collections against
    17, 1 and 0 with a threshold of 20,000; docs/scaling.md). What start-up built (modules, the
    app, tables) is frozen out of every collection (``gc.freeze``).

    A young collection pauses the event loop for as long as it takes to traverse every live object
    made since the previous one, and in a busy server that is nearly the whole working set: each
    game's current state (a new copy per action) and each socket's pending receive. With 2,000
    games and 4,000 sockets that was about 150,000 objects and a pause of 90-157 ms, every 11 s
    with a threshold of 20,000. The count that triggers it grows slowly (nearly everything is freed
    by reference counting), so the threshold sets how often the pause comes, not how long it is:
    at 100,000, two 120 s rounds had one young collection each once the sockets were open
    (141 and 181 ms)."""
    gc.collect()
    gc.freeze()
    _young, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to ``host:port`` (``port`` 0: a free one), for the server to listen on."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


def _safe_url(url: str) -> str:
    """The database URL without its password."""
    from sqlalchemy.engine.url import make_url

    return make_url(url).render_as_string(hide_password=True)
