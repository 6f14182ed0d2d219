"""An installed wheel holds the product and nothing of the contributors' tools: no attack, probe,
fuzzing or differential harness (those live in tools/, next to the tests that run them)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).parent.parent.parent
HARNESSES = ("attacks", "probes", "fuzz", "differential")


def test_the_wheel_holds_no_tool(tmp_path: Path) -> None:
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    shutil.copytree(ROOT / "kahuna", source / "kahuna", ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd"))
    # No compiler (the extension is optional): the test is about which files are packaged, and
    # the build then takes seconds.
    env = {**os.environ, "CC": "false"}
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path / "dist"), str(source)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    (wheel,) = (tmp_path / "dist").glob("kahuna-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    modules = [name for name in names if name.endswith(".py")]
    assert "kahuna/bench/engine.py" in modules and "kahuna/bench/server.py" in modules
    assert "kahuna/fast/state.py" in modules and "kahuna/rules/state.py" in modules
    assert [m for m in modules if any(word in Path(m).stem for word in HARNESSES)] == []
    assert [name for name in names if name.startswith(("tools/", "tests/"))] == []
