"""A real SMTP server for tests (aiosmtpd on a loopback port) that keeps every mail it receives.

With ``KAHUNA_KEEP_MAILS=DIR`` in the environment each mail is also written to ``DIR`` as it was
received (``NNN-recipient.eml``), to be read in a mail client: how docs/screenshots/ got its mails.
"""

from __future__ import annotations

import email
import email.policy
import os
import re
import threading
from collections.abc import Iterator
from email.message import EmailMessage
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session
from server_harness import free_port, wait_for

LINK = re.compile(r"https?://\S+#(\S+)")


class Inbox:
    """aiosmtpd's handler: each mail received, parsed."""

    def __init__(self) -> None:
        self.mails: list[EmailMessage] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        assert isinstance(envelope.content, bytes)
        parsed = email.message_from_bytes(envelope.content, policy=email.policy.default)
        assert isinstance(parsed, EmailMessage)
        with self.lock:
            self.mails.append(parsed)
            keep = os.environ.get("KAHUNA_KEEP_MAILS")
            if keep:
                name = re.sub(r"[^\w.@-]", "_", str(parsed["To"]))
                with open(os.path.join(keep, f"{len(self.mails):03d}-{name}.eml"), "wb") as kept:
                    kept.write(envelope.content)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        with self.lock:
            return [mail for mail in self.mails if mail["To"] == address]

    def wait(self, address: str, count: int = 1) -> list[EmailMessage]:
        """The mails to ``address`` once ``count`` have arrived."""
        wait_for(lambda: len(self.to(address)) >= count, f"{count} mail(s) to {address}")
        return self.to(address)


def body(mail: EmailMessage) -> str:
    part = mail.get_body(("plain",))
    assert part is not None
    text: Any = part.get_content()
    assert isinstance(text, str)
    return text


def link_token(mail: EmailMessage) -> tuple[str, str]:
    """The link of a mail and its token (after the ``#``)."""
    found = LINK.search(body(mail))
    assert found is not None, body(mail)
    return found.group(0), found.group(1)


class MailServer:
    """aiosmtpd's ``Controller`` on ``port`` of 127.0.0.1, started and stopped by the test."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.inbox = Inbox()
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=port)

    def start(self) -> MailServer:
        self.controller.start()
        return self

    def stop(self) -> None:
        self.controller.stop()


def mail_options(mail: MailServer) -> tuple[str, ...]:
    """The ``kahuna serve`` options that send a test server's mail to ``mail``."""
    return ("--smtp", f"smtp://127.0.0.1:{mail.port}", "--mail-from", "Kahuna <games@kahuna.test>")


@pytest.fixture(scope="module")
def smtp() -> Iterator[MailServer]:
    """One mail server for a test module's servers (import it into the module as a fixture)."""
    running = MailServer(free_port()).start()
    yield running
    running.stop()
