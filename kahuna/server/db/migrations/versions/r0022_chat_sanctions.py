"""Issue 48's chat sanctions (docs/moderation.md, *Sanctions*): a ``hide_line`` names its line
(``sanctions.game_id``, ``line_id``), a ``rename`` the name it replaced and the neutral one it gave
(``old_name``, ``new_name``); ``shadow_lines`` holds the lines written under a ``shadow_mute``.

Revision ID: 0022
Revises: 0021 (account sanctions)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0022"
down_revision = "0021"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("sanctions", sa.Column("game_id", sa.String(32)))
    op.add_column("sanctions", sa.Column("line_id", sa.Integer))
    op.add_column("sanctions", sa.Column("old_name", sa.String(20)))
    op.add_column("sanctions", sa.Column("new_name", sa.String(20)))
    op.create_index("ix_sanctions_game", "sanctions", ["game_id"])
    op.create_table(
        "shadow_lines",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("line_id", sa.Integer, primary_key=True),
        sa.Column("sanction_id", sa.Integer, sa.ForeignKey("sanctions.id"), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("shadow_lines")
    op.drop_index("ix_sanctions_game", "sanctions")
    with op.batch_alter_table("sanctions") as batch:
        for name in ("new_name", "old_name", "line_id", "game_id"):
            batch.drop_column(name)
