"""Issue 48's reports: ``reports``, a player's report of another with its context, one open
report per reporter and target (a partial unique index, on SQLite and PostgreSQL alike).

Revision ID: 0017
Revises: 0016 (roles)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("reporter", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("target", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False),
        sa.Column("reason", sa.String(24), nullable=False),
        sa.Column("note", sa.Text, nullable=False),
        sa.Column("game_id", sa.String(32)),
        sa.Column("line_id", sa.Integer),
        sa.Column("context", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
    )
    open_only = sa.text("status = 'open'")
    op.create_index(
        "ux_reports_open",
        "reports",
        ["reporter", "target"],
        unique=True,
        sqlite_where=open_only,
        postgresql_where=open_only,
    )
    op.create_index("ix_reports_status", "reports", ["status", "created"])
    op.create_index("ix_reports_target", "reports", ["target"])


def downgrade() -> None:
    for index in ("ix_reports_target", "ix_reports_status", "ux_reports_open"):
        op.drop_index(index, "reports")
    op.drop_table("reports")
