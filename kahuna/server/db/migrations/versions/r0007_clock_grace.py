"""The first-move grace: a new real-time game's clock waits for both players, and
``clocks.starts_by`` says when it starts at the latest if one of them does not come.

Clocks stored before have none: they started when both seats were taken, as before.

Revision ID: 0007
Revises: 0006 (tournaments)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("clocks") as batch:
        batch.add_column(sa.Column("starts_by", sa.Float))


def downgrade() -> None:
    with op.batch_alter_table("clocks") as batch:
        batch.drop_column("starts_by")
