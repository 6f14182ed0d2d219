"""Fixtures of the server tests (helpers live in server_harness.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from server_harness import Server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One server for the tests of a module (each test makes its own games)."""
    running = Server(tmp_path_factory.mktemp("server")).start()
    yield running
    running.stop()
