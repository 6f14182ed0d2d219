"""Web Push's command-line options, the same for ``kahuna serve`` and ``kahuna worker`` (which sends
the pushes with a broker, so it needs the same key)."""

from __future__ import annotations

import argparse

from kahuna.server.common.config import PushSettings


def add_push_options(p: argparse.ArgumentParser) -> None:
    """Add the options to the command's parser."""
    p.add_argument(
        "--vapid-key",
        metavar="PATH",
        help="the Web Push (VAPID) private key, PEM; made there if missing "
        "(default: vapid.pem in the data directory; every instance and worker needs the same one)",
    )
    p.add_argument(
        "--vapid-subject",
        metavar="URI",
        default="mailto:admin@localhost",
        help="how a push service reaches the operator: mailto:ADDRESS or https://URL (default mailto:admin@localhost)",
    )
    p.add_argument(
        "--push-insecure-host",
        action="append",
        default=[],
        metavar="HOST",
        help="accept http:// push endpoints on HOST (tests with a local push service; never in production)",
    )


def push_settings(args: argparse.Namespace) -> PushSettings | str:
    """The push settings of the command line, or what is wrong with them."""
    if not args.vapid_subject.startswith(("mailto:", "https://")):
        return "--vapid-subject must start with mailto: or https://"
    hosts = tuple(host.lower() for host in args.push_insecure_host)
    return PushSettings(key_path=args.vapid_key, subject=args.vapid_subject, insecure_hosts=hosts)
