"""The options of what tells players while their tab is closed, checked in one place for ``kahuna
serve`` and ``kahuna worker``: mail (``--smtp``, ``--mail-from``; ``smtp_url``) and Web Push (its
options are ``push/options.py``'s)."""

from __future__ import annotations

import argparse

from kahuna.server.common.config import MailSettings, PushSettings
from kahuna.server.mail import smtp_url
from kahuna.server.push.options import push_settings

QUEUED_MAIL = "http://localhost"
"""The links of a process that writes no mail (``kahuna worker`` sends mail the instances wrote,
their links in it): they are never used, so its ``--mail-from`` must be given."""


def senders(args: argparse.Namespace, links: str | None) -> tuple[MailSettings | None, PushSettings] | str:
    """The mail settings (``None``: no ``--smtp``) and push settings of the command line, or what
    is wrong with them. ``links``: where the links of the mails this process writes start
    (``--public-url``, or ``kahuna serve``'s own address on loopback; ``None``: there is none, so
    ``--smtp`` needs ``--public-url``), or :data:`QUEUED_MAIL`."""
    mail = None
    if args.smtp is not None:
        if links == QUEUED_MAIL and args.mail_from is None:
            return "--smtp needs --mail-from"
        if links is None:
            return "--smtp needs --public-url (the address players open) for the links it mails"
        try:
            mail = smtp_url.parse(args.smtp, args.mail_from, links)
        except ValueError as exc:
            return f"--smtp: {exc}"
    elif args.mail_from is not None:
        return "--mail-from needs --smtp"
    push = push_settings(args)
    if isinstance(push, str):
        return push
    return mail, push
