"""Issue 48's notices and appeals: ``sanctions.seen`` (the player acknowledged the sanction's
notice) and ``appeals``, a player's appeal of a sanction and a moderator's decision on it.

Revision ID: 0020
Revises: 0019 (smaller finished games)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0020"
down_revision = "0019"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sanctions", sa.Column("seen", sa.Float))
    op.create_table(
        "appeals",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("sanction_id", sa.Integer, sa.ForeignKey("sanctions.id"), nullable=False, unique=True),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("decision", sa.String(16)),
        sa.Column("decided", sa.Float),
        sa.Column("decided_by", sa.Integer, sa.ForeignKey("accounts.id")),
        sa.Column("decision_reason", sa.Text),
    )


def downgrade() -> None:
    op.drop_table("appeals")
    with op.batch_alter_table("sanctions") as batch:
        batch.drop_column("seen")
