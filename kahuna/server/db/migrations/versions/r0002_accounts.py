"""Accounts, their sessions and personal API tokens, and the account a seat belongs to.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "accounts",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("username", sa.String(20), nullable=False),
        sa.Column("username_key", sa.String(20), nullable=False, unique=True),
        sa.Column("password", sa.String(200)),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("deleted", sa.String(32)),
        sa.Column("is_bot", sa.Boolean, nullable=False),
    )
    op.create_table(
        "sessions",
        sa.Column("id", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
    )
    op.create_index("ix_sessions_account_id", "sessions", ["account_id"])
    op.create_table(
        "api_tokens",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("digest", sa.String(64), nullable=False, unique=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("name", sa.String(40), nullable=False),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("last_used", sa.String(32)),
    )
    op.create_index("ix_api_tokens_account_id", "api_tokens", ["account_id"])
    with op.batch_alter_table("seats") as batch:
        batch.add_column(sa.Column("account_id", sa.Integer))
        batch.create_index("ix_seats_account_id", ["account_id"])


def downgrade() -> None:
    with op.batch_alter_table("seats") as batch:
        batch.drop_index("ix_seats_account_id")
        batch.drop_column("account_id")
    op.drop_table("api_tokens")
    op.drop_table("sessions")
    op.drop_table("accounts")
