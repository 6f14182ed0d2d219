"""Issue 52's puzzles (docs/puzzles.md): ``puzzles`` holds the shipped set and each puzzle's rating,
``puzzle_ratings`` the accounts' puzzle ratings, ``puzzle_attempts`` each account's counted answer.

Revision ID: 0026
Revises: 0025 (fair play)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0026"
down_revision = "0025"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "puzzles",
        sa.Column("id", sa.String(16), primary_key=True),
        sa.Column("document", sa.Text, nullable=False),
        sa.Column("themes", sa.String(200), nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("plays", sa.Integer, nullable=False, server_default="0"),
        sa.Column("solved", sa.Integer, nullable=False, server_default="0"),
    )
    op.create_index("ix_puzzles_rating", "puzzles", ["rating"])
    op.create_table(
        "puzzle_ratings",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("deviation", sa.Float, nullable=False),
        sa.Column("volatility", sa.Float, nullable=False),
        sa.Column("attempts", sa.Integer, nullable=False),
    )
    op.create_table(
        "puzzle_attempts",
        sa.Column("puzzle_id", sa.String(16), sa.ForeignKey("puzzles.id"), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("correct", sa.Boolean, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("before", sa.Float, nullable=False),
        sa.Column("after", sa.Float, nullable=False),
    )
    op.create_index("ix_puzzle_attempts_account", "puzzle_attempts", ["account_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_puzzle_attempts_account", "puzzle_attempts")
    op.drop_table("puzzle_attempts")
    op.drop_table("puzzle_ratings")
    op.drop_index("ix_puzzles_rating", "puzzles")
    op.drop_table("puzzles")
