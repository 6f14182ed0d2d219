"""``kahuna worker``: the command line and the process it wires (``cluster/worker.py`` plays the jobs;
with ``--smtp`` it also sends the mail the servers queue, ``mail/sender.py``).

The worker builds the same game engine as a server (``wiring.py``: the same rooms hear of every
end), with the worker's collaborators: it announces what it stores (``cluster.replication.Announcer``)
and queues the next AI move itself (``cluster.ai_jobs.NextQueuedByWorker``). It also sends the Web
Pushes that the instances queue (``push/sender.py``), with the same VAPID key as they (``--vapid-key``).
It queues no your-turn push itself: it does not know who is connected; the instances that hold the
game hear of its move and decide.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import socket
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy.exc import SQLAlchemyError

from kahuna.server.cluster.ai_jobs import NextQueuedByWorker
from kahuna.server.cluster.jobs import CLAIM_AFTER, RETRY_FIRST, RETRY_MOST, JobQueue
from kahuna.server.cluster.replication import Announcer
from kahuna.server.cluster.worker import Worker, sleep_unless
from kahuna.server.common import logs
from kahuna.server.common.config import Limits, MailSettings, PushSettings, default_db_url
from kahuna.server.db.store import open_engine
from kahuna.server.db.writer import Writer
from kahuna.server.games.ai_pool import AiPool
from kahuna.server.games.deadlines import Deadlines
from kahuna.server.games.engine import GameEngine
from kahuna.server.mail import smtp_url
from kahuna.server.mail.sender import WORKER_POLL_SECONDS as MAIL_POLL_SECONDS
from kahuna.server.mail.sender import MailSender
from kahuna.server.ops.options import add_metrics_option, check_listen, start_metrics
from kahuna.server.push.options import add_push_options, push_settings
from kahuna.server.push.sender import WORKER_POLL_SECONDS as PUSH_POLL_SECONDS
from kahuna.server.push.sender import PushSender
from kahuna.server.push.vapid import KeyFileError, VapidKey, default_key_path
from kahuna.server.wiring import end_hooks

if TYPE_CHECKING:  # the Redis client is the ``redis`` extra; ``kahuna worker`` needs it, imported in main
    from kahuna.server.cluster.redis_broker import RedisBroker


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


@dataclass(frozen=True)
class WorkerSettings:
    db_url: str
    broker_url: str
    consumer: str
    jobs: int = 1
    claim_after: float = CLAIM_AFTER
    mail: MailSettings | None = None
    """The mail server this worker sends the queued mail through (``None``: it sends none)."""
    mail_retry: float = Limits.mail_retry_seconds
    push: PushSettings = field(default_factory=PushSettings)
    """The Web Push key and subject: the worker sends the pushes the instances queue."""


def run(args: argparse.Namespace) -> int:
    if not check_listen("worker", args.metrics_listen):
        return 2
    if args.jobs < 1:
        print("kahuna worker: --jobs must be at least 1", file=sys.stderr)
        return 2
    if args.claim_after <= 0:
        print("kahuna worker: --claim-after must be positive", file=sys.stderr)
        return 2
    mail = None
    if args.smtp is not None:
        if args.mail_from is None:
            print("kahuna worker: --smtp needs --mail-from", file=sys.stderr)
            return 2
        try:
            mail = smtp_url.parse(args.smtp, args.mail_from, "http://localhost")  # links are in the queued mail
        except ValueError as exc:
            print(f"kahuna worker: --smtp: {exc}", file=sys.stderr)
            return 2
    elif args.mail_from is not None:
        print("kahuna worker: --mail-from needs --smtp", file=sys.stderr)
        return 2
    if args.mail_retry <= 0:
        print("kahuna worker: --mail-retry must be positive", file=sys.stderr)
        return 2
    push = push_settings(args)
    if isinstance(push, str):
        print(f"kahuna worker: {push}", file=sys.stderr)
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
    from kahuna.server.cluster.redis_broker import RedisBroker

    database = open_engine(settings.db_url)
    writer = Writer(database)
    writer.start()
    pool = AiPool(settings.jobs)
    queue = JobQueue.from_url(settings.broker_url, claim_after=settings.claim_after)
    broker = RedisBroker(settings.broker_url)
    engine = GameEngine(writer, Announcer(broker), NextQueuedByWorker(), end_hooks(), Deadlines())
    sender = None
    if settings.mail is not None:
        sender = MailSender(writer, settings.mail, settings.mail_retry, poll_seconds=MAIL_POLL_SECONDS)
    key_path = Path(settings.push.key_path) if settings.push.key_path else default_key_path()
    key = VapidKey.load_or_create(key_path, settings.push.subject)
    pushes = PushSender(
        writer, key, Limits().push_retry_seconds, PUSH_POLL_SECONDS, insecure_hosts=settings.push.insecure_hosts
    )
    try:
        pushes.start()  # the instances queue pushes; the workers send them
        await _start_broker(broker, stop)
        await pool.warm_up()
        if sender is not None:
            sender.start()
        print(f"Kahuna worker {settings.consumer}: {settings.jobs} job(s) at once", flush=True)
        logs.event("worker_started", consumer=settings.consumer, jobs=settings.jobs)
        await Worker(engine, pool, queue, settings.consumer, settings.jobs).run(stop)
    finally:
        await pushes.stop()
        if sender is not None:
            await sender.stop()
        await queue.close()
        await broker.close()
        pool.close()
        await writer.close()
        database.dispose()
        logs.event("worker_stopped", consumer=settings.consumer)


async def _start_broker(broker: RedisBroker, stop: asyncio.Event) -> None:
    """Start the broker as soon as Redis answers (a worker may start before it)."""
    from redis.exceptions import RedisError

    pause = RETRY_FIRST
    while not stop.is_set():
        try:
            await broker.start()
            return
        except (RedisError, OSError) as exc:
            logs.event("worker_redis_error", error=type(exc).__name__)
            await sleep_unless(stop, pause)
            pause = min(2 * pause, RETRY_MOST)
