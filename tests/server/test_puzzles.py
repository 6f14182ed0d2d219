"""Puzzles (issue 52) through real servers on SQLite: the daily puzzle, the next one, answers
checked by the referee (right, wrong, right so far, illegal with the referee's reason) with the
positions they reach, a rated account's first answer counted once (its rating and the puzzle's
moved), guests unrated, the history, the 404s and the budget; the puzzles a smaller shipped set
retires on a server upgraded from an older release; the store and migration 0027 on their own; and
``kahuna puzzles generate --db`` on a server's database (finished games written as the server
writes them), which it only reads."""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import random
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

import pytest
from alembic import command
from finished_games import write_finished
from server_harness import Server
from sqlalchemy import Connection, insert, inspect, select, update
from stored_games import stored_game
from test_accounts import csrf, signed_in

from kahuna.ai.puzzles.puzzle import Puzzle, check
from kahuna.ai.puzzles.shipped import daily_index, read_set
from kahuna.rules import ALL_ACTIONS, GameState, Kind, PlayerView, legal_actions_of, view_of
from kahuna.rules.board import LETTERS
from kahuna.rules.foresight import close_islands, consequences
from kahuna.server.accounts.passwords import username_key
from kahuna.server.common.ratelimit import Limiter
from kahuna.server.db import archive, migrations
from kahuna.server.db import store as store_module
from kahuna.server.db.schema import accounts, actions, puzzle_attempts, puzzles
from kahuna.server.db.store import open_engine
from kahuna.server.db.writer import Conflict, Writer
from kahuna.server.puzzles import store
from kahuna.server.puzzles.command import add_parser
from kahuna.server.puzzles.service import Puzzles
from kahuna.tui.puzzle import choose

BURST = 30


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    limits = ("signups_burst=100", "logins_burst=100", f"puzzle_attempts_burst={BURST}", "puzzle_attempts_per_minute=1")
    running = Server(tmp_path_factory.mktemp("puzzles"), args=tuple(p for x in limits for p in ("--limit", x))).start()
    yield running
    running.stop()


SHIPPED = {p.puzzle_id: p for p in read_set()[0]}


def wrong_first(puzzle: Puzzle) -> str:
    view = puzzle.view()
    firsts = {turn[0] for turn in puzzle.solutions}
    return next(a.token for a in legal_actions_of(view) if a.token not in firsts)


def after_view(puzzle: Puzzle, actions: Sequence[str]) -> dict[str, Any]:
    """The seat's view after ``actions`` from the puzzle's position."""
    state = puzzle.game_state()
    for token in actions:
        state.apply(token)
    return view_of(state, puzzle.seat).to_json()


