"""Accounts' e-mail addresses and the single-use tokens of the links mailed to them.

An address asked for is ``pending`` until its link is opened; only a verified address receives
any other mail or can reset the password. A token is stored as its SHA-256 only, used once
(``used`` is set in the transaction that acts on it) and refused after it expires. Every function
is synchronous and runs in the writer's or a reader's thread with a ``Connection``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, delete, select, update

from kahuna.server.accounts.store import void_reset_links
from kahuna.server.db.schema import account_emails, accounts, mail_tokens

MAX_ADDRESS = 254
_ADDRESS = re.compile(
    r"^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$"
)
"""An ASCII address ``local@domain.tld``: no spaces, quotes, comments or line breaks (nothing that
could add a header), a domain of at least two labels. Unicode addresses are refused, not encoded."""


def valid_address(text: str) -> bool:
    return len(text) <= MAX_ADDRESS and _ADDRESS.fullmatch(text) is not None


def address_key(address: str) -> str:
    """What two spellings of one address share (domains ignore case; most mailboxes do too)."""
    return address.lower()


GMAIL_DOMAINS = {"gmail.com": "gmail.com", "googlemail.com": "gmail.com"}
"""The domains known to ignore dots in the local part (Google's documented rule), and their name."""


def mailbox_key(address: str) -> str:
    """The mailbox an address reaches, for the mail budgets: one mailbox is one budget however it is
    spelled. The address lower-cased (:func:`address_key`), a ``+tag`` dropped (sub-addressing:
    Gmail, Outlook, iCloud, Fastmail, Proton and Postfix's default deliver ``name+tag@`` to
    ``name@``), and dots dropped only at Gmail, which says so; other hosts may deliver ``a.b@`` and
    ``ab@`` to two people, so their dots are kept. Only the budgets use it: an account's address
    is still compared by :func:`address_key`."""
    local, _, domain = address_key(address).rpartition("@")
    local = local.split("+", 1)[0]
    if domain in GMAIL_DOMAINS:
        local, domain = local.replace(".", ""), GMAIL_DOMAINS[domain]
    return f"{local}@{domain}"


@dataclass(frozen=True)
class TokenUse:
    """What a valid token of a mailed link was for."""

    account_id: int
    email: str


class TokenRefused(Exception):
    """A mailed link's token that cannot be used: ``code`` is ``token_unknown``, ``token_used`` or
    ``token_expired``."""

    def __init__(self, code: str) -> None:
        super().__init__(code)
        self.code = code


def address_of(conn: Connection, account_id: int) -> dict[str, Any]:
    row = conn.execute(
        select(account_emails.c.email, account_emails.c.pending, account_emails.c.lang).where(
            account_emails.c.account_id == account_id
        )
    ).first()
    if row is None:
        return {"email": None, "pending": None, "lang": None}
    return {"email": row.email, "pending": row.pending, "lang": row.lang}


def set_pending(conn: Connection, account_id: int, address: str, lang: str) -> None:
    """``address`` waits for its link; a verified address stays until the new one is verified."""
    if conn.execute(select(account_emails.c.account_id).where(account_emails.c.account_id == account_id)).first():
        conn.execute(
            update(account_emails).where(account_emails.c.account_id == account_id).values(pending=address, lang=lang)
        )
    else:
        conn.execute(account_emails.insert().values(account_id=account_id, pending=address, lang=lang))


def remove_address(conn: Connection, account_id: int) -> None:
    conn.execute(delete(account_emails).where(account_emails.c.account_id == account_id))
    conn.execute(delete(mail_tokens).where(mail_tokens.c.account_id == account_id, mail_tokens.c.used.is_(None)))


def accounts_of_address(conn: Connection, address: str) -> list[tuple[int, str, str, str | None]]:
    """``(account id, username, address as verified, language)`` of the active accounts that
    verified ``address`` (compared by :func:`address_key`)."""
    rows = conn.execute(
        select(accounts.c.id, accounts.c.username, account_emails.c.email, account_emails.c.lang)
        .join(account_emails, account_emails.c.account_id == accounts.c.id)
        .where(account_emails.c.email_key == address_key(address), accounts.c.deleted.is_(None))
        .order_by(accounts.c.id)
        .limit(10)
    )
    return [(row.id, row.username, row.email, row.lang) for row in rows]


def insert_token(
    conn: Connection, token_digest: str, kind: str, account_id: int, email: str, now: float, expires: float
) -> None:
    """A new token of ``kind``; the account's earlier unused tokens of that kind stop working (only
    the newest link counts), and its tokens that expired are dropped."""
    conn.execute(
        delete(mail_tokens).where(
            mail_tokens.c.account_id == account_id, mail_tokens.c.kind == kind, mail_tokens.c.used.is_(None)
        )
    )
    conn.execute(delete(mail_tokens).where(mail_tokens.c.account_id == account_id, mail_tokens.c.expires < now))
    conn.execute(
        mail_tokens.insert().values(
            digest=token_digest, kind=kind, account_id=account_id, email=email, expires=expires, used=None
        )
    )


def check_token(conn: Connection, token_digest: str, kind: str, now: float) -> TokenUse:
    """What a token of ``kind`` is for, if it may be used now (``TokenRefused`` says why not)."""
    row = conn.execute(
        select(mail_tokens).where(mail_tokens.c.digest == token_digest, mail_tokens.c.kind == kind)
    ).first()
    if row is None:
        raise TokenRefused("token_unknown")
    if row.used is not None:
        raise TokenRefused("token_used")
    if row.expires <= now:
        raise TokenRefused("token_expired")
    return TokenUse(int(row.account_id), str(row.email))


def use_token(conn: Connection, token_digest: str, kind: str, now: float) -> TokenUse:
    """:func:`check_token`, and mark it used (once: a second use, in this transaction or a later
    one, is refused)."""
    found = check_token(conn, token_digest, kind, now)
    taken = conn.execute(
        update(mail_tokens).where(mail_tokens.c.digest == token_digest, mail_tokens.c.used.is_(None)).values(used=now)
    )
    if taken.rowcount != 1:
        raise TokenRefused("token_used")
    return found


def verify(conn: Connection, use: TokenUse) -> bool:
    """The token's address becomes the account's verified address, if it is still the one asked
    for (a later ``PUT`` of another address makes the earlier link void); the reset links mailed to
    the address it replaces stop working."""
    row = conn.execute(select(account_emails.c.pending).where(account_emails.c.account_id == use.account_id)).first()
    if row is None or row.pending != use.email:
        return False
    conn.execute(
        update(account_emails)
        .where(account_emails.c.account_id == use.account_id)
        .values(email=use.email, email_key=address_key(use.email), pending=None)
    )
    void_reset_links(conn, use.account_id)
    return True
