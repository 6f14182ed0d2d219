"""Who writes a live game (docs/architecture.md, *Who writes a live game*): the engine alone writes
a ``LiveGame``'s fields (its state, clock, chat, offers, seats), and only the room's own methods
and the messages it renders write the transport's ``Room``.

Read from the source's syntax: any assignment, augmented assignment, deletion or mutating call
(``append``, ``add``, ``clear``…) whose target is an attribute named as one of the fields, on any
object but ``self``, in ``kahuna/server``; a room reached through a local name counts as the room
(``room = game.room`` then ``room.pins += 1``). A write from anywhere else fails with its place, and
so does a write by name or through the instance's dict (``setattr``, ``delattr``, ``__dict__``,
``vars``), which the scan could not place.
"""

from __future__ import annotations

import ast
from dataclasses import fields
from functools import cache
from pathlib import Path

from kahuna.server.games.live import LiveGame
from kahuna.server.games.room import Room

SERVER = Path(__file__).resolve().parents[2] / "kahuna" / "server"
MUTATORS = {"append", "add", "discard", "clear", "pop", "remove", "update", "extend", "insert", "setdefault"}
BY_NAME = {"setattr", "delattr", "__setattr__", "__delattr__"}

ENGINE = {"games/engine.py", "games/engine_core.py"}
ROOM_WRITERS: dict[str, set[str]] = {
    "syncs": {"games/outgoing.py"},
    "recent": {"games/outgoing.py"},
    "views": {"games/outgoing.py"},
    "public": {"games/outgoing.py"},
    "replay": {"games/outgoing.py"},
}
"""Beyond the room's own methods: its caches, filled by the messages it renders."""

GAME_FIELDS = {f.name for f in fields(LiveGame)} - {"room", "lock"}
ROOM_FIELDS = {f.name for f in fields(Room)}


def _is_self(node: ast.expr) -> bool:
    return isinstance(node, ast.Name) and node.id == "self"


def _rooms(tree: ast.AST) -> set[str]:
    """The local names bound to a game's room in ``tree`` (``room = game.room``)."""
    names = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign | ast.AnnAssign | ast.NamedExpr):
            continue
        if isinstance(node.value, ast.Attribute) and node.value.attr == "room":
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {target.id for target in targets if isinstance(target, ast.Name)}
    return names


def _written(tree: ast.AST) -> list[tuple[int, ast.Attribute, bool]]:
    """Every attribute written in ``tree`` (not through ``self``), with its line and whether it is
    a room's (``game.room.x``, or ``room.x`` through a local name bound to a room)."""
    rooms = _rooms(tree)
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign | ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            targets = [node.func.value]
        for target in targets:
            for one in target.elts if isinstance(target, ast.Tuple) else [target]:
                while isinstance(one, ast.Subscript):
                    one = one.value
                if isinstance(one, ast.Attribute) and not _is_self(one.value):
                    owner = one.value
                    on_room = (isinstance(owner, ast.Attribute) and owner.attr == "room") or (
                        isinstance(owner, ast.Name) and owner.id in rooms
                    )
                    found.append((one.lineno, one, on_room))
    return found


def _by_name(tree: ast.AST) -> list[tuple[int, ast.expr]]:
    """Every write by name of one of the fields (or of a name the source does not spell), and every
    use of an instance's dict, on any object but ``self``."""
    found: list[tuple[int, ast.expr]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "__dict__" and not _is_self(node.value):
            found.append((node.lineno, node))
        if not isinstance(node, ast.Call) or not node.args:
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        if name == "vars" and not _is_self(node.args[0]):
            found.append((node.lineno, node))
        elif name in BY_NAME and len(node.args) > 1 and not _is_self(node.args[0]):
            field = node.args[1]
            named = field.value if isinstance(field, ast.Constant) and isinstance(field.value, str) else None
            if named is None or named in GAME_FIELDS | ROOM_FIELDS:
                found.append((node.lineno, node))
    return found


@cache
def _trees() -> list[tuple[str, ast.AST]]:
    return [
        (path.relative_to(SERVER).as_posix(), ast.parse(path.read_text(encoding="utf-8")))
        for path in sorted(SERVER.rglob("*.py"))
    ]


def _writes() -> list[tuple[str, int, ast.Attribute, bool]]:
    return [(module, *write) for module, tree in _trees() for write in _written(tree)]


def test_only_the_engine_writes_a_live_game() -> None:
    wrong = [
        f"{module}:{line}: {ast.unparse(attribute)}"
        for module, line, attribute, on_room in _writes()
        if attribute.attr in GAME_FIELDS and not on_room and module not in ENGINE
    ]
    assert wrong == []


def test_only_the_room_and_its_messages_write_the_room() -> None:
    wrong = [
        f"{module}:{line}: {ast.unparse(attribute)}"
        for module, line, attribute, on_room in _writes()
        if attribute.attr in ROOM_FIELDS and on_room and module not in ROOM_WRITERS.get(attribute.attr, set())
    ]
    assert wrong == []


def test_nothing_writes_either_by_name() -> None:
    """``setattr`` or an instance's dict would write a field where the scans above cannot see it."""
    wrong = [f"{module}:{line}: {ast.unparse(node)}" for module, tree in _trees() for line, node in _by_name(tree)]
    assert wrong == []


def test_the_checks_see_a_write() -> None:
    """The scans find the writes they must refuse (else the tests above would pass on nothing)."""
    tree = ast.parse(
        "game.state = s\ngame.chat.append(line)\ngame.room.pins += 1\ngame.room.clients.add(c)\n"
        "room = game.room\nroom.left_at[0] = None\n"
    )
    seen = {(ast.unparse(attribute), on_room) for _, attribute, on_room in _written(tree)}
    assert seen == {
        ("game.state", False), ("game.chat", False), ("game.room.pins", True), ("game.room.clients", True),
        ("room.left_at", True),
    }  # fmt: skip
    tree = ast.parse(
        "setattr(game, 'state', s)\nsetattr(room, name, 1)\ngame.__dict__['chat'] = []\nvars(game).update(x)\n"
        "object.__setattr__(game, 'clock', c)\nsetattr(self, 'state', s)\nsetattr(options, 'verbose', True)\n"
    )
    assert sorted(line for line, _ in _by_name(tree)) == [1, 2, 3, 4, 5]
