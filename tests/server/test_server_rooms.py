"""The server's rooms keep their shape (docs/architecture.md), checked on the source of every module.

The rooms stand in floors (``FLOORS``), and a module imports only from rooms on floors below its
own; no module imports itself back through others (no circle), none is over 500 lines, only the HTTP
layer builds FastAPI routers, ``kahuna worker`` reaches no HTTP module, the game core reaches
neither the community (ratings subscribe to the end hook instead) nor the cluster (its
collaborators are given to it), and the HTTP layer neither imports the database room nor looks
anything up in ``app.state`` (each router is given its area's service at assembly). Imports inside
functions and ``TYPE_CHECKING`` blocks count too.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import kahuna.server

SERVER = Path(kahuna.server.__file__).parent
PACKAGE = "kahuna.server"
MAX_LINES = 500


def _module_name(path: Path) -> str:
    parts = path.relative_to(SERVER.parent.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(path): path for path in sorted(SERVER.rglob("*.py"))}


def _imports(name: str) -> Iterator[str]:
    """The server modules that module ``name`` imports (a package's module named in ``from P import M``)."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(
                    [*package.split(".")[: len(package.split(".")) - node.level + 1], *filter(None, [base])]
                )
            targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in MODULES:
                target = target.rpartition(".")[0]
            if target and target != name and target != PACKAGE:
                yield target


GRAPH = {name: set(_imports(name)) for name in MODULES}


def _reach(start: str) -> set[str]:
    seen: set[str] = set()
    todo = [start]
    while todo:
        for target in GRAPH[todo.pop()]:
            if target not in seen:
                seen.add(target)
                todo.append(target)
    return seen


FLOORS = [
    ["ops"],
    ["common"],
    ["db", "serve_config"],
    ["accounts"],
    ["games"],
    ["cluster", "push"],
    ["community"],
    ["fairplay", "puzzles"],
    ["mail", "moderation", "wiring"],
    ["notify"],
    ["http", "admin", "assembly"],
    ["app", "run_worker", "stacks"],
    ["serve"],
]
"""The rooms of ``kahuna/server`` from the bottom up (a room is a folder, or a module directly in
it), as docs/architecture.md draws them: a room uses the rooms below it and is used by those above."""


def _room(name: str) -> str:
    return name.removeprefix(f"{PACKAGE}.").split(".")[0]


def test_every_room_has_a_floor() -> None:
    floored = [room for floor in FLOORS for room in floor]
    assert sorted({_room(name) for name in MODULES if name != PACKAGE}) == sorted(floored)


def test_a_room_imports_only_from_the_floors_below_it() -> None:
    floor_of = {room: n for n, floor in enumerate(FLOORS) for room in floor}
    upward = sorted(
        f"{name} -> {target}"
        for name in MODULES
        if name != PACKAGE
        for target in GRAPH[name]
        if _room(target) != _room(name) and floor_of[_room(target)] >= floor_of[_room(name)]
    )
    assert upward == []


def test_no_module_imports_itself_back() -> None:
    assert [name for name in MODULES if name in _reach(name)] == []


def test_no_module_is_over_500_lines() -> None:
    long = {name: n for name, path in MODULES.items() if (n := len(path.read_text().splitlines())) > MAX_LINES}
    assert long == {}


def test_only_the_http_layer_builds_routers() -> None:
    builders = {name for name, path in MODULES.items() if "APIRouter" in path.read_text()}
    assert builders and all(name.startswith(f"{PACKAGE}.http.") for name in builders), builders


def test_the_worker_reaches_no_http_module() -> None:
    for worker in (f"{PACKAGE}.run_worker", f"{PACKAGE}.assembly", f"{PACKAGE}.cluster.worker"):
        assert sorted(m for m in _reach(worker) if m.startswith(f"{PACKAGE}.http")) == [], worker


def test_the_game_core_knows_neither_the_community_nor_the_cluster_nor_http() -> None:
    games = [name for name in MODULES if name.startswith(f"{PACKAGE}.games")]
    above = (f"{PACKAGE}.community", f"{PACKAGE}.cluster", f"{PACKAGE}.http", f"{PACKAGE}.app")
    assert {name: sorted(t for t in GRAPH[name] if t.startswith(above)) for name in games} == {n: [] for n in games}


def test_operations_are_a_bottom_room() -> None:
    """Every room may record a metric or offer a readiness check: ``ops`` imports no other room."""
    ops = [name for name in MODULES if name.startswith(f"{PACKAGE}.ops")]
    assert ops and {name: sorted(t for t in GRAPH[name] if not t.startswith(f"{PACKAGE}.ops")) for name in ops} == {
        n: [] for n in ops
    }


def test_the_check_sees_each_kind_of_import() -> None:
    """The scanner itself: plain, from-package, relative and function-level imports are all seen."""
    replication = GRAPH[f"{PACKAGE}.cluster.replication"]
    assert f"{PACKAGE}.games.live" in replication and f"{PACKAGE}.cluster.redis_broker" in replication  # TYPE_CHECKING
    assert f"{PACKAGE}.cluster.redis_broker" in GRAPH[f"{PACKAGE}.assembly"]  # inside a function
    assert f"{PACKAGE}.db.store" in GRAPH[f"{PACKAGE}.games.engine"]  # from kahuna.server.db import store


def test_the_http_layer_is_given_its_services() -> None:
    """Each HTTP area's router is given its room's service at assembly: no ``http/`` module imports
    the database room (its writer, tables or readers) nor looks a collaborator up in ``app.state``."""
    http = [name for name in MODULES if name.startswith(f"{PACKAGE}.http")]
    to_db = {name: sorted(t for t in GRAPH[name] if t.startswith(f"{PACKAGE}.db")) for name in http}
    state = sorted(name for name in http if "app.state" in MODULES[name].read_text(encoding="utf-8"))
    print(f"{len(http)} http modules: {sum(map(len, to_db.values()))} imports of db, {len(state)} read app.state")
    assert (to_db, state) == ({name: [] for name in http}, [])
