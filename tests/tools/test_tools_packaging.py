"""What the package installs: the product and nothing of the contributors' tools (no attack,
probe, fuzzing or differential harness: those live in tools/), and every library it imports
declared as a dependency of the core install or of an extra."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from importlib.metadata import packages_distributions
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


def _name(requirement: str) -> str:
    match = re.match(r"[A-Za-z0-9_.\-]+", requirement)
    assert match is not None, requirement
    return re.sub(r"[-_.]+", "-", match.group()).lower()


def _module_imports(path: Path) -> set[str]:
    """The top-level packages a module imports when it is loaded (its module-level imports)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            found.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found.add(node.module.partition(".")[0])
    return found - {"kahuna", "__future__"} - set(sys.stdlib_module_names)


def test_every_imported_library_is_declared() -> None:
    """A library imported at module level is a dependency of the core install or of an extra
    other than ``dev`` (the contributors' tools): never only there, nor only pulled in by another."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = {_name(r) for r in project["dependencies"]}
    for extra, requirements in project["optional-dependencies"].items():
        if extra != "dev":
            declared |= {_name(r) for r in requirements}
    distributions = packages_distributions()
    undeclared = sorted(
        f"{path.relative_to(ROOT)}: {module}"
        for path in (ROOT / "kahuna").rglob("*.py")
        for module in _module_imports(path)
        if not {_name(d) for d in distributions.get(module, [module])} & declared
    )
    assert undeclared == []
