"""Issue 48's roles and moderation log: ``account_roles`` (``moderator``, ``admin``, granted by
``kahuna admin grant``) and ``moderation_log``, every moderation action appended.

Revision ID: 0016
Revises: 0015 (archived_games)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_roles",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("role", sa.String(16), primary_key=True),
        sa.Column("granted", sa.Float, nullable=False),
    )
    op.create_table(
        "moderation_log",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("actor", sa.Integer, sa.ForeignKey("accounts.id")),
        sa.Column("action", sa.String(32), nullable=False),
        sa.Column("target", sa.Integer, sa.ForeignKey("accounts.id")),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("detail", sa.Text, nullable=False),
    )
    op.create_index("ix_moderation_log_target", "moderation_log", ["target"])


def downgrade() -> None:
    op.drop_index("ix_moderation_log_target", "moderation_log")
    op.drop_table("moderation_log")
    op.drop_table("account_roles")
