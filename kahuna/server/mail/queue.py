"""The mail queue: a table, so that mail survives a restart and a mail server that is down.

A mail is written in the transaction of what caused it (``enqueue``), and sent later by a sender
(``mail/sender.py``) that first **claims** it: a conditional update that sets a lease
(``claimed_until``) only if nobody holds one, so that two senders (two instances, or one that
restarted) never both send it. After the mail server took it, the row is marked ``sent`` (and its
body, which holds the link, is erased); after a temporary failure the lease is dropped and the
next attempt is due after a backoff that doubles; a permanent refusal (a 5xx answer) marks it
``failed``. A mail whose link has expired is not sent any more (``expired``).

The one window left: a sender that dies after the mail server took the mail and before it marked
the row sends it again when the lease ends (at least once, not exactly once, across a crash); the
mail keeps its ``Message-ID``, so a mail server or client that drops duplicates drops it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from sqlalchemy import Connection, and_, or_, update

from kahuna.server.db import leases
from kahuna.server.db.schema import mail_queue

LEASE_SECONDS = 120.0
"""How long a claim holds: longer than one SMTP conversation may take (its timeout is 30 s)."""


@dataclass(frozen=True)
class Mail:
    id: int
    kind: str
    recipient: str
    lang: str
    subject: str
    body: str
    message_id: str
    attempts: int
    list_unsubscribe: str | None = None
    """A notification's one-click unsubscribe URL (``None``: a transactional mail)."""


def enqueue(
    conn: Connection,
    kind: str,
    account_id: int | None,
    recipient: str,
    lang: str,
    subject: str,
    body: str,
    domain: str,
    now: float,
    expires: float,
    list_unsubscribe: str | None = None,
) -> int:
    """Queue a mail, due at once; its id."""
    message_id = f"<{secrets.token_hex(16)}@{domain}>"
    new_id = conn.execute(
        mail_queue.insert().values(
            kind=kind,
            account_id=account_id,
            recipient=recipient,
            lang=lang,
            subject=subject,
            body=body,
            message_id=message_id,
            created=now,
            expires=expires,
            due=now,
            attempts=0,
            claimed_until=None,
            status="queued",
            list_unsubscribe=list_unsubscribe,
        )
    ).inserted_primary_key
    assert new_id is not None
    return int(new_id[0])


def due_now(conn: Connection, now: float) -> int:
    """Make every waiting mail due at once (the server starts: its mail settings may just have
    been fixed, so the backoff of the last run does not hold mail back); how many."""
    free = or_(mail_queue.c.claimed_until.is_(None), mail_queue.c.claimed_until < now)
    waiting = and_(mail_queue.c.status == "queued", free)
    return int(conn.execute(update(mail_queue).where(waiting, mail_queue.c.due > now).values(due=now)).rowcount)


def claim(conn: Connection, now: float, limit: int) -> list[Mail]:
    """Claim up to ``limit`` due mails for this sender (a lease of :data:`LEASE_SECONDS`); mails
    whose link expired meanwhile are marked ``expired`` instead (their body erased)."""
    rows = leases.claim(conn, mail_queue, now, limit, LEASE_SECONDS, cleared={"body": None})
    return [
        Mail(
            row.id,
            row.kind,
            row.recipient,
            row.lang,
            row.subject,
            row.body or "",
            row.message_id,
            row.attempts,
            row.list_unsubscribe,
        )
        for row in rows
    ]


def mark_sent(conn: Connection, mail_id: int, now: float) -> None:
    leases.finish(conn, mail_queue, mail_id, "sent", now, body=None, error=None)


def mark_failed(conn: Connection, mail_id: int, now: float, error: str) -> None:
    """The mail server refused the mail for good: it is not tried again."""
    leases.finish(conn, mail_queue, mail_id, "failed", now, body=None, error=error[:200])


def retry_later(conn: Connection, mail: Mail, now: float, first_wait: float, error: str) -> float:
    """A temporary failure: the next attempt waits ``first_wait`` doubled per earlier attempt (an
    hour at most); when it is due."""
    return leases.retry_later(conn, mail_queue, mail.id, mail.attempts, now, first_wait, error=error[:200])


def next_due_and_waiting(conn: Connection) -> tuple[float | None, int]:
    """When the next queued mail is due (``None``: nothing queued), leases included, and how many
    mails are queued (the metrics' queue depth)."""
    return leases.next_due(conn, mail_queue), leases.waiting(conn, mail_queue)
