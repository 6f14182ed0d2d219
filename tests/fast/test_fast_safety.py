"""The extension never crashes on bad input (fuzzed in process, and under AddressSanitizer and
UndefinedBehaviorSanitizer in a fresh build) and does not grow over many games."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
from core_fuzz import fuzz, memory

from kahuna.fast import core_module

pytestmark = pytest.mark.needs_core

ROOT = Path(__file__).parent.parent.parent
SOURCES = sorted((ROOT / "kahuna" / "fast" / "src").glob("*.c"))
"""Every unit of the extension, as setup.py builds it."""


def test_fuzz_in_process() -> None:
    tally = fuzz(core_module(), rounds=150, seed=1)
    assert tally["accepted"] > 1000 and tally["refused"] > 1000


def _sanitizer_libraries() -> list[str]:
    libraries = []
    for name in ("libasan.so", "libubsan.so"):
        found = subprocess.run(["gcc", f"-print-file-name={name}"], capture_output=True, text=True).stdout.strip()
        if not os.path.isabs(found):
            return []
        libraries.append(found)
    return libraries


@pytest.mark.long  # the sanitizer build: test_fuzz_in_process fuzzes the same core in make test
@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux" or shutil.which("gcc") is None, reason="needs gcc on Linux")
def test_fuzz_under_address_sanitizer(tmp_path: Path) -> None:
    libraries = _sanitizer_libraries()
    if not libraries:
        pytest.skip("gcc has no AddressSanitizer runtime here")
    built = tmp_path / "_core_asan.so"
    include = sysconfig.get_paths()["include"]
    flags = ["-O1", "-g", "-fno-omit-frame-pointer", "-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
    subprocess.run(
        [
            "gcc",
            *flags,
            "-ffp-contract=off",
            "-std=c99",
            "-fPIC",
            "-shared",
            f"-I{include}",
            *map(str, SOURCES),
            "-o",
            str(built),
        ],
        check=True,
        timeout=120,
    )
    env = dict(os.environ, LD_PRELOAD=" ".join(libraries), ASAN_OPTIONS="detect_leaks=0:abort_on_error=1")
    done = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "core_fuzz.py"), "--rounds", "400", "--seed", "2", "--so", str(built)],
        capture_output=True,
        text=True,
        timeout=240,
        env=env,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "fuzz: 400 rounds" in done.stdout
    assert "ERROR: AddressSanitizer" not in done.stderr and "runtime error" not in done.stderr


@pytest.mark.long  # a memory soak of 100,000 games
@pytest.mark.slow
def test_memory_does_not_grow() -> None:
    """100,000 games here; `python tools/core_fuzz.py --memory 1000000` is the million-game run."""
    after_tenth, at_end = memory(core_module(), 100_000, seed=4)
    assert at_end - after_tenth < 2048
