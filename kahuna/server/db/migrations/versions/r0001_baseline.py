"""The schema before migrations existed: the game record, clocks, chat, rematches and analyses.

Revision ID: 0001
Revises: none
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("created", sa.String(32), nullable=False),
        sa.Column("updated", sa.String(32), nullable=False),
        sa.Column("variant", sa.Text, nullable=False),
        sa.Column("deal", sa.String(24), nullable=False),
        sa.Column("kind0", sa.String(32), nullable=False),
        sa.Column("kind1", sa.String(32), nullable=False),
        sa.Column("name0", sa.String(64)),
        sa.Column("name1", sa.String(64)),
        sa.Column("invite", sa.String(64)),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("result", sa.Text),
    )
    op.create_index("ix_games_invite", "games", ["invite"])
    op.create_index("ix_games_status", "games", ["status"])
    op.create_table(
        "seats",
        sa.Column("token", sa.String(64), primary_key=True),
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
    )
    op.create_table(
        "actions",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("token", sa.String(16), nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_table(
        "reshuffles",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("idx", sa.Integer, primary_key=True),
        sa.Column("cards", sa.String(24), nullable=False),
    )
    op.create_table(
        "clocks",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("control", sa.Text, nullable=False),
        sa.Column("remaining0", sa.Float, nullable=False),
        sa.Column("remaining1", sa.Float, nullable=False),
        sa.Column("running", sa.Integer),
        sa.Column("since", sa.Float),
    )
    op.create_table(
        "chat",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("seq", sa.Integer, primary_key=True),
        sa.Column("room", sa.String(16), nullable=False),
        sa.Column("seat", sa.Integer),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )
    op.create_table(
        "rematches",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("new_game_id", sa.String(32), sa.ForeignKey("games.id"), nullable=False, unique=True),
    )
    op.create_table(
        "analyses",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("result", sa.Text, nullable=False),
        sa.Column("at", sa.String(32), nullable=False),
    )


def downgrade() -> None:
    for table in ("analyses", "rematches", "chat", "clocks", "reshuffles", "actions", "seats", "games"):
        op.drop_table(table)
