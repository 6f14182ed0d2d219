"""Web Push: the devices an account subscribed for notifications, and the pushes to send to them
(issue 30).

Revision ID: 0011
Revises: 0010 (unlisted)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("endpoint", sa.String(1024), nullable=False, unique=True),
        sa.Column("p256dh", sa.String(100), nullable=False),
        sa.Column("auth", sa.String(40), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_table(
        "push_queue",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("subscription_id", sa.Integer, nullable=False, index=True),
        sa.Column("notice", sa.String(120), nullable=False),
        sa.Column("payload", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Column("due", sa.Float, nullable=False, index=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("claimed_until", sa.Float),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("done", sa.Float),
        sa.UniqueConstraint("subscription_id", "notice", name="uq_push_queue_notice"),
    )


def downgrade() -> None:
    op.drop_table("push_queue")
    op.drop_table("push_subscriptions")
