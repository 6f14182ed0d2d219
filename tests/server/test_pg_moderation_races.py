"""Two moderators deciding the same thing at the same moment through two instances, decided by
PostgreSQL: closing one report, undoing one sanction, deciding one appeal, closing a report while
a sanction names it, closing, marking or renaming one account, hiding one chat line; and a renamed
player choosing its name twice at once, or while its rename is undone. The first decision holds;
the second waits for the first's row lock, then is refused as if it had come later
(``report_not_open``, ``already_undone``, ``appeal_decided``, ``already_closed``,
``already_marked``, ``already_renamed``, ``already_hidden``, ``no_rename``), and the log holds the
decision once.

Each decision runs as an instance's writer runs it: the module's function in a transaction of its
own connection (``Writer.transact``); the first's transaction is left open until the second waits.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TypeVar

import pytest
from scale_harness import database, pg_url
from server_harness import wait_for
from sqlalchemy import Connection, Engine, select, text
from stored_games import stored_game

from kahuna.server.accounts.store import Account, account_by_name, insert_account
from kahuna.server.common.errors import Rejected
from kahuna.server.db import store
from kahuna.server.db.schema import accounts as accounts_table
from kahuna.server.db.schema import appeals as appeals_table
from kahuna.server.db.schema import moderation_log
from kahuna.server.db.schema import reports as reports_table
from kahuna.server.db.schema import sanctions as sanctions_table
from kahuna.server.moderation import appeals, chat_sanctions, reports, roles, sanctions

__all__ = ["database", "pg_url"]

pytestmark = pytest.mark.pg

MODERATES = frozenset({roles.MODERATOR})
T = TypeVar("T")


@dataclass(frozen=True)
class Cast:
    """Three moderators (``kim`` sanctions, ``ivy`` and ``jay`` race), a reporter and its target."""

    ivy: Account
    jay: Account
    kim: Account
    pat: Account
    kit: Account


def _cast(engine: Engine) -> Cast:
    with engine.begin() as conn:
        made = [insert_account(conn, name, None) for name in ("ivy", "jay", "kim", "pat", "kit")]
        accounts = [account for account in made if account is not None]
        for moderator in accounts[:3]:
            roles.grant(conn, moderator.id, roles.MODERATOR)
    return Cast(*accounts)


def _report(engine: Engine, cast: Cast) -> int:
    with engine.begin() as conn:
        made = reports.file_report(conn, cast.pat, "kit", "spam", "")
    assert isinstance(made, int)
    return made


def _warning(engine: Engine, cast: Cast) -> int:
    with engine.begin() as conn:
        made = sanctions.sanction(conn, cast.kim, MODERATES, "kit", "warn", "no spam")
    assert isinstance(made, int)
    return made


def _waiting_for_a_lock(engine: Engine) -> bool:
    """Whether a session of the test's database waits for a lock (looked at from a connection of
    its own: ``pg_stat_activity`` is a snapshot per transaction)."""
    query = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
    with engine.connect() as conn:
        return bool(conn.execute(text(query)).scalar_one())


def _race(engine: Engine, first: Callable[[Connection], T], second: Callable[[Connection], T]) -> tuple[T, T]:
    """Run ``first`` in a transaction left open, ``second`` in another thread's transaction until
    it waits for a lock the first holds, then commit the first: what each returned."""

    def run_second() -> T:
        with engine.begin() as conn:
            return second(conn)

    with ThreadPoolExecutor(max_workers=1) as thread:
        with engine.begin() as conn:
            done = first(conn)
            later = thread.submit(run_second)
            wait_for(lambda: later.done() or _waiting_for_a_lock(engine), "the second decision to wait for a lock")
            assert not later.done(), f"the second decision did not wait for the first: {later.result()!r}"
        return done, later.result(timeout=15)


def _code(outcome: object) -> tuple[str, int] | None:
    return (outcome.code, outcome.status) if isinstance(outcome, Rejected) else None


def _logged(engine: Engine) -> Counter[str]:
    """The log's entries by action, the roles' grants aside."""
    with engine.connect() as conn:
        actions = conn.execute(select(moderation_log.c.action).where(moderation_log.c.action != "grant")).scalars()
        return Counter(actions)


def test_two_moderators_closing_one_report_close_it_once(database: Engine) -> None:
    cast = _cast(database)
    report_id = _report(database, cast)
    first, second = _race(
        database,
        lambda conn: reports.close_report(conn, cast.ivy.id, report_id, "nothing to see"),
        lambda conn: reports.close_report(conn, cast.jay.id, report_id, "nothing at all"),
    )
    assert first is None
    assert _code(second) == ("report_not_open", 409)
    assert _logged(database) == {"close_report": 1}


def test_a_close_meeting_a_sanction_on_the_report_is_refused(database: Engine) -> None:
    """The report is ``acted_on`` once the sanction commits: the close came second and changes
    nothing (the report stays ``acted_on``, not ``closed``)."""
    cast = _cast(database)
    report_id = _report(database, cast)
    sanctioned, closed = _race(
        database,
        lambda conn: sanctions.sanction(conn, cast.kim, MODERATES, "kit", "warn", "no spam", report_id=report_id),
        lambda conn: reports.close_report(conn, cast.ivy.id, report_id, "nothing to see"),
    )
    assert isinstance(sanctioned, int)
    assert _code(closed) == ("report_not_open", 409)
    with database.connect() as conn:
        status = conn.execute(select(reports_table.c.status).where(reports_table.c.id == report_id)).scalar_one()
    assert status == reports.ACTED_ON
    assert _logged(database) == {"sanction": 1}


def test_two_moderators_undoing_one_sanction_undo_it_once(database: Engine) -> None:
    cast = _cast(database)
    sanction_id = _warning(database, cast)
    first, second = _race(
        database,
        lambda conn: sanctions.undo(conn, cast.ivy, MODERATES, sanction_id),
        lambda conn: sanctions.undo(conn, cast.jay, MODERATES, sanction_id),
    )
    assert first is None
    assert _code(second) == ("already_undone", 409)
    with database.connect() as conn:
        undone_by = conn.execute(
            select(sanctions_table.c.undone_by).where(sanctions_table.c.id == sanction_id)
        ).scalar_one()
    assert undone_by == cast.ivy.id
    assert _logged(database) == {"sanction": 1, "undo": 1}


@pytest.mark.parametrize(
    ("decision", "other"), [("overturned", "overturned"), ("overturned", "upheld"), ("upheld", "overturned")]
)
def test_two_moderators_deciding_one_appeal_decide_it_once(
    database: Engine, decision: appeals.Decision, other: appeals.Decision
) -> None:
    """The first decision stands, whichever the second was: its undo (if overturned) is the only
    one, and the second's undo never happens."""
    cast = _cast(database)
    sanction_id = _warning(database, cast)
    with database.begin() as conn:
        appeal_id = appeals.appeal(conn, cast.kit, sanction_id, "not me")
    assert isinstance(appeal_id, int)
    first, second = _race(
        database,
        lambda conn: appeals.decide(conn, cast.ivy, MODERATES, appeal_id, decision, "first"),
        lambda conn: appeals.decide(conn, cast.jay, MODERATES, appeal_id, other, "second"),
    )
    assert first is None
    assert _code(second) == ("appeal_decided", 409)
    with database.connect() as conn:
        stored = conn.execute(
            select(appeals_table.c.decision, appeals_table.c.decided_by, sanctions_table.c.undone_by)
            .join(sanctions_table, sanctions_table.c.id == appeals_table.c.sanction_id)
            .where(appeals_table.c.id == appeal_id)
        ).one()
    undone_by = cast.ivy.id if decision == "overturned" else None
    assert tuple(stored) == (decision, cast.ivy.id, undone_by)
    undos = {"undo": 1} if decision == "overturned" else {}
    assert _logged(database) == {"sanction": 1, "appeal": 1, "decide_appeal": 1, **undos}