def test_puzzles_over_http(server: Server) -> None:
    used = 0
    daily = server.get("/api/puzzles/daily").json()
    assert daily == server.get("/api/puzzles/daily").json()
    assert set(daily) == {"puzzle_id", "view", "legal", "rating", "themes", "foreseen"}
    puzzle = SHIPPED[daily["puzzle_id"]]
    view = daily["view"]
    assert view["seat"] == puzzle.seat and "hands" not in view and "deck" not in view
    assert view == puzzle.view().to_json()  # the seat's view, nothing more
    assert daily["legal"] == [a.token for a in legal_actions_of(PlayerView.from_json(view))]
    # what the referee foresees from that view alone (the screen-reader mode's lists), as a game's socket says it
    seen = PlayerView.from_json(view)
    assert daily["foreseen"] == {
        "actions": {token: [e.to_json() for e in events] for token, events in consequences(seen).items()},
        "close": [c.to_json() for c in close_islands(seen)],
    }
    assert set(daily["foreseen"]["actions"]) <= set(daily["legal"])

    # A guest: right, unrated; the solution only in the answer.
    answer = server.post(f"/api/puzzles/{puzzle.puzzle_id}/attempt", {"actions": list(puzzle.solutions[0])}).json()
    used += 1
    after = after_view(puzzle, puzzle.solutions[0])
    assert {k: answer[k] for k in ("correct", "solution", "rating")} == {
        "correct": True,
        "solution": list(puzzle.solutions[0]),
        "rating": None,
    }
    assert answer["view"] == answer["solution_view"] == after and answer["events"]  # the position after the turn
    assert "hands" not in answer["view"] and "deck" not in answer["view"]

    # A signed-in account: an illegal action counts nothing, with the referee's reason.
    browser = signed_in(server, "solver")
    shown = browser.get("/api/puzzles/next").json()
    mine = SHIPPED[shown["puzzle_id"]]
    hand = mine.view().hand or ()
    missing = next(c for c in range(12) if hand[c] == 0)
    build = next(a.token for a in ALL_ACTIONS if a.kind is Kind.BUILD and a.card == missing)
    refused = browser.post(f"/api/puzzles/{mine.puzzle_id}/attempt", json={"actions": [build]}, headers=csrf(browser))
    used += 1
    assert refused.status_code == 422 and refused.json()["error"] == "illegal", refused.text
    assert refused.json()["reason"] == {"code": "no_card", "card": LETTERS[missing]}
    print("refused:", refused.json()["reason"])

    # Right so far: nothing counted, no solution.
    long = next((t for t in mine.solutions if len(t) > 1), None)
    if long is not None:
        so_far = browser.post(
            f"/api/puzzles/{mine.puzzle_id}/attempt", json={"actions": [long[0]]}, headers=csrf(browser)
        ).json()
        used += 1
        assert {k: so_far[k] for k in ("correct", "solution", "rating")} == {
            "correct": None,
            "solution": None,
            "rating": None,
        }
        state = mine.game_state()
        state.apply(long[0])
        assert so_far["view"] == view_of(state, mine.seat).to_json() and long[1] in so_far["legal"]
        assert set(so_far) == {"correct", "solution", "rating", "view", "legal", "events", "foreseen"}
        assert set(so_far["foreseen"]["actions"]) <= set(so_far["legal"])  # what the reader's lists say next

    # A miss counts once: the rating falls; the same answer again, or a right one, counts nothing.
    miss = browser.post(
        f"/api/puzzles/{mine.puzzle_id}/attempt", json={"actions": [wrong_first(mine)]}, headers=csrf(browser)
    ).json()
    used += 1
    assert miss["correct"] is False and miss["solution"] == list(mine.solutions[0])
    assert miss["view"] == after_view(mine, [wrong_first(mine)])  # where the miss led
    assert miss["solution_view"] == after_view(mine, mine.solutions[0]) != miss["view"]
    assert miss["rating"]["before"] == 1500 and miss["rating"]["after"] < 1500, miss
    print("rating after a miss:", miss["rating"])
    again = browser.post(
        f"/api/puzzles/{mine.puzzle_id}/attempt", json={"actions": list(mine.solutions[0])}, headers=csrf(browser)
    ).json()
    used += 1
    assert again["correct"] is True and again["rating"] is None
    history = server.get("/api/puzzles/history/solver").json()
    assert history["rating"] == miss["rating"]["after"]
    assert [(a["puzzle_id"], a["correct"], a["retired"]) for a in history["answers"]] == [
        (mine.puzzle_id, False, False)
    ]
    # The next puzzle is one it has not answered.
    assert browser.get("/api/puzzles/next").json()["puzzle_id"] != mine.puzzle_id
    hard = server.get("/api/puzzles/next?above=1600").json()
    assert hard["rating"] > 1600 or hard["rating"] == max(round(p.rating) for p in SHIPPED.values())

    # Both ratings move: another account solves the puzzle of the day; its second answer moves nothing.
    rater = signed_in(server, "daily-solver")
    daily_before = server.get("/api/puzzles/daily").json()["rating"]
    url = f"/api/puzzles/{puzzle.puzzle_id}/attempt"
    solved = rater.post(url, json={"actions": list(puzzle.solutions[0])}, headers=csrf(rater)).json()
    used += 1
    assert solved["correct"] is True and solved["rating"]["before"] == 1500 < solved["rating"]["after"], solved
    daily_after = server.get("/api/puzzles/daily").json()["rating"]
    print("solved the daily puzzle: account", solved["rating"], "puzzle", daily_before, "->", daily_after)
    assert daily_after < daily_before  # the puzzle lost its game
    second = rater.post(url, json={"actions": [wrong_first(puzzle)]}, headers=csrf(rater)).json()
    used += 1
    assert second["correct"] is False and second["rating"] is None
    assert server.get("/api/puzzles/daily").json()["rating"] == daily_after
    assert server.get("/api/puzzles/history/daily-solver").json()["rating"] == solved["rating"]["after"]

    # A token that is no action: the game socket's error, nothing counted.
    typo = server.post(f"/api/puzzles/{puzzle.puzzle_id}/attempt", {"actions": ["E>>J"]})
    used += 1
    assert typo.status_code == 422 and typo.json()["error"] == "malformed", typo.text

    # Unknown puzzles and players, bad bodies.
    assert server.post("/api/puzzles/0000/attempt", {"actions": ["pass"]}).status_code == 404
    assert server.get("/api/puzzles/history/nobody-here").status_code == 404
    assert server.post(f"/api/puzzles/{puzzle.puzzle_id}/attempt", {"actions": []}).status_code == 422
    used += 1  # the empty body is refused before the budget: it does not count, but leave a margin

    # The budget per address: refused 429 once spent.
    statuses = [
        server.post(f"/api/puzzles/{puzzle.puzzle_id}/attempt", {"actions": ["zz"]}).status_code
        for _ in range(BURST - used + 2)
    ]
    print("answers before 429:", statuses.index(429) + used)
    assert statuses[-1] == 429 and set(statuses) <= {422, 429}


