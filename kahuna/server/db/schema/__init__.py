"""Every table of the server's database: the schema that the migrations create.

SQLAlchemy Core tables on one :data:`metadata`, in a module per room that writes them: the games'
records (``games``: the store), ``accounts``, the ``community`` (offers, ratings, tournaments,
follows and blocks), ``fair_play`` (the screening of rated games),
``puzzles`` (the puzzles and their ratings), ``mail`` (mail, notifications,
Web Push) and ``moderation`` (roles, reports, sanctions, the log). A module that reads or writes a
table imports it from here; the migrations in ``db/migrations/versions`` create and change them
(``tests/server/test_migrations.py`` checks that the two agree), so a schema change is a new
revision plus its edit in the room's module.
"""

from __future__ import annotations

from kahuna.server.db.schema.accounts import (
    MAX_USER_AGENT,
    account_addresses,
    accounts,
    api_tokens,
    browser_accounts,
    sessions,
)
from kahuna.server.db.schema.base import metadata
from kahuna.server.db.schema.community import (
    blocks,
    follows,
    game_accounts,
    rating_history,
    ratings,
    seeks,
    tournament_chat,
    tournament_games,
    tournament_players,
    tournaments,
)
from kahuna.server.db.schema.fair_play import fair_play_figures, fair_play_games
from kahuna.server.db.schema.games import (
    actions,
    analyses,
    chat,
    clocks,
    games,
    rematches,
    reshuffles,
    seats,
)
from kahuna.server.db.schema.mail import (
    account_emails,
    mail_queue,
    mail_tokens,
    notices,
    notification_settings,
    push_queue,
    push_subscriptions,
    seat_seen,
)
from kahuna.server.db.schema.moderation import (
    account_roles,
    appeals,
    moderation_log,
    reports,
    sanctions,
    shadow_lines,
    signup_blocks,
)
from kahuna.server.db.schema.puzzles import puzzle_attempts, puzzle_ratings, puzzles

__all__ = [
    "MAX_USER_AGENT",
    "account_addresses",
    "account_emails",
    "account_roles",
    "accounts",
    "actions",
    "analyses",
    "api_tokens",
    "appeals",
    "blocks",
    "browser_accounts",
    "chat",
    "clocks",
    "fair_play_figures",
    "fair_play_games",
    "follows",
    "game_accounts",
    "games",
    "mail_queue",
    "mail_tokens",
    "metadata",
    "moderation_log",
    "notices",
    "notification_settings",
    "push_queue",
    "push_subscriptions",
    "puzzle_attempts",
    "puzzle_ratings",
    "puzzles",
    "rating_history",
    "ratings",
    "rematches",
    "reports",
    "reshuffles",
    "sanctions",
    "seat_seen",
    "seats",
    "seeks",
    "sessions",
    "shadow_lines",
    "signup_blocks",
    "tournament_chat",
    "tournament_games",
    "tournament_players",
    "tournaments",
]