@pytest.mark.parametrize(
    ("kind", "other", "code"),
    [
        ("close", "close", "already_closed"),
        ("mark_cheating", "mark_cheating", "already_marked"),
        ("mark_cheating", "mark_rating_manipulation", "already_marked"),
        ("rename", "rename", "already_renamed"),
    ],
)
def test_two_moderators_closing_marking_or_renaming_one_account_do_it_once(
    database: Engine, kind: sanctions.Kind, other: sanctions.Kind, code: str
) -> None:
    cast = _cast(database)
    first, second = _race(
        database,
        lambda conn: sanctions.sanction(conn, cast.ivy, MODERATES, "kit", kind, "first"),
        lambda conn: sanctions.sanction(conn, cast.jay, MODERATES, "kit", other, "second"),
    )
    assert isinstance(first, int)
    assert _code(second) == (code, 409)
    assert _logged(database) == {"sanction": 1}


def test_two_moderators_hiding_one_line_hide_it_once(database: Engine) -> None:
    cast = _cast(database)
    with database.begin() as conn:
        store.insert_game(conn, stored_game("g1"))
        store.insert_game_accounts(conn, "g1", (cast.kit.id, cast.pat.id), rated=False, pool=None)
        store.insert_chat(conn, "g1", 0, {"room": "players", "seat": 0, "text": "spam", "at": store.now()})
    first, second = _race(
        database,
        lambda conn: sanctions.sanction(conn, cast.ivy, MODERATES, "kit", "hide_line", "one", game_id="g1", line_id=0),
        lambda conn: sanctions.sanction(conn, cast.jay, MODERATES, "kit", "hide_line", "two", game_id="g1", line_id=0),
    )
    assert isinstance(first, int)
    assert _code(second) == ("already_hidden", 409)
    assert _logged(database) == {"sanction": 1}


