"""Issue 48's sanctions: ``sanctions``, a moderator's warning or chat mute of an account, undone
by marking it (never deleted).

Revision ID: 0018
Revises: 0017 (reports)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sanctions",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("target", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("moderator", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("report_id", sa.Integer, sa.ForeignKey("reports.id")),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float),
        sa.Column("undone", sa.Float),
        sa.Column("undone_by", sa.Integer, sa.ForeignKey("accounts.id")),
    )
    op.create_index("ix_sanctions_target", "sanctions", ["target", "kind"])


def downgrade() -> None:
    op.drop_index("ix_sanctions_target", "sanctions")
    op.drop_table("sanctions")
