"""Follows and blocks between accounts (issue 29), and ``rating_history`` indexed by game (a profile's
statistics read the rating changes of the player's games by game id).

Revision ID: 0012
Revises: 0011 (push)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "follows",
        sa.Column("follower", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("followed", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_follows_followed", "follows", ["followed", "created"])
    op.create_table(
        "blocks",
        sa.Column("blocker", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("blocked", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("created", sa.Float, nullable=False),
    )
    op.create_index("ix_blocks_blocked", "blocks", ["blocked"])
    op.create_index("ix_rating_history_game_id", "rating_history", ["game_id"])


def downgrade() -> None:
    op.drop_index("ix_rating_history_game_id", table_name="rating_history")
    op.drop_index("ix_blocks_blocked", table_name="blocks")
    op.drop_table("blocks")
    op.drop_index("ix_follows_followed", table_name="follows")
    op.drop_table("follows")
