"""Issue 50's archive of finished games: ``archived_games``, one compressed record per old finished
game, which replaces its rows in ``actions``, ``reshuffles``, ``clocks`` and ``chat``
(``db/archive.py``).

Only a table is added: no row is rewritten here. Games are archived later, in small batches, by
the server's periodic pass or ``kahuna admin archive``, so upgrading a large database is as quick
as upgrading an empty one and never holds a lock on the games being played.

Revision ID: 0015
Revises: 0014 (game_owner_and_browsers)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "archived_games",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id"), primary_key=True),
        sa.Column("archived", sa.String(32), nullable=False),
        sa.Column("record", sa.LargeBinary, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("archived_games")
