"""Moderation (docs/moderation.md): the accounts' roles, players' reports, moderators' sanctions
and the append-only moderation log."""

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
    text,
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
epoch. Written by ``kahuna admin grant`` and ``revoke``, and by an admin (``moderator`` only) from the web."""


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


reports = Table(
    "reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("reporter", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("target", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("reason", String(24), nullable=False),
    Column("note", Text, nullable=False),
    Column("game_id", String(32)),
    Column("line_id", Integer),
    Column("context", Text, nullable=False),
    Column("status", String(16), nullable=False),
    Column("created", Float, nullable=False),
    Index(
        "ux_reports_open",
        "reporter",
        "target",
        unique=True,
        sqlite_where=text("status = 'open'"),
        postgresql_where=text("status = 'open'"),
    ),
    Index("ix_reports_status", "status", "created"),
    Index("ix_reports_target", "target"),
)
"""A player's report of another (``moderation.reports``): ``reason`` one of ``reports.Reason``,
``note`` at most 500 characters, about a game (``game_id``) or one of its chat lines (``line_id``),
with what a moderator needs to judge it copied in ``context`` (JSON: the line and the lines around
it), since a game's rows may be archived or deleted later. ``status``: ``open``, ``acted_on`` (a
sanction named it), ``closed``. One open report per reporter and target (``ux_reports_open``);
``game_id`` is no foreign key: a guest's game may be deleted, the report stays."""


sanctions = Table(
    "sanctions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("target", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("kind", String(24), nullable=False),
    Column("reason", Text, nullable=False),
    Column("moderator", Integer, ForeignKey("accounts.id"), nullable=False),
    Column("report_id", Integer, ForeignKey("reports.id")),
    Column("created", Float, nullable=False),
    Column("expires", Float),
    Column("undone", Float),
    Column("undone_by", Integer, ForeignKey("accounts.id")),
    Column("seen", Float),
    Column("game_id", String(32)),
    Column("line_id", Integer),
    Column("old_name", String(20)),
    Column("new_name", String(20)),
    Index("ix_sanctions_target", "target", "kind"),
    Index("ix_sanctions_game", "game_id"),
)
"""A moderator's sanction of an account (``moderation.sanctions``): ``kind`` ``warn`` or
``chat_mute`` (until ``expires``, seconds since the epoch), why, who, on which report if any;
``undone``/``undone_by`` once undone (a sanction is never deleted: the log tells its story);
``seen`` once the player acknowledged its notice (``moderation.appeals``). A ``hide_line`` names
its line (``game_id``, ``line_id``); a ``rename`` the name it replaced (``old_name``) and the neutral
one it gave (``new_name``: the player must choose a name while it bears that one;
``moderation.chat_sanctions``)."""


shadow_lines = Table(
    "shadow_lines",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("line_id", Integer, primary_key=True),
    Column("sanction_id", Integer, ForeignKey("sanctions.id"), nullable=False),
)
"""The chat lines written under a ``shadow_mute`` (``sanction_id``): shown to their author only,
for good (undoing the mute ends it for the lines after). ``game_id`` is no foreign key, as
``reports.game_id``; the rows outlive the game's archiving (the archive holds the chat lines only)."""


appeals = Table(
    "appeals",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("sanction_id", Integer, ForeignKey("sanctions.id"), nullable=False, unique=True),
    Column("note", Text, nullable=False),
    Column("created", Float, nullable=False),
    Column("decision", String(16)),
    Column("decided", Float),
    Column("decided_by", Integer, ForeignKey("accounts.id")),
    Column("decision_reason", Text),
)
"""A player's appeal of a sanction on its account (``moderation.appeals``), one per sanction (the
unique ``sanction_id``): its ``note`` (at most 500 characters), and once a moderator decided it
``decision`` (``upheld`` or ``overturned``), when, by whom and why."""


signup_blocks = Table(
    "signup_blocks",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("sanction_id", Integer, ForeignKey("sanctions.id"), nullable=False, index=True),
    Column("what", String(16), nullable=False),
    Column("digest", String(64), nullable=False, index=True),
    Column("expires", Float, nullable=False),
)
"""A browser or address a ``block_signups`` sanction blocks (r0021): ``what`` is ``browser`` (the
digest of its ``browser`` cookie) or ``address`` (the digest of the address), until ``expires``
(seconds since the epoch) unless the sanction is undone."""
