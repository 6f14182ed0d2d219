"""Moderation (docs/moderation.md): the accounts' roles and the append-only moderation log."""

from __future__ import annotations

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Table,
    Text,
)

from kahuna.server.db.schema.base import metadata

account_roles = Table(
    "account_roles",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id"), primary_key=True),
    Column("role", String(16), primary_key=True),
    Column("granted", Float, nullable=False),
)
"""An account's roles (``moderation.roles.ROLES``: ``moderator``, ``admin``), read on every request
that needs one, so that a revoke holds at once on every instance; ``granted`` in seconds since the
epoch. Only ``kahuna admin grant`` writes them."""


moderation_log = Table(
    "moderation_log",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("actor", Integer, ForeignKey("accounts.id")),
    Column("action", String(32), nullable=False),
    Column("target", Integer, ForeignKey("accounts.id")),
    Column("reason", Text, nullable=False),
    Column("detail", Text, nullable=False),
    Index("ix_moderation_log_target", "target"),
)
"""Every moderation action, appended and never changed: who (``actor``; ``None``: the command line,
``kahuna admin``) did what (``action``) to whom (``target``), when (``at``, seconds since the
epoch), why (``reason``), and its particulars as a JSON object (``detail``)."""
