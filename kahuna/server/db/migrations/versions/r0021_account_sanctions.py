"""Issue 48's account sanctions (docs/moderation.md, *Account sanctions*):

- ``rating_history.kind``: ``game`` (a rated game's change, every row before) or ``refund`` (the
  points a marked account took from this player in that game, given back: ``game_id`` names the
  game refunded);
- ``account_addresses``: the addresses (their digests) an account signed up or signed in from, so
  that ``block_signups`` knows them and the queue shows the accounts seen on the same address;
- ``signup_blocks``: the browsers and addresses (digests) a ``block_signups`` sanction blocks, until
  ``expires`` or the sanction's undo.

Revision ID: 0021
Revises: 0020 (appeals)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.add_column("rating_history", sa.Column("kind", sa.String(16), nullable=False, server_default="game"))
    op.create_table(
        "account_addresses",
        sa.Column("address", sa.String(64), primary_key=True),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("seen", sa.Float, nullable=False),
    )
    op.create_index("ix_account_addresses_account", "account_addresses", ["account_id"])
    op.create_table(
        "signup_blocks",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("sanction_id", sa.Integer, sa.ForeignKey("sanctions.id"), nullable=False, index=True),
        sa.Column("what", sa.String(16), nullable=False),
        sa.Column("digest", sa.String(64), nullable=False, index=True),
        sa.Column("expires", sa.Float, nullable=False),
    )


def downgrade() -> None:
    op.drop_table("signup_blocks")
    op.drop_index("ix_account_addresses_account", "account_addresses")
    op.drop_table("account_addresses")
    with op.batch_alter_table("rating_history") as batch:
        batch.drop_column("kind")
