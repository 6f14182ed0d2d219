"""Notifications (issue 30): each account's notification settings, the notices sent once (their
dedupe key), when each seat of a game was last seen connected, and the one-click unsubscribe header
of a queued mail.

Revision ID: 0009
Revises: 0008 (mail)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "notification_settings",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("off", sa.String(400), nullable=False),
        sa.Column("secret", sa.String(64)),
    )
    op.create_table(
        "notices",
        sa.Column("kind", sa.String(16), primary_key=True),
        sa.Column("subject", sa.String(40), primary_key=True),
        sa.Column("step", sa.Integer, primary_key=True),
        sa.Column("account_id", sa.Integer, primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("at", sa.Float, nullable=False, index=True),
    )
    op.create_table(
        "seat_seen",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("seen", sa.Float, nullable=False),
    )
    with op.batch_alter_table("mail_queue") as batch:
        batch.add_column(sa.Column("list_unsubscribe", sa.String(400)))


def downgrade() -> None:
    with op.batch_alter_table("mail_queue") as batch:
        batch.drop_column("list_unsubscribe")
    op.drop_table("seat_seen")
    op.drop_table("notices")
    op.drop_table("notification_settings")