@pytest.mark.slow
def test_a_server_retires_the_puzzles_its_set_dropped(tmp_path: Path) -> None:
    """A database an older release filled, whose set held three puzzles more (one answered by an
    account): the server retires them at load, so that ``next`` never offers them and the daily
    puzzle is the terminal's (``kahuna puzzle --daily``, the shipped set), while the account's
    history keeps its answer, marked retired from its first request on (before anyone asked for a
    puzzle), beside one to a puzzle still shipped, and an answer to one (opened before the upgrade)
    is still checked."""
    gone = [
        dataclasses.replace(p, puzzle_id=f"0000000000{i:02x}", rating=4000 + i)
        for i, p in enumerate(list(SHIPPED.values())[:3])
    ]
    server = Server(tmp_path)
    engine = open_engine(server.db)
    with engine.begin() as conn:
        assert store.load(conn, [*SHIPPED.values(), *gone]) == len(SHIPPED) + 3
        key = username_key("old-solver")
        person: dict[str, Any] = {"username": "old-solver", "username_key": key, "created": "", "is_bot": False}
        player = int(conn.execute(insert(accounts).values(**person).returning(accounts.c.id)).scalar_one())
        kept = next(iter(SHIPPED))
        store.record(conn, player, kept, False)
        store.record(conn, player, gone[0].puzzle_id, True)
        # ``record`` stamps each answer with the clock; the history orders by it, so fix the order
        conn.execute(update(puzzle_attempts).where(puzzle_attempts.c.puzzle_id == kept).values(at=1.0))
    engine.dispose()
    terminal = argparse.Namespace(id=None, daily=True, seed=None)
    server.start()
    try:
        answers = server.get("/api/puzzles/history/old-solver").json()["answers"]  # the first puzzle request
        assert [(a["puzzle_id"], a["retired"]) for a in answers] == [(gone[0].puzzle_id, True), (kept, False)]
        before = choose(read_set()[0], terminal)
        daily = server.get("/api/puzzles/daily").json()["puzzle_id"]
        after = choose(read_set()[0], terminal)  # the same unless the day turned in between
        assert before is not None and after is not None and daily in {before.puzzle_id, after.puzzle_id}
        top = max(p.rating for p in SHIPPED.values())
        assert server.get(f"/api/puzzles/next?above={top}").status_code == 404  # the retired ones are above
        answers = server.get("/api/puzzles/history/old-solver").json()["answers"]
        assert [(a["puzzle_id"], a["retired"]) for a in answers] == [(gone[0].puzzle_id, True), (kept, False)]
        answer = server.post(f"/api/puzzles/{gone[1].puzzle_id}/attempt", {"actions": list(gone[1].solutions[0])})
        assert answer.status_code == 200 and answer.json()["correct"] is True, answer.text
    finally:
        server.stop()


def test_a_load_that_lost_a_race_runs_again(tmp_path: Path) -> None:
    """An instance of the release before storing its set (a puzzle more) in the same moment: the
    load that lost the race runs again against its rows, and retires that puzzle."""
    engine = open_engine(f"sqlite:///{tmp_path / 'puzzles.db'}")
    shipped = list(SHIPPED.values())[:3]
    older = [*shipped, dataclasses.replace(shipped[0], puzzle_id="000000000000")]
    runs: list[int] = []

    class Racing:
        async def transact(self, fn: Callable[[Connection], int]) -> int:
            runs.append(1)
            with engine.begin() as conn:
                if len(runs) == 1:
                    store.load(conn, older)  # the other instance, first
                else:
                    return fn(conn)
            raise Conflict("puzzles")

    service = Puzzles(cast(Writer, Racing()), cast(Limiter, None), shipped=lambda: shipped)
    assert asyncio.run(service.load()) == 0 and len(runs) == 2
    with engine.connect() as conn:
        assert set(store.nearest(conn, None, 1500, None)) == {p.puzzle_id for p in shipped}
    engine.dispose()


