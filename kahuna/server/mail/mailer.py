"""What the accounts' e-mail does, for the HTTP API (and any process without HTTP): set and verify
an address, ask for a password reset, and reset it with the mailed token.

Mail is only queued here, in the transaction that makes its token (``mail/queue.py``); the sender
sends it. Every mail draws on the budgets of whoever asked for it, never on anybody else's, so
that nobody can spend another's mail or learn anything from a refusal (``--limit mails_per_*``):

- a verification mail on the asking account's budget for the recipient mailbox and on its budget
  for all its verification mails; over either it is refused with ``429``, which says something
  only about what that account itself asked for;
- a reset on the asking client address's budget for the mailbox (one per request, whatever the
  number of accounts that verified the address); over it the request is dropped without a word,
  like a reset for an unknown address, so that the answer tells nothing.

A mailbox is :func:`~kahuna.server.mail.addresses.mailbox_key`: ``name+tag@`` spends ``name@``'s
budget. What bounds the mail one mailbox can receive is then the number of accounts and client
addresses that ask (sign-ups and requests are limited per client address, docs/server.md).
"""

from __future__ import annotations

import asyncio
import secrets
import time
from dataclasses import dataclass
from urllib.parse import urlsplit

from sqlalchemy import Connection

from kahuna.server.accounts import store as accounts_store
from kahuna.server.accounts.store import Account
from kahuna.server.common import logs
from kahuna.server.common.config import MailSettings
from kahuna.server.common.errors import Rejected
from kahuna.server.common.outbox import Outbox
from kahuna.server.common.ratelimit import Limiter
from kahuna.server.common.tasks import cancel_and_wait
from kahuna.server.common.tokens import digest
from kahuna.server.db.writer import Writer
from kahuna.server.mail import addresses, queue, templates
from kahuna.server.mail.addresses import TokenRefused, TokenUse

VERIFY_SECONDS = 24 * 3600
"""How long a verification link works."""
RESET_SECONDS = 3600
"""How long a password-reset link works."""
VERIFY_PATH = "/email/verify"
RESET_PATH = "/password-reset"


def message_domain(settings: MailSettings) -> str:
    """The domain of the mails' ``Message-ID``: the sender's."""
    return settings.mail_from.rstrip(">").rpartition("@")[2] or urlsplit(settings.public_url).hostname or "localhost"


