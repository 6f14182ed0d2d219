"""Fair play's claims and automatic reports on PostgreSQL (``test_fair_play.py`` runs the same on
SQLite): a game screened once whoever claims it, a killed screener's claim lapsing, an open
report updated rather than doubled."""

from __future__ import annotations

import pytest
from scale_harness import pg_url
from test_fair_play import claims_and_reports

__all__ = ["pg_url"]

pytestmark = pytest.mark.pg


def test_a_game_is_screened_once_and_reported_once_on_postgresql(pg_url: str) -> None:
    claims_and_reports(pg_url)
