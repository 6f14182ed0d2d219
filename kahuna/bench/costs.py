"""What a benchmark run cost the deployment under it: CPU time of named processes, PostgreSQL
commits, rows and WAL, Redis commands and messages, all per action.

``kahuna bench server --url … --pid NAME=PID --db URL --broker URL`` reads these counters before
and after the clients play; the difference divided by the actions played is the cost per action
that ``docs/scaling.md`` builds its capacity model from. The counters are the servers' own: CPU
from ``/proc/<pid>/stat``, ``pg_stat_database`` and ``pg_current_wal_lsn()``, Redis ``INFO``. They
count everything the servers did meanwhile, so the servers must serve nothing else (a private
PostgreSQL and Redis: ``deploy/run.sh --db … --broker …``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import Any

PG_STATS_SETTLE = 11.0
"""Seconds to wait before reading PostgreSQL's counters after a run: a backend that goes idle
reports its statistics within 10 s (PostgreSQL 15's idle flush interval), not at once."""


@dataclass
class Snapshot:
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds (user + system) of each named process."""
    main_thread_cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds of each named process's main thread alone: a server's event loop, which every
    connection waits for (its other threads: the database writer, reads, the AI)."""
    rss_mib: dict[str, float] = field(default_factory=dict)
    pg: dict[str, float] = field(default_factory=dict)
    redis: dict[str, float] = field(default_factory=dict)


def parse_pids(specs: list[str]) -> dict[str, int]:
    """``NAME=PID`` arguments (``ValueError`` names a bad one)."""
    pids: dict[str, int] = {}
    for spec in specs:
        name, sep, text = spec.partition("=")
        if not sep or not name or not text.isdigit():
            raise ValueError(f"--pid takes NAME=PID, not {spec!r}")
        pids[name] = int(text)
    return pids


def take(pids: dict[str, int], db_url: str | None, broker_url: str | None) -> Snapshot:
    """The counters now; each named process counts with its children (nginx's worker, an
    instance's AI processes), as they work for it."""
    snapshot = Snapshot()
    for name, pid in pids.items():
        tree = [pid, *descendants(pid)]
        cpu = tree_cpu_seconds(pid)
        if cpu is not None:
            snapshot.cpu[name] = cpu
        main = cpu_seconds(pid, thread=pid)
        if main is not None:
            snapshot.main_thread_cpu[name] = main
        rss = [mib for mib in map(rss_mib, tree) if mib is not None]
        if rss:
            snapshot.rss_mib[name] = sum(rss)
    if db_url is not None:
        snapshot.pg = _pg_counters(db_url)
    if broker_url is not None:
        snapshot.redis = _redis_counters(broker_url)
    return snapshot


def per_action(before: Snapshot, after: Snapshot, actions: int, games: int) -> dict[str, Any]:
    """The costs of the run: per action, and the database's growth per game created."""
    if actions <= 0:
        return {}
    out: dict[str, Any] = {}
    cpu = {name: after.cpu[name] - before.cpu[name] for name in after.cpu if name in before.cpu}
    if cpu:
        out["cpu_ms_per_action"] = {name: round(1000 * seconds / actions, 3) for name, seconds in cpu.items()}
        out["cpu_s"] = {name: round(seconds, 2) for name, seconds in cpu.items()}
    threads = [name for name in cpu if name in before.main_thread_cpu and name in after.main_thread_cpu]
    main = {name: after.main_thread_cpu[name] - before.main_thread_cpu[name] for name in threads}
    if main:
        out["main_thread_cpu_ms_per_action"] = {name: round(1000 * s / actions, 3) for name, s in main.items()}
    if after.rss_mib:
        out["rss_mib"] = {name: round(mib, 1) for name, mib in after.rss_mib.items()}
    if before.pg and after.pg:
        diff = {key: after.pg[key] - before.pg[key] for key in after.pg}
        out["pg_per_action"] = {
            "commits": round(diff["xact_commit"] / actions, 3),
            "rows_written": round((diff["tup_inserted"] + diff["tup_updated"] + diff["tup_deleted"]) / actions, 3),
            "wal_bytes": round(diff["wal_bytes"] / actions, 1),
        }
        if games > 0:
            out["pg_bytes_per_game"] = round(diff["size_bytes"] / games)
    if before.redis and after.redis:
        diff = {key: after.redis.get(key, 0) - before.redis.get(key, 0) for key in after.redis}
        out["redis_per_action"] = {
            "commands": round(diff["commands"] / actions, 3),
            "publish": round(diff["publish"] / actions, 3),
            "bytes_in": round(diff["bytes_in"] / actions, 1),
        }
    return out


def descendants(pid: int) -> list[int]:
    """The children of a process, their children, and so on (Linux ``/proc``)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
            children = [int(child) for child in fh.read().split()]
    except OSError:
        return []
    return [grandchild for child in children for grandchild in (child, *descendants(child))]


def cpu_seconds(pid: int, thread: int | None = None) -> float | None:
    """User + system CPU time of a process, or of one of its threads, from /proc (``None`` if it is
    not there)."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    try:
        with open(path, encoding="ascii") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def tree_cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process and its descendants (``None`` if none is there): a
    server's AI processes, or granian's worker (``kahuna.server.stacks``), work for it."""
    cpus = [cpu for cpu in map(cpu_seconds, [pid, *descendants(pid)]) if cpu is not None]
    return sum(cpus) if cpus else None


def rss_mib(pid: int) -> float | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as fh:
            kib = next(int(line.split()[1]) for line in fh if line.startswith("VmRSS:"))
    except (OSError, StopIteration):
        return None
    return kib / 1024


def _pg_counters(url: str) -> dict[str, float]:
    import psycopg

    plain = url.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute("SELECT pg_stat_clear_snapshot()")
        row = conn.execute(
            "SELECT xact_commit, tup_inserted, tup_updated, tup_deleted,"
            " pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0'), pg_database_size(current_database())"
            " FROM pg_stat_database WHERE datname = current_database()"
        ).fetchone()
    assert row is not None
    keys = ("xact_commit", "tup_inserted", "tup_updated", "tup_deleted", "wal_bytes", "size_bytes")
    return {key: float(value) for key, value in zip(keys, row, strict=True)}


def _redis_counters(url: str) -> dict[str, float]:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=3)
    try:
        stats: Any = client.info("stats")
        commands: Any = client.info("commandstats")
    finally:
        client.close()
    publish = commands.get("cmdstat_publish", {}).get("calls", 0)
    return {
        "commands": float(stats["total_commands_processed"]),
        "publish": float(publish),
        "bytes_in": float(stats["total_net_input_bytes"]),
    }


def settle(db_url: str | None) -> None:
    """Wait until PostgreSQL's counters include the run (see :data:`PG_STATS_SETTLE`)."""
    if db_url is not None:
        time.sleep(PG_STATS_SETTLE)
