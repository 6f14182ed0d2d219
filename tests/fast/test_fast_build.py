"""The optional build: present whenever a C compiler is, and the selector's rules."""

from __future__ import annotations

import shutil
import sysconfig

import pytest

from kahuna import fast


def test_extension_is_built_when_a_compiler_is_present() -> None:
    compiler = (sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        pytest.skip(f"no C compiler ({compiler}) on this machine: the pure-Python core is the one")
    assert fast.available(), "a C compiler is present but kahuna.fast._core was not built (see pip's output)"


def test_selector(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KAHUNA_CORE", "python")
    assert fast.selected_core() == "python"
    assert fast.selected_core("python") == "python"
    monkeypatch.delenv("KAHUNA_CORE")
    assert fast.selected_core() == ("fast" if fast.available() else "python")
    with pytest.raises(ValueError, match="unknown core"):
        fast.selected_core("turbo")
    if fast.available():
        assert fast.selected_core("fast") == "fast"
    else:
        with pytest.raises(fast.CoreUnavailableError):
            fast.selected_core("fast")
