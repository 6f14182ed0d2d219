"""``kahuna admin grant`` and ``revoke`` (issue 48) on a real SQLite database: a role given and
taken back, each logged; an unknown account, a role already held or not held, an unknown role are
refused with a clear message and change nothing."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import inspect, select

from kahuna.cli import main
from kahuna.server.accounts import store as accounts_store
from kahuna.server.admin.command import ROLE_NAMES
from kahuna.server.db import migrations, schema
from kahuna.server.db.store import open_engine
from kahuna.server.moderation import log, roles


@pytest.fixture
def db(tmp_path: Path) -> str:
    url = f"sqlite:///{tmp_path / 'kahuna.db'}"
    engine = open_engine(url)
    with engine.begin() as conn:
        for name in ("alice", "bob"):
            accounts_store.insert_account(conn, name, "hash")
    engine.dispose()
    return url


def admin(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["admin", *args])
    out, err = capsys.readouterr()
    return code, out, err


def held(db: str) -> list[tuple[str, str]]:
    engine = open_engine(db)
    with engine.connect() as conn:
        rows = conn.execute(
            select(schema.accounts.c.username, schema.account_roles.c.role)
            .join(schema.account_roles, schema.account_roles.c.account_id == schema.accounts.c.id)
            .order_by(schema.accounts.c.username, schema.account_roles.c.role)
        )
        found = [(row.username, row.role) for row in rows]
    engine.dispose()
    return found


def logged(db: str) -> list[tuple[str | None, str, str | None, object]]:
    engine = open_engine(db)
    with engine.connect() as conn:
        found = [(e["actor"], e["action"], e["target"], e["detail"]) for e in log.entries(conn)]
    engine.dispose()
    return found


def test_the_parser_names_the_roles_of_the_server() -> None:
    assert ROLE_NAMES == roles.ROLES


def test_a_role_is_granted_and_revoked_and_both_are_logged(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert admin(capsys, "grant", "ALICE", "moderator", "--db", db) == (
        0,
        "kahuna admin grant: 'alice' is moderator now\n",
        "",
    )
    assert admin(capsys, "grant", "bob", "admin", "--db", db)[0] == 0
    assert held(db) == [("alice", "moderator"), ("bob", "admin")]
    assert admin(capsys, "revoke", "alice", "moderator", "--db", db) == (
        0,
        "kahuna admin revoke: 'alice' is no longer moderator\n",
        "",
    )
    assert held(db) == [("bob", "admin")]
    assert logged(db) == [  # the newest first; the command line is no account
        (None, "revoke", "alice", {"role": "moderator"}),
        (None, "grant", "bob", {"role": "admin"}),
        (None, "grant", "alice", {"role": "moderator"}),
    ]


def test_bad_grants_and_revokes_are_refused_and_change_nothing(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert admin(capsys, "grant", "alice", "moderator", "--db", db)[0] == 0
    before = (held(db), logged(db))
    assert admin(capsys, "grant", "nobody", "moderator", "--db", db) == (
        1,
        "",
        "kahuna admin grant: no account named 'nobody'\n",
    )
    assert admin(capsys, "grant", "alice", "moderator", "--db", db) == (
        1,
        "",
        "kahuna admin grant: 'alice' is moderator already\n",
    )
    assert admin(capsys, "revoke", "bob", "admin", "--db", db) == (1, "", "kahuna admin revoke: 'bob' is not admin\n")
    with pytest.raises(SystemExit) as exited:
        main(["admin", "grant", "bob", "superuser", "--db", db])
    assert exited.value.code == 2
    assert "invalid choice: 'superuser'" in capsys.readouterr().err
    assert (held(db), logged(db)) == before


def test_a_database_that_is_not_there_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = f"sqlite:///{tmp_path / 'missing.db'}"
    code, out, err = admin(capsys, "grant", "alice", "admin", "--db", missing)
    assert (code, out) == (1, "") and err.startswith("kahuna admin grant: no database at ")


def test_going_back_to_migration_0015_drops_the_tables_of_moderation(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert admin(capsys, "grant", "alice", "admin", "--db", db)[0] == 0
    engine = open_engine(db)
    with engine.begin() as conn:
        command.downgrade(migrations.config(conn), "0015")
    with engine.connect() as conn:
        assert migrations.current(conn) == "0015"
        tables = set(inspect(conn).get_table_names())
        assert not {"account_roles", "moderation_log", "reports", "sanctions"} & tables
    engine.dispose()
    open_engine(db).dispose()  # upgraded again to the newest revision
    assert held(db) == []
