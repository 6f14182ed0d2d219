"""The address a tournament was created from (issue 45): upcoming events are bounded per address
(``Limits.upcoming_tournaments_per_address``) as well as per creator, so that a few addresses with
many accounts cannot fill the listed upcoming events. Events created before have none (``NULL``)
and count against no address.

Revision ID: 0013
Revises: 0012 (follows)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("tournaments", sa.Column("creator_address", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("tournaments") as batch:
        batch.drop_column("creator_address")
