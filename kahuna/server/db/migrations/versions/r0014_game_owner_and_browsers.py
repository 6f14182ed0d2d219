"""Two things issue 45 left open:

- ``games.owner``: whose turn a game's AI moves take in the AI pool (the digest of the creating
  address, a tournament's creator). It lived in memory only, so a game rebuilt after a restart
  counted against itself: a tournament of AI boards was no longer its creator's. Games made before
  have none (``NULL``) and stay their own owner.
- ``browser_accounts``: the accounts that signed in on a browser (the digest of its ``browser``
  cookie). A guest accepting an offer is recognised by it: a player blocked by the offer's owner,
  signed out on the browser it signed in on, cannot take the seat.

Revision ID: 0014
Revises: 0013 (tournament_address)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("games", sa.Column("owner", sa.String(80)))
    op.create_table(
        "browser_accounts",
        sa.Column("browser", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("seen", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("browser_accounts")
    with op.batch_alter_table("games") as batch:
        batch.drop_column("owner")
