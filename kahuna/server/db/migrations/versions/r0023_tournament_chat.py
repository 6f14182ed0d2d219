"""Issue 51's event chat (docs/community.md, *Tournaments*): ``tournament_chat`` holds the lines
an event's entrants write on its page (``shadow``: the shadow mute a line was written under).

Revision ID: 0023
Revises: 0022 (chat sanctions)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0023"
down_revision = "0022"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "tournament_chat",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("tournament_id", sa.String(32), sa.ForeignKey("tournaments.id"), nullable=False),
        sa.Column("account_id", sa.Integer, nullable=False),
        sa.Column("username", sa.String(20), nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("at", sa.Float, nullable=False),
        sa.Column("shadow", sa.Integer),
    )
    op.create_index("ix_tournament_chat_event", "tournament_chat", ["tournament_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_tournament_chat_event", "tournament_chat")
    op.drop_table("tournament_chat")
