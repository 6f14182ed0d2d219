"""The first-move grace (issue 31): a new real-time game's clock waits for both players, and
``clocks.starts_by`` says when it starts at the latest if one of them does not come.

Clocks stored before have none: they started when both seats were taken, as before.

Revision ID: 0006
Revises: 0004 (security)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("clocks") as batch:
        batch.add_column(sa.Column("starts_by", sa.Float))


def downgrade() -> None:
    with op.batch_alter_table("clocks") as batch:
        batch.drop_column("starts_by")
