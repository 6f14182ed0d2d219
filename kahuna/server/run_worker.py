"""``kahuna worker``: the command line; the process it runs is ``assembly.worker`` (``cluster/worker.py``
plays the jobs; with ``--smtp`` it also sends the mail the servers queue, ``mail/sender.py``, and it
sends the Web Pushes they queue, ``push/sender.py``, with the same VAPID key as they, ``--vapid-key``).
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys

from sqlalchemy.exc import SQLAlchemyError

from kahuna.server import assembly
from kahuna.server.assembly import WorkerSettings
from kahuna.server.cluster.jobs import CLAIM_AFTER
from kahuna.server.common import logs
from kahuna.server.common.config import Limits, default_db_url
from kahuna.server.mail.options import QUEUED_MAIL, senders
from kahuna.server.ops.options import add_metrics_option, check_listen, start_metrics
from kahuna.server.push.options import add_push_options
from kahuna.server.push.vapid import KeyFileError


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "worker",
        help="play the AI moves that kahuna serve --broker queues (run any number, on any machine)",
        description="Take AI moves from the Redis job queue of kahuna serve --broker and play them into the "
        "shared database, each exactly once; a move whose worker died is taken over by another.",
    )
    p.add_argument("--db", metavar="URL", help="the servers' database URL (default: SQLite in the data directory)")
    p.add_argument("--broker", metavar="URL", required=True, help="the servers' Redis, redis://HOST:PORT/N")
    p.add_argument("--consumer", metavar="NAME", help="this worker's name in the queue (default: HOST-PID)")
    p.add_argument(
        "--jobs", type=int, default=1, metavar="N", help="moves computed at once, one process each (default 1)"
    )
    p.add_argument(
        "--claim-after",
        type=float,
        default=CLAIM_AFTER,
        metavar="SECONDS",
        help=f"take over a job another worker has held this long without finishing (default {CLAIM_AFTER:g}; "
        "longer than the slowest AI move)",
    )
    p.add_argument(
        "--smtp",
        metavar="URL",
        help="send the mail that the servers queue through this mail server (as kahuna serve --smtp); "
        "behind kahuna serve --broker without --local-ai only workers send mail",
    )
    p.add_argument("--mail-from", metavar="ADDRESS", help="the mails' From (needed with --smtp)")
    p.add_argument(
        "--mail-retry",
        type=float,
        default=Limits.mail_retry_seconds,
        metavar="SECONDS",
        help=f"the first wait before a mail is tried again (doubling; default {Limits.mail_retry_seconds:g})",
    )
    add_push_options(p)
    add_metrics_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not check_listen("worker", args.metrics_listen):
        return 2
    if args.jobs < 1:
        print("kahuna worker: --jobs must be at least 1", file=sys.stderr)
        return 2
    if args.claim_after <= 0:
        print("kahuna worker: --claim-after must be positive", file=sys.stderr)
        return 2
    chosen = senders(args, QUEUED_MAIL)  # the links are in the queued mail
    if isinstance(chosen, str):
        print(f"kahuna worker: {chosen}", file=sys.stderr)
        return 2
    mail, push = chosen
    if args.mail_retry <= 0:
        print("kahuna worker: --mail-retry must be positive", file=sys.stderr)
        return 2
    if not start_metrics("worker", args.metrics_listen):
        return 1
    logs.configure()
    consumer = args.consumer or f"{socket.gethostname()}-{os.getpid()}"
    settings = WorkerSettings(
        args.db or default_db_url(),
        args.broker,
        consumer,
        args.jobs,
        args.claim_after,
        mail=mail,
        mail_retry=args.mail_retry,
        push=push,
    )
    try:
        asyncio.run(main(settings))
    except KeyFileError as exc:
        print(f"kahuna worker: --vapid-key: {exc}", file=sys.stderr)
        return 1
    except (SQLAlchemyError, OSError, ValueError) as exc:
        print(f"kahuna worker: cannot open the database: {str(exc).splitlines()[0]}", file=sys.stderr)
        return 1
    return 0


async def main(settings: WorkerSettings) -> None:
    """Run until SIGTERM or SIGINT; a job being played then is finished first."""
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    await assembly.worker(settings, stop)
