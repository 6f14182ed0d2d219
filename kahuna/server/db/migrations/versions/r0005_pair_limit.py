"""Rated games between the same two people (issue 27): why a game asked for as rated was started
casual (``pair_limit``: the two had already played their rated games of the last 24 hours against
each other), so that both seats' pages can say so.

Revision ID: 0005
Revises: 0004 (security)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("game_accounts") as batch:
        batch.add_column(sa.Column("casual_reason", sa.String(16)))


def downgrade() -> None:
    with op.batch_alter_table("game_accounts") as batch:
        batch.drop_column("casual_reason")
