"""What reaches players away from the board: mail addresses, mail tokens and the queue, notification
settings and notices, Web Push subscriptions and the push queue."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Integer,
    String,
    Table,
    Text,
    UniqueConstraint,
)

from kahuna.server.db.schema.base import metadata

account_emails = Table(
    "account_emails",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("email", String(254)),
    Column("email_key", String(254), index=True),
    Column("pending", String(254)),
    Column("lang", String(8)),
)
"""An account's e-mail address: ``email`` once verified (``email_key``: the same in lower case, to
find it for a password reset), ``pending`` the address asked for and not verified yet; ``lang`` the
language the account's mails are written in (the page's language when the address was set)."""


mail_tokens = Table(
    "mail_tokens",
    metadata,
    Column("digest", String(64), primary_key=True),
    Column("kind", String(16), nullable=False),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("email", String(254), nullable=False),
    Column("expires", Float, nullable=False),
    Column("used", Float),
)
"""The single-use tokens of mailed links (``kind`` ``verify`` or ``reset``): only their SHA-256;
``used`` once used (kept until they expire, so that a used link is told apart from an unknown one)."""


mail_queue = Table(
    "mail_queue",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("kind", String(16), nullable=False),
    Column("account_id", Integer, index=True),
    Column("recipient", String(254), nullable=False),
    Column("lang", String(8), nullable=False),
    Column("subject", Text, nullable=False),
    Column("body", Text),
    Column("message_id", String(200), nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Column("due", Float, nullable=False, index=True),
    Column("attempts", Integer, nullable=False),
    Column("claimed_until", Float),
    Column("status", String(16), nullable=False, index=True),
    Column("done", Float),
    Column("error", String(200)),
    Column("list_unsubscribe", String(400)),
)
"""Mail to send (``mail/queue.py``): ``status`` ``queued`` until ``sent``, ``failed`` (the mail server
refused it for good) or ``expired`` (its link expired before a mail server took it); ``due`` the
next attempt (seconds since the epoch), ``claimed_until`` the lease of the sender that is sending
it. ``body`` holds the link until the mail is sent and is erased then. ``list_unsubscribe``: the
one-click unsubscribe URL of a notification (``None``: a transactional mail)."""


# ------------------------------------------------------------------ notifications


notification_settings = Table(
    "notification_settings",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("off", String(400), nullable=False),
    Column("secret", String(64)),
)
"""What an account turned off (``accounts/notifications.py``): ``off`` holds ``kind:channel`` pairs
separated by spaces (no row, or a pair not listed: on). ``secret`` signs the account's unsubscribe
links (``mail/unsubscribe.py``), made with the first one."""


notices = Table(
    "notices",
    metadata,
    Column("kind", String(16), primary_key=True),
    Column("subject", String(40), primary_key=True),
    Column("step", Integer, primary_key=True),
    Column("account_id", Integer, primary_key=True),
    Column("status", String(16), nullable=False),
    Column("at", Float, nullable=False, index=True),
)
"""Each notification mail decided once (``mail/channel.py``): its key is the kind, what it is about
(a game, a challenge, a tournament), the step (a game's ply; 0 otherwise) and the account; the
instance whose insert wins queues the mail, the others' inserts fail. ``status`` ``queued``,
``dropped`` (over the account's or address's budget), or ``off`` (turned off meanwhile)."""


seat_seen = Table(
    "seat_seen",
    metadata,
    Column("game_id", String(32), ForeignKey("games.id"), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("seen", Float, nullable=False),
)
"""When a seat of a correspondence game last had a connection (on any instance), written by each
instance's reminder loop for the seats connected to it: a turn reminder waits until the seat has
been away for ``--limit your_turn_after_seconds``."""


# ------------------------------------------------------------------ web push


push_subscriptions = Table(
    "push_subscriptions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("endpoint", String(1024), nullable=False, unique=True),
    Column("p256dh", String(100), nullable=False),
    Column("auth", String(40), nullable=False),
    Column("created", Float, nullable=False),
)
"""The devices (browsers) that subscribed an account for Web Push (``push/subscriptions.py``): the
push service's ``endpoint`` and the browser's keys (base64url) that encrypt what is sent to it."""


push_queue = Table(
    "push_queue",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("subscription_id", Integer, nullable=False, index=True),
    Column("notice", String(120), nullable=False),
    Column("payload", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Column("due", Float, nullable=False, index=True),
    Column("attempts", Integer, nullable=False),
    Column("claimed_until", Float),
    Column("status", String(16), nullable=False, index=True),
    Column("done", Float),
    UniqueConstraint("subscription_id", "notice", name="uq_push_queue_notice"),
)
"""Pushes to send (``push/queue.py``), one per subscription: ``notice`` names what it tells
(``your_turn:GAME:VERSION``), so that two instances that both see a turn queue it once; ``status``
``queued`` until ``sent``, ``gone`` (the subscription was removed) or ``expired``; ``due`` and
``claimed_until`` as in the mail queue (``db/leases.py``)."""
