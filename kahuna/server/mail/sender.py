"""The sender: a task of the server that sends the queued mails through the mail server.

At start it makes every waiting mail due at once (its mail settings may just have been fixed). It
wakes when a mail is queued in this process (``wake``), when the next mail is due, and every
:data:`POLL_SECONDS` (mail queued by another instance). Each mail is claimed before it is sent and
marked after (``mail/queue.py``); the SMTP conversation runs in a thread (``smtplib``), never on
the event loop, one mail at a time. A mail server that is down or answers 4xx delays the mail (the
backoff doubles, from ``--limit mail_retry_seconds``); a 5xx refusal of the recipient or the mail
is permanent.

With several instances every one runs a sender; the claims keep them from sending a mail twice.
Behind ``kahuna serve --broker`` (AI moves queued for workers) the instances only queue mail and
``kahuna worker --smtp`` sends it: it cannot be woken by another process, so it looks every
:data:`WORKER_POLL_SECONDS`.
"""

from __future__ import annotations

import asyncio
import contextlib
import smtplib
import ssl
import time
from email.message import EmailMessage
from email.utils import formatdate

from kahuna.server.common import logs
from kahuna.server.common.config import MailSettings
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.db.writer import Writer
from kahuna.server.mail import queue
from kahuna.server.mail.queue import Mail
from kahuna.server.ops import metrics

POLL_SECONDS = 30.0
"""How often an idle sender looks for mail that another instance queued."""
WORKER_POLL_SECONDS = 2.0
"""How often a ``kahuna worker``'s sender looks for mail the instances queued (one indexed query)."""
SMTP_TIMEOUT = 30.0


def message(mail: Mail, settings: MailSettings) -> EmailMessage:
    """The mail as it goes out: plain text in UTF-8, marked as sent by a program."""
    out = EmailMessage()
    out["From"] = settings.mail_from
    out["To"] = mail.recipient
    out["Subject"] = mail.subject
    out["Date"] = formatdate(localtime=False)
    out["Message-ID"] = mail.message_id
    out["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to it
    if mail.list_unsubscribe is not None:  # RFC 8058: the mail client's button POSTs to it
        out["List-Unsubscribe"] = f"<{mail.list_unsubscribe}>"
        out["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    out.set_content(mail.body)
    out["Content-Language"] = mail.lang  # after set_content, which drops every Content-* header
    return out


def deliver(settings: MailSettings, mail: EmailMessage) -> None:
    """One SMTP conversation (in a thread): ``smtplib`` errors say what went wrong."""
    context = ssl.create_default_context()
    client: smtplib.SMTP
    if settings.security == "tls":
        client = smtplib.SMTP_SSL(settings.host, settings.port, timeout=SMTP_TIMEOUT, context=context)
    else:
        client = smtplib.SMTP(settings.host, settings.port, timeout=SMTP_TIMEOUT)
    with client:
        if settings.security == "starttls":
            client.starttls(context=context)  # SMTPNotSupportedError if not offered: nothing is sent
        if settings.username is not None:
            client.login(settings.username, settings.password or "")
        client.send_message(mail)


def permanent(exc: Exception) -> bool:
    """Whether the mail server refused for good (a 5xx answer to the recipient or the mail)."""
    if isinstance(exc, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in exc.recipients.values())
    if isinstance(exc, (smtplib.SMTPSenderRefused, smtplib.SMTPDataError)):
        return exc.smtp_code >= 500
    return False


class MailSender:
    """Sends the queue's mails while the server runs."""

    def __init__(
        self, writer: Writer, settings: MailSettings, retry_seconds: float, poll_seconds: float = POLL_SECONDS
    ) -> None:
        self.writer = writer
        self.settings = settings
        self.retry_seconds = retry_seconds
        self.poll_seconds = poll_seconds
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self._stopping = False

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="mail-sender")

    async def stop(self) -> None:
        """Stop after the mail being sent, if any, is sent and marked (a mail cut off between the
        two would go out again after a restart); cut off only if that takes longer than an SMTP
        conversation may."""
        if self._task is None:
            return
        self._stopping = True
        self._wake.set()
        try:
            await asyncio.wait_for(asyncio.shield(self._task), timeout=SMTP_TIMEOUT + 5)
        except TimeoutError:
            await cancel_and_wait(self._task)

    def wake(self) -> None:
        """A mail was queued: look now."""
        self._wake.set()

    async def _run(self) -> None:
        try:
            waiting = await self.writer.transact(lambda conn: queue.due_now(conn, time.time()))
            logs.event("mail_queue_resumed", waiting=waiting)
        except Exception as exc:
            logs.event("mail_queue_error", error=type(exc).__name__)
        while not self._stopping:
            try:
                await self.send_due()
                due, waiting = await self.writer.read(queue.next_due_and_waiting)
                metrics.MAIL_QUEUE.set(waiting)
            except Exception as exc:  # the database unreachable for a moment: try again later
                logs.event("mail_queue_error", error=type(exc).__name__)
                due = None
            poll = self.poll_seconds
            wait = poll if due is None else max(0.0, min(poll, due - time.time()))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), timeout=wait)
            self._wake.clear()

    async def send_due(self) -> int:
        """Claim and send every mail that is due; how many went out."""
        sent = 0
        while True:
            if self._stopping:
                return sent
            batch = await self.writer.transact(lambda conn: queue.claim(conn, time.time(), 1))
            if not batch:
                return sent
            sent += await self._send(batch[0])

    async def _send(self, mail: Mail) -> int:
        try:
            await asyncio.to_thread(deliver, self.settings, message(mail, self.settings))
        except (smtplib.SMTPException, OSError) as exc:
            error = f"{type(exc).__name__}: {exc}"[:200]
            metrics.MAIL_FAILURES.inc()
            moment = time.time()
            if permanent(exc):
                await self.writer.write(lambda conn: queue.mark_failed(conn, mail.id, moment, error))
                logs.event("mail_failed", mail_id=mail.id, mail_kind=mail.kind, error=type(exc).__name__)
            else:
                await self.writer.transact(
                    lambda conn: queue.retry_later(conn, mail, moment, self.retry_seconds, error)
                )
                logs.event(
                    "mail_delayed",
                    mail_id=mail.id,
                    mail_kind=mail.kind,
                    attempt=mail.attempts,
                    error=type(exc).__name__,
                )
            return 0
        moment = time.time()
        await self.writer.write(lambda conn: queue.mark_sent(conn, mail.id, moment))
        logs.event("mail_sent", mail_id=mail.id, mail_kind=mail.kind, attempt=mail.attempts)
        return 1
