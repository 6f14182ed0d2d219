"""Dependencies point one way, checked on the source of every module of ``kahuna``.

Each package and top-level module of ``kahuna`` (a *unit*) may import only the units
:data:`ALLOWED` lists for it; the list covers every unit, and its graph has no circle, so neither
has the package's. Inside :mod:`kahuna.ai` the same holds for its parts (:data:`AI_ALLOWED`): the
spec helpers, the agent interface and the level table at the bottom, the agents above them, the
registry that makes agents from specs above the agents, and the measuring, reviewing, training and
command parts on top. No module anywhere takes part in an import circle with other modules.

Imports are read from each file's syntax tree (also those inside functions), and so are module
paths written as strings (such as a ``"module:function"`` factory), which make the same dependency
at run time (not a module's own package named for its resources).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

import kahuna

PACKAGE = Path(kahuna.__file__).parent
ROOT = PACKAGE.parent

ALLOWED: dict[str, set[str]] = {
    "rules": set(),
    "clock": set(),
    "progress": set(),
    "datadir": set(),
    "narrate": {"rules"},
    "fast": {"rules"},
    "replay": {"rules", "fast"},
    "ai": {"rules", "fast", "clock", "progress", "narrate"},
    "envs": {"rules", "fast", "ai"},
    "tui": {"rules", "ai", "clock", "narrate", "datadir"},
    "bot": {"rules", "ai"},
    "bench": {"rules", "fast", "clock", "ai", "envs", "bot", "progress", "server"},
    "server": {"rules", "ai", "clock", "narrate", "datadir", "progress"},
    "cli": {"replay", "tui", "ai", "server", "bot", "bench"},
    "__main__": {"cli"},
    "__init__": set(),
}
"""What each unit of ``kahuna`` may import besides itself (``ai`` never the envs, the server or the
terminal UI: adapters to other libraries join its registry through an entry point; ``bench`` the
server, whose own stack the transport floor runs without the game: ``kahuna bench server --floor``;
the server the progress bar, for ``kahuna puzzles``, whose ``generate --db`` reads its store)."""

AI_ALLOWED: dict[str, set[str]] = {
    "spec": set(),
    "base": set(),
    "levels": set(),
    "budget": set(),
    "timed": {"base", "budget"},
    "agents": {"base", "spec", "budget"},
    "registry": {"base", "spec", "levels", "agents", "budget"},
    "review": {"base", "agents", "registry"},
    "eval": {"base", "spec", "timed", "agents", "registry", "review"},
    "training": {"base", "spec", "agents", "registry", "eval"},
    "puzzles": {"base", "levels", "agents", "registry", "review"},
    "commands": {"base", "spec", "levels", "timed", "agents", "registry", "review", "eval", "training"},
    "__init__": {"base"},
}
"""What each part of :mod:`kahuna.ai` may import from the others."""

MODULE_PATH = re.compile(r"^kahuna(\.\w+)+(:\w+)?$")


def module_of(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@functools.cache
def exists(module: str) -> bool:
    """Whether ``module`` names a module or package of ``kahuna`` (or a name inside one)."""
    parts = module.split(".")
    while len(parts) > 1:
        base = ROOT.joinpath(*parts)
        if base.with_suffix(".py").is_file() or (base / "__init__.py").is_file():
            return True
        parts.pop()
    return False


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
            # ``from package import module`` depends on the module; any other name, on the package.
            modules = [f"{target}.{alias.name}" for alias in node.names if exists(f"{target}.{alias.name}")]
            found.extend((node.lineno, module) for module in modules)
            if len(modules) < len(node.names):
                found.append((node.lineno, target))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and MODULE_PATH.match(node.value):
            module = node.value.partition(":")[0]
            if exists(module) and not (package + ".").startswith(module + "."):  # not its own package (resources)
                found.append((node.lineno, module))
    return found


@functools.cache
def sources() -> list[tuple[Path, str, list[tuple[int, str]]]]:
    """Every module of the package: its path, its name and the kahuna modules it depends on."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        package = module_of(path) if path.name == "__init__.py" else module_of(path).rpartition(".")[0]
        deps = dependencies(path.read_text(encoding="utf-8"), package)
        found.append(
            (path, module_of(path), [(line, t) for line, t in deps if t == "kahuna" or t.startswith("kahuna.")])
        )
    return found


