"""Accounts, their sessions and API tokens, and the browsers they signed in on."""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
)

from kahuna.server.db.schema.base import metadata

MAX_USER_AGENT = 200
"""Characters of a browser's ``User-Agent`` kept with its session."""


accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("username", String(20), nullable=False),
    Column("username_key", String(20), nullable=False, unique=True),
    Column("password", String(200)),
    Column("created", String(32), nullable=False),
    Column("deleted", String(32)),
    Column("is_bot", Boolean, nullable=False),
)


sessions = Table(
    "sessions",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("created", String(32), nullable=False),
    Column("expires", Float, nullable=False),
    Column("user_agent", String(MAX_USER_AGENT)),
)
"""``id`` is the SHA-256 of the session id; ``expires`` is seconds since the epoch."""


api_tokens = Table(
    "api_tokens",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("digest", String(64), nullable=False, unique=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), nullable=False, index=True),
    Column("name", String(40), nullable=False),
    Column("created", String(32), nullable=False),
    Column("last_used", String(32)),
    Column("scopes", String(32), nullable=False, server_default="read play"),
)
"""``scopes``: the token's scopes (``accounts.store.SCOPES``), separated by spaces (tokens made before
scopes existed could do everything a program can: they have ``read play``)."""


browser_accounts = Table(
    "browser_accounts",
    metadata,
    Column("browser", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("seen", Float, nullable=False),
)
"""The accounts that signed in on a browser: ``browser`` is the digest of its ``browser`` cookie,
``seen`` the last sign-in (seconds since the epoch). A guest taking a seat from that browser is
refused where one of those accounts would be (a block either way), so that signing out does not
undo a block (``relations.refuse_blocked``)."""


account_addresses = Table(
    "account_addresses",
    metadata,
    Column("address", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("seen", Float, nullable=False),
    Index("ix_account_addresses_account", "account_id"),
)
"""The addresses an account signed up or signed in from (r0021): ``address`` the digest of the
client's address as the server sees it, ``seen`` the last time. Read by moderation only: a
``block_signups`` blocks them, and the queue shows the other accounts seen on them."""
