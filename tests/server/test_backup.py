"""``kahuna admin backup`` during play and ``kahuna admin restore`` into a new database: every
action acknowledged before the backup started is in it, and a server started on it resumes the
games (SQLite and PostgreSQL)."""

from __future__ import annotations

import asyncio
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from scale_harness import create_database, drop_database, pg_url
from server_harness import ROOT, Player, Server, run

__all__ = ["pg_url"]

pytestmark = pytest.mark.slow  # each starts two servers and the command: 13-28 s

GAMES = 3


def admin(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "kahuna", "admin", *args], cwd=ROOT, capture_output=True, text=True, timeout=120
    )


async def _play(server: Server, game: dict[str, object], acked: dict[str, int], stop: asyncio.Event, seed: int) -> None:
    """Play random actions in ``game`` until ``stop`` (or its end), keeping the last acknowledged version."""
    tokens = game["tokens"]
    assert isinstance(tokens, list)
    seats = {s: await Player.join(server, str(game["game_id"]), tokens[s]) for s in (0, 1)}
    rng = random.Random(seed)
    while not stop.is_set() and not seats[0].over:
        mover = seats[seats[0].last["view"]["to_move"]]
        await mover.reach(seats[0].version)
        ack = await mover.play(rng.choice(mover.last["legal"]))
        acked[str(game["game_id"])] = ack["version"]
        for seat in seats.values():
            await seat.reach(ack["version"])
    for seat in seats.values():
        await seat.conn.close()


def backup_during_play_then_restore(tmp: Path, source_db: str, target_db: str) -> None:
    server = Server(tmp / "live")
    (tmp / "live").mkdir()
    server.db = source_db
    backup_file = tmp / "kahuna.backup"
    try:
        server.start()
        games = [server.create(opponent="hotseat", seat="first") for _ in range(GAMES)]
        acked: dict[str, int] = {}
        stop = asyncio.Event()

        async def play_and_back_up() -> dict[str, int]:
            players = [asyncio.create_task(_play(server, g, acked, stop, i)) for i, g in enumerate(games)]
            while len(acked) < GAMES or min(acked.values()) < 10:
                await asyncio.sleep(0.02)
            before = dict(acked)  # acknowledged before the backup starts
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "kahuna", "admin", "backup", str(backup_file), "--db", source_db,
                cwd=ROOT, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            out, err = await process.communicate()
            assert process.returncode == 0, err.decode()
            assert b"kahuna admin backup: wrote" in out
            stop.set()
            await asyncio.gather(*players)
            return before

        before = run(play_and_back_up())
        assert sum(acked.values()) > sum(before.values())  # play went on during the backup
    finally:
        server.stop()

    restored = admin("restore", str(backup_file), "--db", target_db)
    assert restored.returncode == 0, restored.stderr
    again = Server(tmp / "restored")
    (tmp / "restored").mkdir()
    again.db = target_db
    try:
        again.start()

        async def resume() -> None:
            for game in games:
                game_id = str(game["game_id"])
                tokens = game["tokens"]
                assert isinstance(tokens, list)
                seats = {s: await Player.join(again, game_id, tokens[s]) for s in (0, 1)}
                assert seats[0].version >= before[game_id], (game_id, seats[0].version, before[game_id])
                assert seats[0].version <= acked[game_id]
                if seats[0].over:  # random play ended it before the backup (seed 3 did): nothing to resume
                    assert seats[0].last["view"]["to_move"] is None
                    continue
                mover = seats[seats[0].last["view"]["to_move"]]
                await mover.play(mover.last["legal"][0])  # the game goes on on the restored database
                for seat in seats.values():
                    await seat.conn.close()

        run(resume())
    finally:
        again.stop()


def test_a_sqlite_backup_taken_during_play_restores_and_resumes(tmp_path: Path) -> None:
    backup_during_play_then_restore(tmp_path, f"sqlite:///{tmp_path / 'live.db'}", f"sqlite:///{tmp_path / 'new.db'}")


@pytest.fixture
def second_pg() -> Iterator[str]:
    url = create_database()
    try:
        yield url
    finally:
        drop_database(url)


def test_a_postgresql_backup_taken_during_play_restores_and_resumes(
    tmp_path: Path, pg_url: str, second_pg: str
) -> None:
    backup_during_play_then_restore(tmp_path, pg_url, second_pg)


def test_restore_refuses_a_database_in_use_and_a_backup_of_the_other_kind(tmp_path: Path, pg_url: str) -> None:
    first = Server(tmp_path)  # a real server's database
    try:
        first.start()
    finally:
        first.stop()
    live = tmp_path / "kahuna.db"
    backup_file = tmp_path / "b.sqlite"
    assert admin("backup", str(backup_file), "--db", f"sqlite:///{live}").returncode == 0
    again = admin("backup", str(backup_file), "--db", f"sqlite:///{live}")
    assert (again.returncode, again.stderr) == (1, f"kahuna admin backup: {backup_file} exists: give a new file name\n")
    into_live = admin("restore", str(backup_file), "--db", f"sqlite:///{live}")
    assert (into_live.returncode, into_live.stderr) == (
        1,
        f"kahuna admin restore: {live} exists: restore into a new database\n",
    )
    into_pg = admin("restore", str(backup_file), "--db", pg_url)
    assert into_pg.returncode == 1
    assert "is not a backup of a PostgreSQL database" in into_pg.stderr
    missing = admin("backup", str(tmp_path / "x"), "--db", f"sqlite:///{tmp_path / 'none.db'}")
    assert (missing.returncode, missing.stderr) == (1, f"kahuna admin backup: no database at {tmp_path / 'none.db'}\n")
    assert not (tmp_path / "x").exists() and not (tmp_path / "x.partial").exists()
