"""``kahuna admin accounts``, ``close``, ``reset-password`` and ``counts`` on a real database."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select, text
from stored_games import stored_game

from kahuna.cli import main
from kahuna.server.accounts import store as accounts_store
from kahuna.server.db import schema, store
from kahuna.server.db.store import open_engine

TASKS = ("backup", "restore", "accounts", "close", "reset-password", "counts", "grant", "revoke")


@pytest.fixture
def db(tmp_path: Path) -> str:
    """A server's database (migrated by the server's own code) with three people, a bot and three games."""
    url = f"sqlite:///{tmp_path / 'kahuna.db'}"
    engine = open_engine(url)
    with engine.begin() as conn:
        ids = {name: accounts_store.insert_account(conn, name, "hash") for name in ("alice", "bob", "Carol_1")}
        accounts_store.insert_account(conn, "stockfishy", None, is_bot=True)
        alice = ids["alice"]
        assert alice is not None
        conn.execute(
            schema.account_emails.insert().values(
                account_id=alice.id, email="Alice@Example.org", email_key="alice@example.org", lang="de"
            )
        )
        store.insert_game(conn, stored_game("g1", "A" * 24, status="over"))
        store.insert_game(conn, stored_game("g2", "A" * 24, status="over"))
        store.insert_game(conn, stored_game("g3", "A" * 24))
        conn.execute(schema.seats.insert().values(token="t1", game_id="g3", seat=0, account_id=alice.id))
    engine.dispose()
    return url


def admin(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["admin", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_each_task_has_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    for task in TASKS:
        with pytest.raises(SystemExit) as exited:
            main(["admin", task, "--help"])
        assert exited.value.code == 0
        assert f"usage: kahuna admin {task}" in capsys.readouterr().out


def test_accounts_are_listed_newest_first_and_found_by_name_or_address(
    db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = admin(capsys, "accounts", "--db", db)
    names = [line.split()[1] for line in out.splitlines()[1:]]
    assert (code, names) == (0, ["stockfishy", "Carol_1", "bob", "alice"])
    assert "bot" in out.splitlines()[1]
    _, out, _ = admin(capsys, "accounts", "--db", db, "--find", "EXAMPLE.org")
    assert [line.split()[1] for line in out.splitlines()[1:]] == ["alice"]
    assert "Alice@Example.org" in out
    _, out, _ = admin(capsys, "accounts", "--db", db, "--find", "_")  # a LIKE wildcard, taken literally
    assert [line.split()[1] for line in out.splitlines()[1:]] == ["Carol_1"]
    _, out, _ = admin(capsys, "accounts", "--db", db, "--limit", "2")
    assert len(out.splitlines()) == 3


def test_closing_an_account_is_what_its_owner_deleting_it_does(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert admin(capsys, "close", "alice", "--db", db) == (
        2,
        "",
        "kahuna admin close: closing an account cannot be undone: add --yes\n",
    )
    assert admin(capsys, "close", "ALICE", "--yes", "--db", db) == (
        0,
        "kahuna admin close: closed 'ALICE' (it held 1 game seats)\n",
        "",
    )
    code, _, err = admin(capsys, "close", "alice", "--yes", "--db", db)
    assert code == 1 and err.startswith("kahuna admin close: the account 'alice' was closed on ")
    assert admin(capsys, "close", "nobody", "--yes", "--db", db) == (
        1,
        "",
        "kahuna admin close: no account named 'nobody'\n",
    )
    engine = open_engine(db)
    with engine.connect() as conn:
        row = conn.execute(select(schema.accounts).where(schema.accounts.c.username == "alice")).one()
        assert row.password is None and row.deleted is not None
        assert conn.execute(select(schema.account_emails)).all() == []
        assert conn.execute(select(schema.games.c.name0).where(schema.games.c.id == "g3")).scalar_one() != "A"
    engine.dispose()


def test_a_reset_mail_is_queued_to_the_verified_address(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = admin(capsys, "reset-password", "alice", "--public-url", "https://kahuna.example/", "--db", db)
    assert (code, out, err) == (
        0,
        "kahuna admin reset-password: queued a reset mail for 'alice' to Alice@Example.org\n",
        "",
    )
    code, _, err = admin(capsys, "reset-password", "bob", "--public-url", "https://kahuna.example/", "--db", db)
    assert (code, err) == (1, "kahuna admin reset-password: the account 'bob' has no verified e-mail address\n")
    engine = open_engine(db)
    with engine.connect() as conn:
        mails = conn.execute(select(schema.mail_queue)).all()
        tokens = conn.execute(select(schema.mail_tokens)).all()
    engine.dispose()
    assert [(m.kind, m.recipient, m.lang, m.status) for m in mails] == [("reset", "Alice@Example.org", "de", "queued")]
    assert "https://kahuna.example/password-reset#" in mails[0].body
    assert len(tokens) == 1 and mails[0].message_id.endswith("@kahuna.example>")


def test_counts(db: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = admin(capsys, "counts", "--json", "--db", db)
    found = json.loads(out)
    assert code == 0 and found["database_bytes"] > 0
    assert {k: v for k, v in found.items() if k != "database_bytes"} == {
        "accounts": 3,
        "bots": 1,
        "closed_accounts": 0,
        "games": {"over": 2, "playing": 1},
    }
    code, out, _ = admin(capsys, "counts", "--db", db)
    assert out.splitlines()[:2] == ["accounts: 3 people, 1 bots, 0 closed", "games: 2 over, 1 playing"]


def test_a_missing_or_older_database_is_refused_and_left_alone(
    tmp_path: Path, db: str, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "none.db"
    assert admin(capsys, "counts", "--db", f"sqlite:///{missing}") == (
        1,
        "",
        f"kahuna admin counts: no database at {missing}\n",
    )
    assert not missing.exists()
    engine = open_engine(db)
    with engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '0001'"))
    engine.dispose()
    code, _, err = admin(capsys, "accounts", "--db", db)
    assert code == 1 and err.startswith("kahuna admin accounts: the database is at revision 0001, not this version's ")