def unit(module: str, depth: int = 1) -> str:
    """The unit a module belongs to: its package (or top-level module) ``depth`` levels below kahuna."""
    parts = module.split(".")
    return parts[depth] if len(parts) > depth else "__init__"


def violations(allowed: dict[str, set[str]], inside: str = "kahuna") -> list[str]:
    depth = inside.count(".") + 1
    found = []
    for path, module, deps in sources():
        if not (module + ".").startswith(inside + "."):
            continue
        mine = unit(module, depth)
        for line, target in deps:
            if not (target + ".").startswith(inside + "."):
                continue
            theirs = unit(target, depth)
            if theirs != mine and theirs not in allowed[mine]:
                found.append(f"{path.relative_to(ROOT)}:{line}: {target}")
    return found


def units(inside: Path) -> set[str]:
    """The packages and modules directly inside ``inside`` that hold Python code."""
    return {p.stem for p in inside.glob("*.py")} | {p.name for p in inside.iterdir() if any(p.rglob("*.py"))}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected parts of more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            part = []
            while True:
                top = stack.pop()
                part.append(top)
                if top == node:
                    break
            if len(part) > 1:
                found.append(sorted(part))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


@functools.cache
def module_graph() -> dict[str, set[str]]:
    """Module → the kahuna modules it depends on (a name imported from a package counts as the
    module defining it when it is one, else as the package)."""
    modules = {module for _, module, _ in sources()}
    graph: dict[str, set[str]] = {}
    for _, module, deps in sources():
        targets = set()
        for _, target in deps:
            while target not in modules and "." in target:
                target = target.rpartition(".")[0]
            targets.add(target)
        graph[module] = targets - {module}
    return graph


def test_every_unit_is_listed() -> None:
    assert units(PACKAGE) == set(ALLOWED)
    assert units(PACKAGE / "ai") == set(AI_ALLOWED)


def test_the_allowed_layers_have_no_circle() -> None:
    assert circles(ALLOWED) == [] and circles(AI_ALLOWED) == []


@pytest.mark.parametrize("layer", sorted(set(ALLOWED) - {"__init__", "__main__"}))
def test_layer_imports_point_one_way(layer: str) -> None:
    assert [v for v in violations(ALLOWED) if v.startswith((f"kahuna/{layer}/", f"kahuna/{layer}.py"))] == []


def test_the_parts_of_ai_point_one_way() -> None:
    assert violations(AI_ALLOWED, inside="kahuna.ai") == []


@pytest.mark.parametrize("layer", sorted(set(ALLOWED) - {"__init__", "__main__"}))
def test_no_module_is_in_an_import_circle(layer: str) -> None:
    inside = [c for c in circles(module_graph()) if any(unit(m) == layer for m in c)]
    assert inside == []


def test_the_check_sees_imports_strings_and_relative_imports() -> None:
    """The scanner itself: each way of depending on a module is found; docs and strings that name
    no module are not imports."""
    source = (
        "import kahuna.envs.codec\n"
        "from kahuna.server import api\n"
        "def f() -> None:\n"
        "    from ..tui import play\n"
        'FACTORY = "kahuna.envs.openspiel_agent:make"\n'
        'GROUP = "kahuna.agents"\n'
        'DATA = "kahuna.ai"\n'
        '"""Docs may say kahuna.envs freely."""\n'
    )
    found = sorted(target for _, target in dependencies(source, "kahuna.ai"))
    assert found == ["kahuna.envs.codec", "kahuna.envs.openspiel_agent", "kahuna.server.api", "kahuna.tui.play"]
    assert unit("kahuna.ai.agents.ismcts") == "ai" and unit("kahuna.ai.agents.ismcts", 2) == "agents"
    assert unit("kahuna") == "__init__" and unit("kahuna.clock") == "clock"
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert violations({"x": set()}, inside="kahuna.nothing") == []
