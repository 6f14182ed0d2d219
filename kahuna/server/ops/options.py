"""``--metrics-listen``: the same option, checked the same way, for ``kahuna serve`` and ``kahuna worker``."""

from __future__ import annotations

import argparse
import sys

from kahuna.server.ops import metrics


def add_metrics_option(p: argparse.ArgumentParser) -> None:
    """``--metrics-listen``, the same for ``kahuna serve`` and ``kahuna worker``."""
    p.add_argument(
        "--metrics-listen",
        metavar="HOST:PORT",
        help="serve this process's Prometheus metrics (/metrics) on this address, apart from the public "
        "one, e.g. 127.0.0.1:9100 (default: none; docs/deploy.md lists them)",
    )


def check_listen(command: str, listen: str | None) -> bool:
    """Whether the address is well formed (else the error is printed): checked before anything starts."""
    if listen is None:
        return True
    try:
        metrics.parse_listen(listen)
    except ValueError as exc:
        print(f"kahuna {command}: --metrics-listen: {exc}", file=sys.stderr)
        return False
    return True


def start_metrics(command: str, listen: str | None) -> bool:
    """Serve the metrics if asked; False (the error printed) if the address cannot be listened on."""
    if listen is None:
        return True
    try:
        metrics.serve(*metrics.parse_listen(listen))
    except OSError as exc:
        print(f"kahuna {command}: cannot listen on {listen}: {exc.strerror or exc}", file=sys.stderr)
        return False
    return True
