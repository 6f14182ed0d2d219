"""E-mail: an account's address (verified or pending), the single-use tokens of mailed links and
the mail queue (issue 30).

Revision ID: 0008
Revises: 0007 (clock grace)
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "account_emails",
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), primary_key=True),
        sa.Column("email", sa.String(254)),
        sa.Column("email_key", sa.String(254), index=True),
        sa.Column("pending", sa.String(254)),
        sa.Column("lang", sa.String(8)),
    )
    op.create_table(
        "mail_tokens",
        sa.Column("digest", sa.String(64), primary_key=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("account_id", sa.Integer, sa.ForeignKey("accounts.id"), nullable=False, index=True),
        sa.Column("email", sa.String(254), nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Column("used", sa.Float),
    )
    op.create_table(
        "mail_queue",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("account_id", sa.Integer, index=True),
        sa.Column("recipient", sa.String(254), nullable=False),
        sa.Column("lang", sa.String(8), nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("body", sa.Text),
        sa.Column("message_id", sa.String(200), nullable=False),
        sa.Column("created", sa.Float, nullable=False),
        sa.Column("expires", sa.Float, nullable=False),
        sa.Column("due", sa.Float, nullable=False, index=True),
        sa.Column("attempts", sa.Integer, nullable=False),
        sa.Column("claimed_until", sa.Float),
        sa.Column("status", sa.String(16), nullable=False, index=True),
        sa.Column("done", sa.Float),
        sa.Column("error", sa.String(200)),
    )


def downgrade() -> None:
    op.drop_table("mail_queue")
    op.drop_table("mail_tokens")
    op.drop_table("account_emails")
