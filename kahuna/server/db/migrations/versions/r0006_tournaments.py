"""Tournaments: Swiss and Arena events, their players and their boards.

Revision ID: 0006
Revises: 0005 (pair limit)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournaments",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("name", sa.String(64), nullable=False),
        sa.Column("creator", sa.Integer, nullable=False),
        sa.Column("creator_name", sa.String(20), nullable=False),
        sa.Column("clock", sa.Text, nullable=False),
        sa.Column("rounds", sa.Integer),
        sa.Column("minutes", sa.Integer),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("starts_at", sa.Float),
        sa.Column("started", sa.Float),
        sa.Column("ends_at", sa.Float),
        sa.Column("finished", sa.Float),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
    )
    op.create_index("ix_tournaments_status", "tournaments", ["status"])
    op.create_table(
        "tournament_players",
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), primary_key=True),
        sa.Column("account_id", sa.Integer, primary_key=True),
        sa.Column("username", sa.String(20), nullable=False),
        sa.Column("joined", sa.Float, nullable=False),
        sa.Column("active", sa.Boolean, nullable=False),
        sa.Column("berserk", sa.Boolean, nullable=False),
        sa.Column("ai_level", sa.String(16)),
    )
    op.create_table(
        "tournament_games",
        sa.Column("id", sa.String(40), primary_key=True),
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("round", sa.Integer, nullable=False),
        sa.Column("account0", sa.Integer, nullable=False),
        sa.Column("account1", sa.Integer),
        sa.Column("game_id", sa.String(32)),
        sa.Column("berserk0", sa.Boolean, nullable=False),
        sa.Column("berserk1", sa.Boolean, nullable=False),
        sa.Column("paired", sa.Float, nullable=False),
        sa.Column("started", sa.Float),
        sa.Column("result", sa.String(8)),
        sa.Column("ended", sa.Float),
    )
    op.create_index("ix_tournament_games_tournament_id", "tournament_games", ["tournament_id"])
    op.create_index("ix_tournament_games_game_id", "tournament_games", ["game_id"])


def downgrade() -> None:
    op.drop_table("tournament_games")
    op.drop_table("tournament_players")
    op.drop_index("ix_tournaments_status", "tournaments")
    op.drop_table("tournaments")
