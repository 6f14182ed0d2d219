"""Issue 50's archive of finished games on SQLite: a served game gives the same bytes before and
after ``kahuna admin archive`` (record, replay, summary, profile, games list, JSON-lines export),
its per-action rows are gone, a running game is left alone, an archived game's chat is closed, and
the server's own pass leaves the games it holds in memory alone."""

from __future__ import annotations

import asyncio
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from alembic import command
from finished_games import archived_of, rows_of, seat_token, write_finished
from server_harness import ROOT, Server, connect, run
from sqlalchemy import Connection, Engine, select, update
from sqlalchemy import text as sql
from stored_games import stored_game

from kahuna.server.accounts.store import adopt_seats, insert_account
from kahuna.server.common.tokens import digest
from kahuna.server.db import archive, migrations, schema, store
from kahuna.server.db.archive_format import MARK2, ArchivedRows, unpack
from kahuna.server.db.housekeeping import Ages, Housekeeping
from kahuna.server.db.schema.games import short_digest
from kahuna.server.db.writer import Writer

FINISHED = [f"done{i}" for i in range(6)]
PER_ACTION = ("actions", "reshuffles", "clocks", "chat")
QUIET = ("--archive-after", "0", "--delete-guest-games-after", "0")
"""The server's own pass off: the test archives by hand."""


def seed_games(engine: Engine) -> None:
    """Six finished lobby games between alice and bob (timed or not, with and without chat), a
    guest's finished game and a game still being played."""
    with engine.begin() as conn:
        alice = insert_account(conn, "alice", None)
        bob = insert_account(conn, "bob", None)
        assert alice is not None and bob is not None
        for i, game_id in enumerate(FINISHED):
            pair = (alice.id, bob.id) if i % 2 == 0 else (bob.id, alice.id)
            write_finished(conn, game_id, seed=i, accounts=pair, timed=i % 3 != 0, chat=i % 3, day=2 + i)
        write_finished(conn, "guest", seed=9, chat=1)
        store.insert_game(conn, stored_game("running", "ABCDEFGHIJKLABCDEFGHIJKL", status="waiting"))


def answers(server: Server) -> dict[str, bytes]:
    """Every answer that reads a finished game's stored rows, as bytes, and a browser's "my games"
    by the seat tokens it holds (an archived game's seats keep short digests, r0024)."""
    paths = ["/api/users/alice", "/api/users/alice/games", "/api/users/alice/games.jsonl", "/api/users/bob/games.jsonl"]
    for game_id in [*FINISHED, "guest"]:
        paths += [f"/api/games/{game_id}", f"/api/games/{game_id}/record", f"/api/games/{game_id}/replay"]
    found = {}
    for path in paths:
        response = server.get(path)
        assert response.status_code == 200, (path, response.text)
        found[path] = response.content
    tokens = [seat_token(game_id, seat) for game_id in [*FINISHED, "guest"] for seat in (0, 1)]
    mine = server.post("/api/my-games", {"tokens": tokens})
    assert mine.status_code == 200 and len(mine.json()) == len(tokens), mine.text
    found["/api/my-games"] = mine.content
    return found


def short_seats(stored: store.StoredGame) -> list[str | None]:
    """The seats' digests as an archived game keeps them."""
    return [None if token is None else short_digest(token) for token in stored.seat_tokens]


def admin_archive(db: str, *more: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "kahuna", "admin", "archive", "--db", db, *more],
        cwd=ROOT, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_an_archived_game_answers_byte_for_byte_as_before(tmp_path: Path) -> None:
    server = Server(tmp_path, args=QUIET)
    engine = store.open_engine(server.db)
    seed_games(engine)
    with engine.connect() as conn:
        loaded = {game_id: store.load_game(conn, game_id) for game_id in [*FINISHED, "guest", "running"]}
    server.start()
    try:
        before = answers(server)
    finally:
        server.stop()

    out = admin_archive(server.db, "--older-than", "0")
    assert out.startswith("kahuna admin archive: archived 7 finished games in "), out
    with engine.connect() as conn:
        for table in PER_ACTION:
            assert rows_of(conn, table, [*FINISHED, "guest"]) == 0, table
        assert archived_of(conn, [*FINISHED, "guest"]) == 7
        assert archived_of(conn, ["running"]) == 0
        for game_id, stored in loaded.items():
            again = store.load_game(conn, game_id)
            assert again is not None and stored is not None
            assert again.archived == (game_id != "running")
            assert again.seat_tokens == (short_seats(stored) if again.archived else stored.seat_tokens)
            again.archived, again.seat_tokens = stored.archived, stored.seat_tokens
            assert again == stored, game_id
    assert "archived 0 finished games" in admin_archive(server.db, "--older-than", "0")  # each game once

    server = Server(tmp_path, args=QUIET)
    server.start()
    try:
        after = answers(server)
        refused = run(_chat(server, "done1"))
    finally:
        server.stop()
    assert after == before
    assert refused["type"] == "error" and refused["code"] == "archived"
    engine.dispose()