def _renamed(engine: Engine, cast: Cast) -> tuple[int, Account]:
    """``kit`` renamed by ``kim``: the rename's id, and the account under its neutral name."""
    with engine.begin() as conn:
        made = sanctions.sanction(conn, cast.kim, MODERATES, "kit", "rename", "bad name")
        assert isinstance(made, int)
        renamed = account_by_name(conn, f"{chat_sanctions.NEUTRAL}{made}")
    assert renamed is not None
    return made, renamed


def _name(engine: Engine, account: Account) -> str:
    with engine.connect() as conn:
        return str(
            conn.execute(select(accounts_table.c.username).where(accounts_table.c.id == account.id)).scalar_one()
        )


def test_a_player_choosing_its_name_twice_at_once_chooses_once(database: Engine) -> None:
    cast = _cast(database)
    _, kit = _renamed(database, cast)
    first, second = _race(
        database,
        lambda conn: chat_sanctions.choose_name(conn, kit, "kitty"),
        lambda conn: chat_sanctions.choose_name(conn, kit, "kat"),
    )
    assert first is None
    assert _code(second) == ("no_rename", 409)
    assert _name(database, kit) == "kitty"
    assert _logged(database) == {"sanction": 1, "choose_name": 1}


def test_a_choice_of_name_meeting_the_undo_of_its_rename_is_kept(database: Engine) -> None:
    """The name chosen first stays: the undo, second, finds the neutral name gone and restores
    nothing (``restored`` false in its log entry)."""
    cast = _cast(database)
    rename_id, kit = _renamed(database, cast)
    chosen, undone = _race(
        database,
        lambda conn: chat_sanctions.choose_name(conn, kit, "kitty"),
        lambda conn: sanctions.undo(conn, cast.ivy, MODERATES, rename_id),
    )
    assert (chosen, undone) == (None, None)
    assert _name(database, kit) == "kitty"
    with database.connect() as conn:
        undo = conn.execute(select(moderation_log.c.detail).where(moderation_log.c.action == "undo")).scalar_one()
    assert json.loads(undo)["restored"] is False


def test_a_choice_of_name_meeting_an_undo_that_gave_the_old_name_back_is_refused(database: Engine) -> None:
    cast = _cast(database)
    rename_id, kit = _renamed(database, cast)
    undone, chosen = _race(
        database,
        lambda conn: sanctions.undo(conn, cast.ivy, MODERATES, rename_id),
        lambda conn: chat_sanctions.choose_name(conn, kit, "kitty"),
    )
    assert undone is None
    assert _code(chosen) == ("no_rename", 409)
    assert _name(database, kit) == "kit"
    assert _logged(database) == {"sanction": 1, "undo": 1}
