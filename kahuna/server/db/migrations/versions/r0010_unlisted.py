"""Unlisted games (issue 29): ``games.unlisted`` keeps a game off the live list
(``GET /api/games/live``) and the Watch page.

Games stored before were listed only when the lobby started them (a ``game_accounts`` row): every
other game (by invite link, against the AI, hot-seat) was created when such games were private,
so they stay private: unlisted.

Revision ID: 0010
Revises: 0009 (notifications)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN (SQLite has it): a batch copy of ``games`` would trip the foreign keys
    op.add_column("games", sa.Column("unlisted", sa.Boolean, nullable=False, server_default=sa.false()))
    op.execute("UPDATE games SET unlisted = TRUE WHERE id NOT IN (SELECT game_id FROM game_accounts)")


def downgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.drop_column("unlisted")