def test_the_store_on_sqlite(tmp_path: Path) -> None:
    store_round(f"sqlite:///{tmp_path / 'puzzles.db'}")


def store_round(url: str) -> None:
    """Loading twice, the daily puzzle, an answer counted once, the nearest unanswered puzzles and
    the history, on ``url``'s database (``test_pg_puzzles.py`` runs it on PostgreSQL)."""
    engine = open_engine(url)
    shipped = list(SHIPPED.values())[:5]
    with engine.begin() as conn:
        assert store.load(conn, shipped) == 5 and store.load(conn, shipped) == 0
        day = store.daily(conn, "2026-12-07")
        assert day is not None and day == store.daily(conn, "2026-12-07")
        days = {row.puzzle.puzzle_id for d in range(1, 29) if (row := store.daily(conn, f"2026-02-{d:02}"))}
        assert len(days) >= 2  # the date picks it
        person: dict[str, Any] = {"username": "x", "username_key": "x", "created": "", "is_bot": False}
        player = int(conn.execute(insert(accounts).values(**person).returning(accounts.c.id)).scalar_one())
        first = shipped[0].puzzle_id
        counted = store.record(conn, player, first, True)
        assert counted.before == 1500 and counted.after is not None and counted.after > 1500
        assert store.record(conn, player, first, False) == store.Counted(None, None)
        assert first not in store.nearest(conn, player, 1500, None)
        assert len(store.nearest(conn, None, 1500, None)) == 5
        assert [(a["puzzle_id"], a["retired"]) for a in store.history(conn, player, 10)] == [(first, False)]
        assert store.player_rating(conn, player).rating == counted.after
        # A release that rates its set again: the unanswered puzzles take the new starting rating,
        # the answered one keeps the rating its answer moved.
        moved = store.by_id(conn, first)
        rerated = [dataclasses.replace(p, rating=p.rating + 100) for p in shipped]
        assert store.load(conn, rerated) == 0
        again = store.by_id(conn, first)
        assert again is not None and moved is not None and again == moved and again.rating != shipped[0].rating
        for puzzle in rerated[1:]:
            assert store.by_id(conn, puzzle.puzzle_id) == store.Row(puzzle, puzzle.rating)
        # A release whose set drops two of them (the answered one too): they are retired, never
        # offered nor the daily puzzle, which is chosen among the set's as the terminal chooses it
        # (``kahuna puzzle --daily``); the row and the answer stay.
        kept, dropped = rerated[2:], {p.puzzle_id for p in rerated[:2]}
        assert store.load(conn, kept) == 0
        ordered, everything = sorted(p.puzzle_id for p in kept), sorted(p.puzzle_id for p in shipped)
        moved_days = 0
        for d in range(1, 29):
            date = f"2026-02-{d:02}"
            row = store.daily(conn, date)
            assert row is not None and row.puzzle.puzzle_id == ordered[daily_index(date, len(ordered))]
            moved_days += row.puzzle.puzzle_id != everything[daily_index(date, len(everything))]
        assert moved_days  # counting the retired ones would have chosen another puzzle on those days
        assert set(store.nearest(conn, None, 1500, None)) == set(ordered)
        assert not dropped & set(store.nearest(conn, None, 1500, 0))
        assert [(a["puzzle_id"], a["retired"]) for a in store.history(conn, player, 10)] == [(first, True)]
        assert store.by_id(conn, first) == moved  # an answer to it, open before, is still checked
        assert store.load(conn, kept) == 0 and set(store.nearest(conn, None, 1500, None)) == set(ordered)
        # A later set holds one of them again: it is offered again, with the rating it kept.
        assert store.load(conn, rerated[1:]) == 0
        assert set(store.nearest(conn, None, 1500, None)) == set(ordered) | {rerated[1].puzzle_id}
        assert store.by_id(conn, rerated[1].puzzle_id) == store.Row(rerated[1], rerated[1].rating)
        assert first not in store.nearest(conn, None, 1500, None)
        assert store.load(conn, rerated) == 0  # the answered one too: its history no longer marks it
        assert [(a["puzzle_id"], a["retired"]) for a in store.history(conn, player, 10)] == [(first, False)]
    engine.dispose()


def test_migration_0027_on_sqlite(tmp_path: Path) -> None:
    migration_round(f"sqlite:///{tmp_path / 'puzzles.db'}")


