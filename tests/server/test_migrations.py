"""Schema migrations: one chain of revisions, a fresh database equal to the tables the code uses,
a database written by the release before migrations upgraded in place with nothing lost, and the
open reports of the accounts the server runs closed on upgrade (0028)."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from server_harness import Server
from sqlalchemy import create_engine, insert, inspect, select

from kahuna.server.accounts.store import account_by_name, ensure_bot_account, insert_account
from kahuna.server.community.bots import make_bot, run_by_server
from kahuna.server.db import migrations, schema, store
from kahuna.server.games.live import rebuild
from kahuna.server.moderation import log
from kahuna.server.moderation.reports import open_reports, reports_by

BEFORE = Path(__file__).parent / "data" / "before-migrations.db"
"""A database written by ``kahuna serve`` at de3b051 (the last release without migrations): 10
games (4 played to the end by ``kahuna bench server``, one against the AI, one timed with both
seats taken), 716 actions."""


def _table_counts(path: Path) -> dict[str, int]:
    with sqlite3.connect(path) as conn:
        names = [row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        return {name: conn.execute(f'SELECT count(*) FROM "{name}"').fetchone()[0] for name in names}


def test_the_revisions_form_one_chain() -> None:
    assert len(migrations.heads()) == 1


def test_a_fresh_database_has_exactly_the_schema_of_the_code(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'fresh.db'}")
    with engine.connect() as conn:
        assert migrations.current(conn) == migrations.heads()[0]
        differences = compare_metadata(MigrationContext.configure(conn), schema.metadata)
    engine.dispose()
    assert differences == []


def test_opening_a_migrated_database_again_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "again.db"
    store.open_engine(f"sqlite:///{path}").dispose()
    before = path.read_bytes()
    store.open_engine(f"sqlite:///{path}").dispose()
    assert path.read_bytes() == before


def test_a_database_from_before_migrations_is_upgraded_in_place(tmp_path: Path) -> None:
    copy = tmp_path / "kahuna.db"
    shutil.copy(BEFORE, copy)
    counts = _table_counts(copy)
    assert "alembic_version" not in counts and counts["actions"] == 716

    engine = store.open_engine(f"sqlite:///{copy}")
    with engine.connect() as conn:
        assert migrations.current(conn) == migrations.heads()[0]
        assert compare_metadata(MigrationContext.configure(conn), schema.metadata) == []
        game_ids = [row[0] for row in conn.exec_driver_sql("SELECT id FROM games")]
        # made when every game by link was private (none from the lobby): they stay off the live list
        assert [row[0] for row in conn.exec_driver_sql("SELECT unlisted FROM games")] == [1] * len(game_ids)
        for game_id in game_ids:
            stored = store.load_game(conn, game_id)
            assert stored is not None
            live = rebuild(stored)
            assert live.version == len(stored.actions)
    engine.dispose()
    after = _table_counts(copy)
    assert {name: after[name] for name in counts} == counts


@pytest.mark.slow
def test_the_server_resumes_the_games_of_an_upgraded_database(tmp_path: Path) -> None:
    shutil.copy(BEFORE, tmp_path / "kahuna.db")
    with sqlite3.connect(tmp_path / "kahuna.db") as conn:
        finished = conn.execute("SELECT id FROM games WHERE status = 'over'").fetchone()[0]
        expected = conn.execute("SELECT count(*) FROM actions WHERE game_id = ?", (finished,)).fetchone()[0]
        unfinished = conn.execute("SELECT count(*) FROM games WHERE status != 'over'").fetchone()[0]
    server = Server(tmp_path).start()
    try:
        record = server.get(f"/api/games/{finished}/record").json()
        assert len(record["actions"]) == expected
        started = [json.loads(line) for line in server.log().splitlines() if '"started"' in line]
        assert started[0]["resumed_games"] == unfinished > 0
        created = server.create(opponent="ai", level="easy")
        assert server.get(f"/api/games/{created['game_id']}").status_code == 200
    finally:
        server.stop()
    engine = create_engine(f"sqlite:///{tmp_path / 'kahuna.db'}")
    assert "alembic_version" in inspect(engine).get_table_names()
    engine.dispose()


def test_migration_0028_closes_the_open_reports_of_the_accounts_the_server_runs(tmp_path: Path) -> None:
    check_reports_of_server_accounts(f"sqlite:///{tmp_path / 'reports.db'}")


CLOSED_ON_UPGRADE = "closed on upgrade: the account is run by the server, nobody to act on a report of it"


def check_reports_of_server_accounts(url: str) -> None:
    """A database at 0027 holding what the release before let players file: open reports of the
    site's own account and of an AI level's, of a person and of an online bot (a person's account
    made a bot), and a closed one of the AI level. Going up to 0028 closes the first two alone, each
    with a ``close_report`` entry in the log (no account its actor, the reason, the report and the
    revision), as ``run_by_server`` decides; the others stay as they were. ``test_pg_migrations.py``
    runs it on PostgreSQL."""
    engine = store.open_engine(url)
    with engine.begin() as conn:
        command.downgrade(migrations.config(conn), "0027")
    with engine.begin() as conn:
        reporter, other = (insert_account(conn, name, None) for name in ("reporter", "other"))
        person = insert_account(conn, "alice", None)
        robot = insert_account(conn, "robo", None)
        assert reporter and other and person and robot and make_bot(conn, robot.id)
        targets = {
            "kahuna": ensure_bot_account(conn, "kahuna").id,
            "ai-easy": ensure_bot_account(conn, "ai-easy").id,
            "alice": person.id,
            "robo": robot.id,
        }

        def filed(by: int, target: int, status: str) -> int:
            row = {"reporter": by, "target": target, "reason": "other", "note": "", "context": "{}"}
            made = insert(schema.reports).values(**row, status=status, created=1.0).returning(schema.reports.c.id)
            return int(conn.execute(made).scalar_one())

        old = filed(other.id, targets["ai-easy"], "closed")
        ids = {name: filed(reporter.id, target, "open") for name, target in targets.items()}
        logged = len(log.entries(conn))
        assert [r["username"] for r in open_reports(conn)] == list(targets)
    with engine.begin() as conn:
        command.upgrade(migrations.config(conn), "head")
    with engine.connect() as conn:
        assert migrations.current(conn) == "0028" == migrations.heads()[0]
        status = {row.id: row.status for row in conn.execute(select(schema.reports.c.id, schema.reports.c.status))}
        assert status == {
            old: "closed",
            ids["kahuna"]: "closed",
            ids["ai-easy"]: "closed",
            ids["alice"]: "open",
            ids["robo"]: "open",
        }
        # run_by_server is what decides: the migration's SQL closed the reports of its accounts alone
        for name, report_id in ids.items():
            account = account_by_name(conn, name)
            assert account is not None and run_by_server(account) == (status[report_id] == "closed")
        assert [r["username"] for r in open_reports(conn)] == ["alice", "robo"]
        assert {r["username"]: r["status"] for r in reports_by(conn, reporter.id)} == {
            "kahuna": "closed",
            "ai-easy": "closed",
            "alice": "open",
            "robo": "open",
        }
        entries = log.entries(conn)
        assert len(entries) == logged + 2
        assert [{k: e[k] for k in ("actor", "action", "target", "reason", "detail")} for e in entries[:2]] == [
            {
                "actor": None,
                "action": "close_report",
                "target": name,
                "reason": CLOSED_ON_UPGRADE,
                "detail": {"migration": "0028", "report_id": ids[name]},
            }
            for name in ("ai-easy", "kahuna")  # the newest first: kahuna's report was filed first
        ]
    engine.dispose()
