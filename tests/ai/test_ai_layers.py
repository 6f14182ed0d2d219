"""Layers point one way: rules ← ai ← envs/server/tui, checked on the source of every module.

``kahuna.rules`` imports nothing from ``kahuna`` outside itself; ``kahuna.ai`` builds on the rules
only, never on ``kahuna.envs``, the server or the terminal UI. Imports are read from each file's
syntax tree (also those inside functions), and so are module paths written as strings (such as a
``"module:function"`` factory), which would make the same dependency at run time.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import kahuna

PACKAGE = Path(kahuna.__file__).parent
FORBIDDEN = {
    "rules": re.compile(r"^kahuna(\.|$)(?!rules(\.|$))"),
    "ai": re.compile(r"^kahuna\.(envs|server|tui)(\.|$)"),
}
MODULE_PATH = re.compile(r"^kahuna(\.\w+)+(:\w+)?$")


def package_of(path: Path) -> str:
    """The package a file's relative imports start from."""
    parts = path.relative_to(PACKAGE.parent).parts
    return ".".join(parts[:-1])


def dependencies(source: str, package: str) -> list[tuple[int, str]]:
    """(line, module) for every import in ``source`` and every string that names a kahuna module."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against the file's package
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found.append((node.lineno, target))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_PATH.match(node.value):
            found.append((node.lineno, node.value.partition(":")[0]))
    return found


def violations(layer: str) -> list[str]:
    rule = FORBIDDEN[layer]
    files = sorted((PACKAGE / layer).rglob("*.py"))
    assert files, f"no modules found under kahuna/{layer}"
    return [
        f"{path.relative_to(PACKAGE.parent)}:{line}: {target}"
        for path in files
        for line, target in dependencies(path.read_text(encoding="utf-8"), package_of(path))
        if rule.match(target)
    ]


@pytest.mark.parametrize("layer", sorted(FORBIDDEN))
def test_layer_imports_point_one_way(layer: str) -> None:
    assert violations(layer) == []


def test_the_check_sees_imports_strings_and_relative_imports() -> None:
    """The scanner itself: each way of depending on a module is found, and docs are not imports."""
    source = (
        "import kahuna.envs.codec\n"
        "from kahuna.server import api\n"
        "def f() -> None:\n"
        "    from ..tui import play\n"
        'FACTORY = "kahuna.envs.openspiel_agent:make"\n'
        '"""Docs may say kahuna.envs freely."""\n'
    )
    found = sorted(target for _, target in dependencies(source, "kahuna.ai"))
    assert found == ["kahuna.envs.codec", "kahuna.envs.openspiel_agent", "kahuna.server", "kahuna.tui"]
    assert all(FORBIDDEN["ai"].match(t) for t in found)
    assert FORBIDDEN["rules"].match("kahuna.ai.base") and FORBIDDEN["rules"].match("kahuna")
    assert not FORBIDDEN["rules"].match("kahuna.rules.board") and not FORBIDDEN["ai"].match("kahuna.rules")
