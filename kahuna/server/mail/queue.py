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

from sqlalchemy import Connection, and_, or_, select, update

from kahuna.server.db.schema import mail_queue

LEASE_SECONDS = 120.0
"""How long a claim holds: longer than one SMTP conversation may take (its timeout is 30 s)."""
MAX_BACKOFF = 3600.0


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
    whose link expired meanwhile are marked ``expired`` instead."""
    free = or_(mail_queue.c.claimed_until.is_(None), mail_queue.c.claimed_until < now)
    conn.execute(
        update(mail_queue)
        .where(mail_queue.c.status == "queued", mail_queue.c.expires <= now, free)
        .values(status="expired", done=now, body=None)
    )
    rows = conn.execute(
        select(mail_queue)
        .where(mail_queue.c.status == "queued", mail_queue.c.due <= now, free)
        .order_by(mail_queue.c.due, mail_queue.c.id)
        .limit(limit)
    ).all()
    claimed = []
    for row in rows:
        taken = conn.execute(
            update(mail_queue)
            .where(
                mail_queue.c.id == row.id,
                mail_queue.c.status == "queued",
                or_(mail_queue.c.claimed_until.is_(None), mail_queue.c.claimed_until < now),
            )
            .values(claimed_until=now + LEASE_SECONDS, attempts=mail_queue.c.attempts + 1)
        )
        if taken.rowcount == 1:
            claimed.append(
                Mail(
                    row.id,
                    row.kind,
                    row.recipient,
                    row.lang,
                    row.subject,
                    row.body or "",
                    row.message_id,
                    row.attempts + 1,
                    row.list_unsubscribe,
                )
            )
    return claimed


def mark_sent(conn: Connection, mail_id: int, now: float) -> None:
    conn.execute(
        update(mail_queue)
        .where(mail_queue.c.id == mail_id)
        .values(status="sent", done=now, body=None, claimed_until=None, error=None)
    )


def mark_failed(conn: Connection, mail_id: int, now: float, error: str) -> None:
    """The mail server refused the mail for good: it is not tried again."""
    conn.execute(
        update(mail_queue)
        .where(mail_queue.c.id == mail_id)
        .values(status="failed", done=now, body=None, claimed_until=None, error=error[:200])
    )


def retry_later(conn: Connection, mail: Mail, now: float, first_wait: float, error: str) -> float:
    """A temporary failure: the next attempt waits ``first_wait`` doubled per earlier attempt (an
    hour at most); when it is due."""
    due = now + min(MAX_BACKOFF, first_wait * 2 ** (mail.attempts - 1))
    conn.execute(
        update(mail_queue).where(mail_queue.c.id == mail.id).values(due=due, claimed_until=None, error=error[:200])
    )
    return float(due)


def next_due(conn: Connection) -> float | None:
    """When the next queued mail is due (``None``: nothing queued), leases included."""
    row = conn.execute(
        select(mail_queue.c.due, mail_queue.c.claimed_until)
        .where(mail_queue.c.status == "queued")
        .order_by(mail_queue.c.due)
        .limit(1)
    ).first()
    if row is None:
        return None
    return float(max(row.due, row.claimed_until or 0.0))
