"""The open reports of the accounts the server runs are closed (docs/moderation.md, *Reports*).

Nobody can report the site's own account (``kahuna``) or an AI level's (``ai-easy`` …) any more
(``422 server_account``), but a report of one filed under a release before stays open: nobody is
behind the account to warn, mute or close, so it would wait in the moderators' queue for good.
Each such report is closed as a moderator's "close with no sanction" closes one
(``moderation/reports.py``, ``close_report``: the status ``closed`` and a ``close_report`` entry in
the moderation log), the entry's actor no account (as ``kahuna admin``'s: whoever runs the server
upgraded it), its reason :data:`REASON` and its detail the report and this revision. A report
closed or acted on already stays as it was, and so does every report of a person's account and of
an online bot (``kahuna bot``: a person's account turned into a program, reportable as before).

Which accounts the server runs is decided by ``community/bots.py``, ``run_by_server``. A migration
does not import the server's code (it must do the same thing under the code of any later release),
so :data:`RUN_BY_SERVER` is that test as this release has it, in SQL: a bot account whose stored
``username_key`` is ``username_key("kahuna")`` (the key is stored when the account is made), or
whose name starts with ``ai-`` (``LEVEL_PREFIX``, case by case as ``str.startswith`` compares, so
not with ``LIKE``, which ignores case on SQLite).

The code before reads a ``closed`` report as its own (``GET /api/me/reports`` shows the reporter
``closed``; the queue no longer lists it). An instance of the release before, still running during
the upgrade, accepts a new report of those accounts until it is replaced: such a report stays open,
for a moderator to close. Going back to 0027 leaves the reports closed and the log as it is (the
log is never changed).

Revision ID: 0028
Revises: 0027 (retired puzzles)
"""

from __future__ import annotations

import json
import time

import sqlalchemy as sa
from alembic import op

revision = "0028"
down_revision = "0027"
branch_labels = None
depends_on = None

REASON = "closed on upgrade: the account is run by the server, nobody to act on a report of it"
"""The log's reason for each report closed (what a moderator reads in ``/mod``'s log)."""

SITE_KEY = "kahuna"
"""``username_key(SITE_ACCOUNT)`` (``accounts/passwords.py``): the stored key of the site's account."""
LEVEL_PREFIX = "ai-"
"""``accounts/passwords.py``'s ``LEVEL_PREFIX``: the AI levels' accounts are ``ai-<level>``."""

accounts = sa.table(
    "accounts",
    sa.column("id", sa.Integer),
    sa.column("username", sa.String),
    sa.column("username_key", sa.String),
    sa.column("is_bot", sa.Boolean),
)
reports = sa.table(
    "reports", sa.column("id", sa.Integer), sa.column("target", sa.Integer), sa.column("status", sa.String)
)
moderation_log = sa.table(
    "moderation_log",
    sa.column("at", sa.Float),
    sa.column("actor", sa.Integer),
    sa.column("action", sa.String),
    sa.column("target", sa.Integer),
    sa.column("reason", sa.Text),
    sa.column("detail", sa.Text),
)

RUN_BY_SERVER = sa.and_(
    accounts.c.is_bot,
    sa.or_(
        accounts.c.username_key == SITE_KEY,
        sa.func.substr(accounts.c.username, 1, len(LEVEL_PREFIX)) == LEVEL_PREFIX,
    ),
)
"""``community/bots.py``'s ``run_by_server`` of an ``accounts`` row, in SQL."""


def upgrade() -> None:
    conn = op.get_bind()
    server_run = sa.select(accounts.c.id).where(RUN_BY_SERVER)
    # UPDATE ... RETURNING (SQLite 3.35 or later, as reports.py's inserts): only the reports closed
    # here are logged, not one a moderator on an instance of the release before closed meanwhile.
    closed = conn.execute(
        sa.update(reports)
        .where(reports.c.status == "open", reports.c.target.in_(server_run))
        .values(status="closed")
        .returning(reports.c.id, reports.c.target)
    ).all()
    at = time.time()
    entries = [
        {
            "at": at,
            "actor": None,
            "action": "close_report",
            "target": target,
            "reason": REASON,
            "detail": json.dumps({"migration": revision, "report_id": report_id}, sort_keys=True),
        }
        for report_id, target in sorted(closed)
    ]
    if entries:
        conn.execute(moderation_log.insert(), entries)


def downgrade() -> None:
    """Nothing: the reports stay closed (the code before reads them), the log keeps its entries."""
