"""The compiled-core tests run when the extension is built; they are skipped without it, unless
``KAHUNA_CORE=fast`` asks for it (then its absence fails). ``test_fast_build.py`` fails when a C
compiler is present but the extension was not built, so a broken build cannot hide as skips."""

from __future__ import annotations

import os

import pytest

from kahuna import fast


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "needs_core: the test needs the compiled core")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if fast.available() or os.environ.get("KAHUNA_CORE", "").strip().lower() == "fast":
        return
    skip = pytest.mark.skip(reason="the compiled core (kahuna.fast._core) is not built")
    for item in items:
        if "tests/fast/" in str(item.fspath).replace(os.sep, "/") and "needs_core" in item.keywords:
            item.add_marker(skip)
