"""The push queue on PostgreSQL: a notice queued twice for a device (two instances seeing the same
turn) is one row, and a claimed row is not claimed again while its lease holds."""

from __future__ import annotations

import pytest
from scale_harness import pg_url
from sqlalchemy import func, select

from kahuna.server.db import schema
from kahuna.server.db.store import open_engine
from kahuna.server.push import queue, subscriptions

pytestmark = [pytest.mark.pg]
__all__ = ["pg_url"]


def test_a_notice_is_queued_once_per_device_and_claimed_once(pg_url: str) -> None:
    engine = open_engine(pg_url)
    try:
        with engine.begin() as conn:
            account = conn.execute(
                schema.accounts.insert().values(
                    username="pgpush", username_key="pgpush", created="2026-01-01T00:00:00Z", is_bot=False
                )
            ).inserted_primary_key
            assert account is not None
            for n in range(2):
                added = subscriptions.subscribe(conn, account[0], f"https://push.example.com/{n}", "k", "a", 0.0, 10)
                assert added is not None
        payload = {"kind": "your_turn", "game": "G", "opponent": "Ann", "url": "/play/G#seat:1"}
        with engine.begin() as conn:
            assert queue.enqueue(conn, account[0], "your_turn:G:3", payload, 100.0, 3600.0, 20) == 2
        with engine.begin() as conn:
            assert queue.enqueue(conn, account[0], "your_turn:G:3", payload, 101.0, 3600.0, 20) == 0
            assert conn.execute(select(func.count()).select_from(schema.push_queue)).scalar_one() == 2
        with engine.begin() as conn:
            first = queue.claim(conn, 102.0, 10)
        with engine.begin() as conn:
            assert queue.claim(conn, 103.0, 10) == []  # the lease holds
        assert [push.payload for push in first] == [payload, payload] and first[0].attempts == 1
        with engine.begin() as conn:
            assert len(queue.claim(conn, 102.0 + queue.LEASE_SECONDS + 1, 10)) == 2  # a dead sender's lease ended
    finally:
        engine.dispose()