async def _chat(server: Server, game_id: str) -> dict[str, object]:
    conn = await connect(server, game_id, seat_token(game_id, 0))
    assert (await conn.state())["seat"] == 0  # its token still names the seat (a short digest, r0024)
    await conn.send(type="chat", text="still there?")
    reply = await conn.until(lambda m: m["type"] in ("error", "chat"))
    await conn.close()
    return reply


def test_only_games_ended_before_the_age_are_archived(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    seed_games(engine)
    with engine.begin() as conn:  # done0 and guest ended on 2 January, done5 on 7 January
        assert archive.archive_games(conn, archive.due(conn, "2026-01-05T00:00:00Z")) == 4
        assert archive.due(conn, "2026-01-05T00:00:00Z") == []
        assert rows_of(conn, "actions", ["done3", "done4", "done5"]) > 0
        assert rows_of(conn, "actions", ["done0", "done1", "done2"]) == 0
    engine.dispose()


def test_a_game_archived_while_it_is_read_comes_back_whole(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An archiving pass that commits after ``load_game`` read the ``games`` row and before it read
    the per-action rows (deleted by then) does not make the game come back without its actions."""
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    seed_games(engine)
    with engine.connect() as conn:
        first = store.load_game(conn, "done1")
    read = store.per_action_rows
    seen: list[int] = []  # how many actions each read found

    def archived_meanwhile(conn: Connection, game_id: str) -> ArchivedRows:
        if not seen:
            seen.append(-1)
            with engine.begin() as other:
                assert archive.archive_games(other, [game_id]) == 1
        rows = read(conn, game_id)
        seen.append(len(rows.actions))
        return rows

    monkeypatch.setattr(store, "per_action_rows", archived_meanwhile)
    with engine.connect() as conn:
        again = store.load_game(conn, "done1")
    assert seen[-1] == 0  # the rows were gone when read
    assert first is not None and again is not None and again.archived
    again.archived = False  # (its seats were read before the pass: their digests whole, as matched as short ones)
    assert again == first
    engine.dispose()


def test_the_servers_pass_leaves_the_games_in_memory_alone(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    seed_games(engine)
    held = ["done0", "done3"]

    async def one_pass() -> tuple[int, int]:
        writer = Writer(engine)
        writer.start()
        try:
            return await Housekeeping(writer, Ages(1.0, 0.0), lambda: held).pass_once()
        finally:
            await writer.close()

    assert asyncio.run(one_pass()) == (5, 0)
    with engine.connect() as conn:
        assert archived_of(conn, held) == 0
        assert rows_of(conn, "actions", held) > 0
        assert archived_of(conn, [g for g in FINISHED if g not in held]) == 4
    engine.dispose()


def test_going_back_to_migration_0014_writes_the_rows_back(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    seed_games(engine)
    with engine.connect() as conn:
        rows = {game_id: store.per_action_rows(conn, game_id) for game_id in FINISHED}
    with engine.begin() as conn:
        assert archive.archive_games(conn, FINISHED) == len(FINISHED)
    with engine.begin() as conn:
        command.downgrade(migrations.config(conn), "0014")
    with engine.connect() as conn:
        assert {game_id: store.per_action_rows(conn, game_id) for game_id in FINISHED} == rows
    engine.dispose()


def test_going_back_to_migration_0018_puts_the_game_columns_and_the_digests_back(tmp_path: Path) -> None:
    """0019 keeps the seats' digests as bytes, and an archived game's record in its ``games`` row
    with its variant and deal in the (``kahuna-archive/2``) record; going back to 0018 gives the
    text digests, the ``games`` columns and ``/1`` records in ``archived_games`` that the code
    before 0019 reads, and coming back again the same stored games."""
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    seed_games(engine)
    columns = sql("SELECT id, variant, deal FROM games ORDER BY id")
    tokens = sql("SELECT token FROM seats ORDER BY game_id, seat")
    with engine.connect() as conn:
        before = conn.execute(columns).all()
        loaded = {game_id: store.load_game(conn, game_id) for game_id in FINISHED}
        digests = sorted(digest(seat_token(game_id, seat)) for game_id in [*FINISHED, "guest"] for seat in (0, 1))
        assert sorted(bytes(token).hex() for (token,) in conn.execute(tokens)) == digests
    with engine.begin() as conn:
        assert archive.archive_games(conn, FINISHED) == len(FINISHED)
    with engine.connect() as conn:
        emptied = {game_id for game_id, variant, deal in conn.execute(columns) if variant == deal == ""}
        assert emptied == set(FINISHED)
        records = conn.execute(sql("SELECT archive FROM games WHERE archive IS NOT NULL")).scalars().all()
        assert {bytes(record[:1]) for record in records} == {MARK2}
    with engine.begin() as conn:
        command.downgrade(migrations.config(conn), "0018")
    with engine.connect() as conn:
        assert conn.execute(columns).all() == before
        kept = [digest(seat_token("guest", seat)) for seat in (0, 1)]  # the archived games' stay short (0024)
        assert sorted(token for (token,) in conn.execute(tokens)) == sorted(
            [*kept, *(short_digest(d) for d in digests if d not in kept)]
        )
        records = conn.execute(sql("SELECT record FROM archived_games")).scalars().all()
        assert len(records) == len(FINISHED)
        for record in records:
            assert bytes(record[:1]) != MARK2 and unpack(bytes(record)).variant is None
    with engine.begin() as conn:
        command.upgrade(migrations.config(conn), "head")
    with engine.connect() as conn:
        for game_id in FINISHED:
            stored, first = store.load_game(conn, game_id), loaded[game_id]
            assert stored is not None and first is not None and stored.archived and not first.archived
            assert stored.seat_tokens == short_seats(first)
            stored.archived, stored.seat_tokens = False, first.seat_tokens
            assert stored == first, game_id
    engine.dispose()


def test_the_ages_are_options_and_config_keys(tmp_path: Path) -> None:
    config = tmp_path / "kahuna.toml"
    config.write_text("archive-after = 0\ndelete-guest-games-after = 2.5\n")

    def printed(*args: str) -> str:
        command = [sys.executable, "-m", "kahuna", "serve", *args, "--print-config"]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=60, check=True)
        return done.stdout

    assert "archive-after = 30.0\ndelete-guest-games-after = 7.0\n" in printed()
    assert "archive-after = 0\ndelete-guest-games-after = 2.5\n" in printed("--config", str(config))
    assert "archive-after = 12.0\n" in printed("--config", str(config), "--archive-after", "12")


def test_a_game_archived_from_outside_while_held_takes_no_more_chat(tmp_path: Path) -> None:
    server = Server(tmp_path, args=QUIET)
    engine = store.open_engine(server.db)
    seed_games(engine)
    server.start()

    async def talk() -> list[str]:
        conn = await connect(server, "done2", seat_token("done2", 1))  # in the server's memory from now on
        await conn.send(type="chat", text="before")
        first = await conn.until(lambda m: m["type"] in ("error", "chat"))
        await asyncio.to_thread(admin_archive, server.db, "--older-than", "0")
        replies = [str(first["type"])]
        for text in ("after", "again"):
            await conn.send(type="chat", text=text)
            reply = await conn.until(lambda m: m["type"] == "error")
            replies.append(str(reply["code"]))
        await conn.close()
        return replies

    try:
        assert run(talk()) == ["chat", "stale_version", "archived"]
    finally:
        server.stop()
    with engine.connect() as conn:
        stored = store.load_game(conn, "done2")
        assert stored is not None and [line["text"] for line in stored.chat] == [
            "line 0 of done2",
            "line 1 of done2",
            "before",
        ]
        assert rows_of(conn, "chat", ["done2"]) == 0
    engine.dispose()


def test_the_admin_command_draws_a_progress_bar_on_a_terminal(tmp_path: Path) -> None:
    db = f"sqlite:///{tmp_path / 'k.db'}"
    engine = store.open_engine(db)
    seed_games(engine)
    engine.dispose()
    command = [sys.executable, "-m", "kahuna", "admin", "archive", "--older-than", "0", "--batch", "2", "--db", db]
    primary, secondary = pty.openpty()  # standard error a terminal, as when a person runs it
    done = subprocess.run(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=secondary, timeout=120, check=False)
    os.close(secondary)
    drawn = b""
    while chunk := _read(primary):
        drawn += chunk
    os.close(primary)
    assert done.returncode == 0
    assert done.stdout.decode().startswith("kahuna admin archive: archived 7 finished games in ")
    assert drawn.count(b"\rarchiving [") == 4  # batches of 2, 2, 2 and 1
    assert drawn.endswith(b"] 7/7\r\n")


def _read(fd: int) -> bytes:
    try:
        return os.read(fd, 4096)
    except OSError:  # the terminal's other end is closed: all was read
        return b""


def test_migration_0024_shortens_the_digests_of_the_games_archived_before(tmp_path: Path) -> None:
    engine = store.open_engine(f"sqlite:///{tmp_path / 'k.db'}")
    check_seats_of_archived_games(engine)
    engine.dispose()


def check_seats_of_archived_games(engine: Engine) -> None:
    """The seats of the games archived by the code before 0024 keep their whole digests: going up
    to 0024 shortens those (``schema.games.short_digest``) and no others; every seat is still found
    by its token ("my games"), and an archived guest's seat is bound to an account at sign-in. On
    PostgreSQL ``rating_history`` has no primary key at 0024, and its key on ``id`` again at 0023."""
    seats = schema.seats
    seed_games(engine)
    whole = {(game_id, seat): digest(seat_token(game_id, seat)) for game_id in [*FINISHED, "guest"] for seat in (0, 1)}
    pg = engine.dialect.name == "postgresql"
    keys = sql("SELECT count(*) FROM pg_constraint WHERE conrelid = 'rating_history'::regclass AND contype = 'p'")
    with engine.begin() as conn:
        assert archive.archive_games(conn, FINISHED) == len(FINISHED)
        command.downgrade(migrations.config(conn), "0023")
    with engine.begin() as conn:
        assert not pg or conn.execute(keys).scalar() == 1
        for (game_id, seat), token in whole.items():  # as the code before 0024 left an archived game's seats
            conn.execute(update(seats).where(seats.c.game_id == game_id, seats.c.seat == seat).values(token=token))
    with engine.begin() as conn:
        command.upgrade(migrations.config(conn), "head")
    with engine.begin() as conn:
        assert not pg or conn.execute(keys).scalar() == 0
        held = {
            (game_id, seat): token
            for token, game_id, seat in conn.execute(select(*seats.c["token", "game_id", "seat"]))
        }
        assert held == {key: short_digest(token) if key[0] in FINISHED else token for key, token in whole.items()}
        found = store.seats_of_tokens(conn, list(whole.values()))
        assert sorted(found) == sorted((token, game_id, seat) for (game_id, seat), token in whole.items())
        assert archive.archive_games(conn, ["guest"]) == 1
        alice = conn.execute(select(schema.accounts.c.id).where(schema.accounts.c.username == "alice")).scalar_one()
        assert adopt_seats(conn, alice, [whole[("guest", 0)], whole[("done0", 0)]]) == 1  # done0's is bob's or hers
        owners = conn.execute(select(seats.c.account_id).where(seats.c.game_id == "guest").order_by(seats.c.seat))
        assert owners.scalars().all() == [alice, None]
        shortened = conn.execute(select(seats.c.token).where(seats.c.game_id == "guest").order_by(seats.c.seat))
        assert shortened.scalars().all() == [short_digest(whole[("guest", seat)]) for seat in (0, 1)]
