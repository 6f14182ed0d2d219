"""Issue 49's fair play (docs/fair-play.md): ``fair_play_games`` holds the rated games between
people to screen and their claims, ``fair_play_figures`` each player's figures in a screened game.

Revision ID: 0025
Revises: 0024 (smaller seats and rating history)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fair_play_games",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("queued", sa.Float, nullable=False),
        sa.Column("claimed_by", sa.String(64)),
        sa.Column("claimed_until", sa.Float),
        sa.Column("attempts", sa.Integer, nullable=False, server_default="0"),
        sa.Column("screened", sa.Float),
    )
    op.create_index("ix_fair_play_games_status", "fair_play_games", ["status", "queued"])
    op.create_table(
        "fair_play_figures",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("figures", sa.Text, nullable=False),
        sa.Column("suspicion", sa.Float, nullable=False),
    )
    op.create_index("ix_fair_play_figures_account", "fair_play_figures", ["account_id", "at"])


def downgrade() -> None:
    op.drop_index("ix_fair_play_figures_account", "fair_play_figures")
    op.drop_table("fair_play_figures")
    op.drop_index("ix_fair_play_games_status", "fair_play_games")
    op.drop_table("fair_play_games")
