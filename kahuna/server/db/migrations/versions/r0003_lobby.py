"""The lobby: seeks, quick-pairing entries and challenges; the accounts of lobby games; ratings and
their history (the tables as they are now: kahuna/server/db/schema/).

Revision ID: 0003
Revises: 0002 (accounts)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seeks",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("owner_account", sa.Integer),
        sa.Column("owner_name", sa.String(64), nullable=False),
        sa.Column("owner_client", sa.String(64), nullable=False),
        sa.Column("target_account", sa.Integer),
        sa.Column("clock", sa.Text),
        sa.Column("variant", sa.Text, nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("rating", sa.Integer),
        sa.Column("token", sa.String(64), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("alive_until", sa.Float, nullable=False),
        sa.Column("game_id", sa.String(32)),
        sa.Column("seat", sa.Integer),
    )
    op.create_index("ix_seeks_status", "seeks", ["status"])
    op.create_index("ix_seeks_target_account", "seeks", ["target_account"])
    op.create_table(
        "game_accounts",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("account0", sa.Integer),
        sa.Column("account1", sa.Integer),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("pool", sa.String(16)),
        sa.Column("rated_at", sa.String(32)),
    )
    op.create_index("ix_game_accounts_account0", "game_accounts", ["account0"])
    op.create_index("ix_game_accounts_account1", "game_accounts", ["account1"])
    op.create_table(
        "ratings",
        sa.Column("account_id", sa.Integer, primary_key=True),
        sa.Column("pool", sa.String(16), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("games", sa.Integer, nullable=False),
    )
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("pool", sa.String(16), nullable=False),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_index("ix_rating_history_account_id", "rating_history", ["account_id"])


def downgrade() -> None:
    op.drop_table("rating_history")
    op.drop_table("ratings")
    op.drop_table("game_accounts")
    op.drop_table("seeks")
