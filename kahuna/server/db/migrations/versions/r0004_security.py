"""Accounts and the lobby under attack (issue 27): the scopes of personal API tokens, the browser of
each session (for the list of one's sessions), the address of each lobby offer (the lobby lists a
bounded number of offers per address) and the browser a guest's offer came from (it may not accept
its own offer).

Tokens made before scopes existed could do everything a program can: they get ``read play``.

Revision ID: 0004
Revises: 0003 (lobby)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("api_tokens") as batch:
        batch.add_column(sa.Column("scopes", sa.String(32), nullable=False, server_default="read play"))
    with op.batch_alter_table("sessions") as batch:
        batch.add_column(sa.Column("user_agent", sa.String(200)))
    with op.batch_alter_table("seeks") as batch:
        batch.add_column(sa.Column("owner_address", sa.String(64)))
        batch.add_column(sa.Column("owner_browser", sa.String(64)))


def downgrade() -> None:
    with op.batch_alter_table("seeks") as batch:
        batch.drop_column("owner_browser")
        batch.drop_column("owner_address")
    with op.batch_alter_table("sessions") as batch:
        batch.drop_column("user_agent")
    with op.batch_alter_table("api_tokens") as batch:
        batch.drop_column("scopes")
