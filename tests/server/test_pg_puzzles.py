"""Puzzles' rows on PostgreSQL (``test_puzzles.py`` runs the same on SQLite): loading the shipped
set twice, the daily puzzle, an answer counted once, the nearest unanswered puzzles, the history."""

from __future__ import annotations

import pytest
from scale_harness import pg_url
from test_puzzles import store_round

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg


def test_the_store_on_postgresql(pg_url: str) -> None:
    store_round(pg_url)