def migration_round(url: str) -> None:
    """Migration 0027 (``puzzles.retired``) both ways with puzzles and an answer stored, on ``url``'s
    database (``test_pg_puzzles.py`` runs it on PostgreSQL): going back to 0026 drops the column
    alone, every row and the answer stay; up again, no puzzle is retired until a set is loaded."""
    engine = open_engine(url)
    shipped = list(SHIPPED.values())[:3]
    ids = sorted(p.puzzle_id for p in shipped)
    with engine.begin() as conn:
        store.load(conn, shipped)
        person: dict[str, Any] = {"username": "x", "username_key": "x", "created": "", "is_bot": False}
        player = int(conn.execute(insert(accounts).values(**person).returning(accounts.c.id)).scalar_one())
        store.record(conn, player, shipped[0].puzzle_id, True)
        store.load(conn, shipped[1:])  # the answered one retired
    with engine.begin() as conn:
        command.downgrade(migrations.config(conn), "0026")
    with engine.connect() as conn:
        assert "retired" not in {c["name"] for c in inspect(conn).get_columns("puzzles")}
        assert list(conn.execute(select(puzzles.c.id).order_by(puzzles.c.id)).scalars()) == ids
        assert conn.execute(select(puzzle_attempts.c.puzzle_id)).scalars().all() == [shipped[0].puzzle_id]
    with engine.begin() as conn:
        command.upgrade(migrations.config(conn), "head")
    with engine.begin() as conn:
        assert conn.execute(select(puzzles.c.retired)).scalars().all() == [False] * 3
        assert store.load(conn, shipped[1:]) == 0
        assert shipped[0].puzzle_id not in store.nearest(conn, None, 1500, None)
        assert [a["puzzle_id"] for a in store.history(conn, player, 10)] == [shipped[0].puzzle_id]
    engine.dispose()


def test_generate_from_a_servers_finished_games(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``kahuna puzzles generate --db``: a server's finished games (one archived) are cut, the
    unfinished one and a damaged one skipped, the run resumable, and the database not written."""
    db = tmp_path / "server.db"
    engine = open_engine(f"sqlite:///{db}")
    with engine.begin() as conn:
        write_finished(conn, "done-1", 3, chat=0)  # seeds whose games give a proved puzzle each
        write_finished(conn, "done-2", 4, chat=0)
        write_finished(conn, "damaged", 1, chat=0)
        conn.execute(update(actions).where(actions.c.game_id == "damaged", actions.c.seq == 4).values(token="zz"))
        store_module.insert_game(conn, stored_game("playing", GameState.new(random.Random(4)).deal or ""))
        assert archive.archive_games(conn, ["done-2"]) == 1
    engine.dispose()
    before = db.read_bytes()
    out = tmp_path / "set.jsonl"
    parser = argparse.ArgumentParser()
    add_parser(parser.add_subparsers(dest="command"))
    argv = ["puzzles", "generate", str(out), "--db", f"sqlite:///{db}", "--worlds", "2", "--seconds", "5", "--quiet"]
    args = parser.parse_args(argv)
    assert args.func(args) == 0
    summary = json.loads(capsys.readouterr().out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(e["game"] for e in lines if e["type"] == "game") == ["done-1", "done-2"]
    assert summary["skipped"] == 1 and summary["proved"] >= 1  # the damaged game
    for entry in (e for e in lines if e["type"] == "puzzle"):
        assert entry["source"]["game_id"] in ("done-1", "done-2")
        puzzle = Puzzle.from_json(entry)
        assert check(puzzle, list(puzzle.solutions[0])).status == "correct"
    args = parser.parse_args(argv)
    assert args.func(args) == 0  # resumed: the games already there are not read again
    again = json.loads(capsys.readouterr().out)
    print("from the database:", summary, "again:", again)
    assert again["candidates"] == 0 and len(out.read_text().splitlines()) == len(lines)
    # Only read: the file is as it was, and nothing went to a write-ahead log (a WAL database read
    # creates its shared-memory index and an empty log, as any reader of it would).
    wal = tmp_path / "server.db-wal"
    assert db.read_bytes() == before and (not wal.exists() or wal.stat().st_size == 0)
    bad = parser.parse_args(["puzzles", "generate", str(tmp_path / "x.jsonl"), "--db", f"sqlite:///{tmp_path}/no.db"])
    assert bad.func(bad) == 2 and not (tmp_path / "x.jsonl").exists()
    print(capsys.readouterr().err.strip())
