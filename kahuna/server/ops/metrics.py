"""The process's Prometheus metrics (``prometheus-client``), served on their own listen address.

Each ``kahuna serve`` and each ``kahuna worker`` is one Python process with its own registry,
scraped on its own ``--metrics-listen`` address (never the public one: the figures tell an
attacker how busy the server is). The AI pool's child processes record nothing (what they do is
measured in the parent: the queue and its wait), so ``prometheus-client``'s multiprocess mode,
meant for several processes behind one port, is not needed. The client's default collectors add
the process's CPU time, memory and open files (``process_*``) and its garbage collections
(``python_gc_*``). The metrics are listed in docs/deploy.md.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from prometheus_client import Counter, Gauge, Histogram, start_http_server

ACTIONS = Counter("kahuna_actions", "Actions stored (committed by this process's writer)")
COMMIT_SECONDS = Histogram(
    "kahuna_commit_seconds",
    "Seconds one transaction of the writer took (a batch of writes)",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)
HTTP_REQUESTS = Counter("kahuna_http_requests", "HTTP requests answered, by route and status", ["route", "status"])
WEBSOCKETS = Gauge("kahuna_websockets", "WebSocket connections open, by kind (game, lobby)", ["kind"])
GAMES_HELD = Gauge("kahuna_games_held", "Games held in this process's memory")
AI_QUEUE = Gauge("kahuna_ai_queue", "AI moves waiting for a worker process, by lane (count, time)", ["lane"])
AI_WAIT_SECONDS = Histogram(
    "kahuna_ai_wait_seconds",
    "Seconds an AI move or analysis waited for a worker process, by lane",
    ["lane"],
    buckets=(0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0),
)
RATE_LIMITED = Counter("kahuna_rate_limited", "Requests refused by a rate limit, by budget", ["budget"])
MAIL_QUEUE = Gauge("kahuna_mail_queue", "Mails queued and not yet sent (as this process last saw)")
MAIL_FAILURES = Counter("kahuna_mail_failures", "Attempts to send a mail that failed")
PUSH_QUEUE = Gauge("kahuna_push_queue", "Web Pushes queued and not yet sent (as this process last saw)")
PUSH_FAILURES = Counter("kahuna_push_failures", "Attempts to send a Web Push that failed")


class Stopwatch:
    """Seconds since it was made (``time.perf_counter``)."""

    __slots__ = ("start",)

    def __init__(self) -> None:
        self.start = time.perf_counter()

    def seconds(self) -> float:
        return time.perf_counter() - self.start


def track(gauge: Gauge, read: Callable[[], float]) -> None:
    """Have ``gauge`` read its value from ``read`` at each scrape (a count this process holds)."""
    gauge.set_function(read)


def parse_listen(value: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) → its parts; ``ValueError`` naming what is wrong."""
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 <= int(port) <= 65535:
        raise ValueError(f"{value!r} is not HOST:PORT (e.g. 127.0.0.1:9100)")
    return host.strip("[]"), int(port)


def serve(host: str, port: int) -> None:
    """Serve ``/metrics`` (any path) on ``host:port`` from a daemon thread (the event loop is not
    involved: a scrape costs the game loop nothing but the GIL it holds)."""
    start_http_server(port, host)