def queue_link_mail(
    conn: Connection, kind: str, account: tuple[int, str], address: str, lang: str, path: str, ttl: int,
    public_url: str, domain: str,
) -> None:  # fmt: skip
    """A new single-use token of ``kind`` for ``account`` (id, username) and the mail that links to
    it (``public_url`` + ``path``), queued for the sender; ``domain``: the ``Message-ID``'s. The
    server's mails and ``kahuna admin reset-password`` queue them alike."""
    token = secrets.token_urlsafe(32)
    now = time.time()
    addresses.insert_token(conn, digest(token), kind, account[0], address, now, now + ttl)
    link = f"{public_url}{path}#{token}"
    subject, body = templates.render(kind, lang, username=account[1], link=link, hours=ttl // 3600)
    queue.enqueue(conn, kind, account[0], address, lang, subject, body, domain, now, now + ttl)


@dataclass(frozen=True)
class Budgets:
    per_address: Limiter
    per_account: Limiter


class Mailer:
    """The e-mail of accounts; ``settings`` ``None``: e-mail is off (every mail is refused with
    ``404 mail_off``; the address already stored is still shown)."""

    def __init__(self, writer: Writer, settings: MailSettings | None, budgets: Budgets, outbox: Outbox) -> None:
        """``outbox``: what sends the mail queued here (``common/outbox.py``: this process's sender,
        or left queued for ``kahuna worker --smtp``)."""
        self.writer = writer
        self.settings = settings
        self.budgets = budgets
        self.outbox = outbox
        self._resets: set[asyncio.Task[None]] = set()

    @property
    def enabled(self) -> bool:
        return self.settings is not None

    async def stop(self) -> None:
        """Stop the password resets being looked up (their mails are not queued)."""
        for task in list(self._resets):
            await cancel_and_wait(task)

    def _on(self) -> MailSettings:
        if self.settings is None:
            raise Rejected("mail_off", "this server sends no e-mail", 404)
        return self.settings

    async def _verification_budget(self, account_id: int, address: str) -> float:
        """0 if the account may have a verification mail sent to ``address`` (both of its budgets
        taken), else the wait."""
        mailbox = digest(f"account:{account_id}:{addresses.mailbox_key(address)}")
        wait = await self.budgets.per_address.take(mailbox)
        if wait:
            return wait
        wait = await self.budgets.per_account.take(str(account_id))
        if wait:
            await self.budgets.per_address.refund(mailbox)
        return wait

    async def _reset_budget(self, client: str, address: str) -> bool:
        """Whether the client address may have reset mails sent to ``address``'s mailbox now."""
        return not await self.budgets.per_address.take(digest(f"client:{client}:{addresses.mailbox_key(address)}"))

    def _queue_mail(
        self, conn: Connection, kind: str, account: tuple[int, str], address: str, lang: str, path: str, ttl: int
    ) -> None:
        """A new token of ``kind`` and its mail, in one transaction."""
        settings = self._on()
        queue_link_mail(conn, kind, account, address, lang, path, ttl, settings.public_url, message_domain(settings))

    def wake(self) -> None:
        """Mail was queued: the outbox looks now."""
        self.outbox.wake()

    # ---------------------------------------------------------------- the account's address

    async def address(self, account: Account) -> dict[str, object]:
        stored = await self.writer.read(lambda conn: addresses.address_of(conn, account.id))
        return {"enabled": self.enabled, "email": stored["email"], "pending": stored["pending"]}

    async def ask_verification(self, account: Account, address: str, lang: str) -> None:
        """``address`` becomes the account's pending address and its verification mail is queued
        (``422 invalid_email``, ``429 rate_limited``, ``404 mail_off``)."""
        self._on()
        if not addresses.valid_address(address):
            raise Rejected("invalid_email", "not an e-mail address (ASCII, local@domain.tld)", 422)
        wait = await self._verification_budget(account.id, address)
        if wait:
            raise Rejected("rate_limited", f"enough mails for now: try again in {wait:.0f} s", 429, retry_after=wait)

        def store(conn: Connection) -> None:
            addresses.set_pending(conn, account.id, address, lang)
            self._queue_mail(conn, "verify", (account.id, account.username), address, lang, VERIFY_PATH, VERIFY_SECONDS)

        await self.writer.write(store)
        self.wake()
        logs.event("email_verification_queued", account_id=account.id)

    async def remove_address(self, account: Account) -> None:
        await self.writer.write(lambda conn: addresses.remove_address(conn, account.id))
        logs.event("email_removed", account_id=account.id)

    async def verify(self, token: str) -> None:
        """Open a verification link: its address becomes the account's (``TokenRefused`` if dead)."""
        moment = time.time()

        def use(conn: Connection) -> str | None:
            try:
                found = addresses.use_token(conn, digest(token), "verify", moment)
            except TokenRefused as exc:  # returned, not raised: the writer turns errors into its own
                return exc.code
            return None if addresses.verify(conn, found) else "token_unknown"  # another address asked since

        refused = await self.writer.transact(use)
        if refused is not None:
            raise TokenRefused(refused)
        logs.event("email_verified")

    # ---------------------------------------------------------------- password reset

    def ask_reset(self, address: str, request_lang: str, client: str) -> None:
        """Queue a reset mail for every active account that verified ``address`` (none if none, or
        if ``client``'s budget for that mailbox is spent). Runs after the answer is sent, so that
        known and unknown addresses take the same time to answer."""
        self._on()
        if not addresses.valid_address(address):
            return
        task = asyncio.get_running_loop().create_task(self._reset_mails(address, request_lang, client))
        self._resets.add(task)
        task.add_done_callback(self._resets.discard)

    async def _reset_mails(self, address: str, request_lang: str, client: str) -> None:
        if not await self._reset_budget(client, address):
            logs.event("password_reset_asked", mails=0)
            return
        found = await self.writer.read(lambda conn: addresses.accounts_of_address(conn, address))
        queued = 0
        for account_id, username, verified, stored_lang in found:
            lang = templates.language(stored_lang, request_lang)

            def store(
                conn: Connection, who: tuple[int, str] = (account_id, username), to: str = verified, lang: str = lang
            ) -> None:
                self._queue_mail(conn, "reset", who, to, lang, RESET_PATH, RESET_SECONDS)

            await self.writer.write(store)
            queued += 1
        if queued:
            self.wake()
        logs.event("password_reset_asked", mails=queued)

    async def reset_account(self, token: str) -> tuple[TokenUse, str]:
        """The account (and its username) a reset link is for, without using it (``TokenRefused``)."""
        moment = time.time()

        def check(conn: Connection) -> tuple[TokenUse, str]:
            use = addresses.check_token(conn, digest(token), "reset", moment)
            return use, str(accounts_store.account_info(conn, use.account_id)["username"])

        return await self.writer.read(check)

    async def reset(self, token: str, password_hash: str) -> dict[str, int]:
        """Use the reset link: the new password, every session signed out, every token revoked."""
        moment = time.time()

        def use(conn: Connection) -> dict[str, int] | str:
            try:
                found = addresses.use_token(conn, digest(token), "reset", moment)
            except TokenRefused as exc:  # used meanwhile by another request
                return exc.code
            return accounts_store.set_password(conn, found.account_id, password_hash, keep_session=None)

        changed = await self.writer.transact(use)
        if isinstance(changed, str):
            raise TokenRefused(changed)
        logs.event("password_reset", **changed)
        return changed
