"""The order in which the test files are handed out.

``make test`` runs the files in two processes, one file at a time each (pytest-xdist ``--dist
loadfile --no-loadscope-reorder``), and a process takes the next file when it is nearly done with
its own. Whichever process gets the last file decides when the run ends, so the costly files go
first and the cheap ones last: the browser tests (seconds each, most of the run), then the servers'
and the tools' and terminal's (which start processes), then the rules, AI, compiled core and
adapters (fractions of a second). Within a folder the files keep their order, and a file's tests
stay together in theirs. (xdist's own reordering, by the number of tests in a file, handed out the
single-test browser files, 15–45 s each, last.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

FIRST_TO_LAST = ("web", "server", "tools", "tui")
"""Folders of ``tests/`` by cost per file, costliest first; any other folder or file comes after."""

_TESTS = Path(__file__).parent


def _rank(item: pytest.Item) -> int:
    parts = item.path.relative_to(_TESTS).parts
    return FIRST_TO_LAST.index(parts[0]) if len(parts) > 1 and parts[0] in FIRST_TO_LAST else len(FIRST_TO_LAST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_rank)  # stable: the order within each folder is kept
