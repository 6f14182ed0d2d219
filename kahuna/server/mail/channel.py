"""The mail channel of the notifier (``notify/notifier.py``): a notice decided once, as a row of
``notices``, and mailed through the queue (``mail/queue.py``) for the outbox given at assembly.

A notice reaches an account with a verified address that is not deleted, and only if it has not
turned the kind off by mail (``accounts/notifications.py``). Its row in ``notices`` (kind, subject,
step, account) is inserted in the transaction that queues the mail, so when instances decide the
same notice at once exactly one insert wins and the others' transactions roll back (``Conflict``),
and a restart finds it decided. A notice over its account's or mailbox's budget (``--limit
notice_mails_per_*``; a mailbox as the mail budgets count it, ``name+tag@`` is ``name@``) is
recorded as ``dropped`` and not sent. Nothing here waits for a mail server.

A challenge is mailed as it is made; the notices that are due only after a while (a correspondence
turn left an hour, a deadline near, a tournament starting soon) are found by this channel's own
scan (``mail/reminders.py``), started and stopped with it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

from sqlalchemy import Connection, select

from kahuna.server.accounts import notifications
from kahuna.server.accounts.notifications import Notice
from kahuna.server.common import logs
from kahuna.server.common.config import MailSettings
from kahuna.server.common.outbox import Outbox
from kahuna.server.common.tokens import digest
from kahuna.server.db.schema import account_emails, accounts, notices
from kahuna.server.db.writer import Conflict, Writer
from kahuna.server.mail import addresses, notice_texts, queue, unsubscribe
from kahuna.server.mail.mailer import Budgets, message_domain
from kahuna.server.mail.reminders import ConnectedSeats, Reminders, Timing
from kahuna.server.mail.templates import language


@dataclass(frozen=True)
class Recipient:
    username: str
    email: str
    lang: str | None


def recipient(conn: Connection, account_id: int) -> Recipient | None:
    """The account's name and verified address (``None``: none, or the account is deleted)."""
    row = conn.execute(
        select(accounts.c.username, account_emails.c.email, account_emails.c.lang)
        .join(account_emails, account_emails.c.account_id == accounts.c.id)
        .where(accounts.c.id == account_id, accounts.c.deleted.is_(None), account_emails.c.email.is_not(None))
    ).first()
    return None if row is None else Recipient(row.username, row.email, row.lang)


def _mailbox(to: Recipient) -> str:
    """The budget key of the mailbox a notice goes to: its spellings share it, as the account mails'
    do (``mail/mailer.py``), and no other budget's key is the same."""
    return digest(f"notices:{addresses.mailbox_key(to.email)}")


class MailChannel:
    """Decides each notice once by mail (see the module's docstring)."""

    kinds_now: tuple[str, ...] = ("challenge",)
    """The kinds mailed as they happen; the others are found due by the scan."""

    def __init__(
        self,
        writer: Writer,
        settings: MailSettings,
        budgets: Budgets,
        outbox: Outbox,
        timing: Timing,
        connected: ConnectedSeats,
    ) -> None:
        self.writer = writer
        self.settings = settings
        self.budgets = budgets
        self.outbox = outbox
        self.scan = Reminders(writer, timing, connected, self.deliver)

    def start(self) -> None:
        """Start the scan (the outbox is a part of its own: the account mails share it)."""
        self.scan.start()

    async def stop(self) -> None:
        await self.scan.stop()

    async def deliver(self, notice: Notice) -> None:
        """Decide ``notice`` once: queue its mail, or record it dropped over budget or off."""
        to = await self.writer.read(lambda conn: recipient(conn, notice.account_id))
        if to is None:
            return
        within = await self._take(notice, to)
        moment = time.time()

        def store(conn: Connection) -> str:
            wanted = within and notifications.wants(conn, notice.account_id, notice.kind, "mail")
            status = "queued" if wanted else ("dropped" if not within else "off")
            conn.execute(
                notices.insert().values(
                    kind=notice.kind,
                    subject=notice.subject,
                    step=notice.step or 0,
                    account_id=notice.account_id,
                    status=status,
                    at=moment,
                )
            )
            if wanted:
                self._enqueue(conn, notice, to, moment)
            return status

        try:
            status = await self.writer.transact(store)
        except Conflict:  # another instance decided it first
            status = "taken"
        if within and status != "queued":
            await self._refund(notice, to)
        logs.event("notice", notice_kind=notice.kind, account_id=notice.account_id, status=status)
        if status == "queued":
            self.outbox.wake()

    async def _take(self, notice: Notice, to: Recipient) -> bool:
        address = _mailbox(to)
        if await self.budgets.per_address.take(address):
            return False
        if await self.budgets.per_account.take(str(notice.account_id)):
            await self.budgets.per_address.refund(address)
            return False
        return True

    async def _refund(self, notice: Notice, to: Recipient) -> None:
        await self.budgets.per_address.refund(_mailbox(to))
        await self.budgets.per_account.refund(str(notice.account_id))

    def _enqueue(self, conn: Connection, notice: Notice, to: Recipient, now: float) -> None:
        token = unsubscribe.token(conn, notice.account_id, notice.kind)
        stop = f"{self.settings.public_url}{unsubscribe.PATH}{token}"
        lang = language(to.lang)
        subject, body = notice_texts.render(
            notice.kind,
            lang,
            username=to.username,
            other=notice.other or "?",
            link=f"{self.settings.public_url}{notice.path}",
            unsubscribe=stop,
            hours=max(1, math.ceil(notice.left / 3600)),
            minutes=max(1, math.ceil(notice.left / 60)),
        )
        queue.enqueue(
            conn,
            notice.kind,
            notice.account_id,
            to.email,
            lang,
            subject,
            body,
            message_domain(self.settings),
            now,
            notice.expires,
            list_unsubscribe=stop,
        )
