"""Retired puzzles (docs/puzzles.md, *Loading the shipped set*): ``puzzles.retired`` marks a stored
puzzle the shipped set no longer holds; ``next`` never offers it and the daily puzzle is chosen
among the others, while its row, its answers and the accounts' histories stay.

Every puzzle stored before is in the set of the release that stored it: none is retired until an
instance of a release whose set dropped it loads that set.

Revision ID: 0027
Revises: 0026 (puzzles)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # a plain ADD COLUMN (SQLite has it): a batch copy of ``puzzles`` would trip the foreign keys
    op.add_column("puzzles", sa.Column("retired", sa.Boolean, nullable=False, server_default=sa.false()))


def downgrade() -> None:
    # Not a batch copy either: SQLite would refuse to drop the table the answers refer to (a plain
    # ALTER TABLE ... DROP COLUMN, SQLite 3.35 or later, as r0019's downgrade).
    op.drop_column("puzzles", "retired")
