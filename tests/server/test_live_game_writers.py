"""Who writes a live game (docs/architecture.md, *Who writes a live game*): the engine alone writes
a ``LiveGame``'s fields (its state, clock, chat, offers, seats), and only the room's own methods
and the messages it renders write the transport's ``Room``.

Read from the source's syntax: any assignment, augmented assignment, deletion or mutating call
(``append``, ``add``, ``clear``…) whose target is an attribute named as one of the fields, on any
object but ``self``, in ``kahuna/server``. A write from anywhere else fails with its place.
"""

from __future__ import annotations

import ast
from dataclasses import fields
from pathlib import Path

from kahuna.server.games.live import LiveGame
from kahuna.server.games.room import Room

SERVER = Path(__file__).resolve().parents[2] / "kahuna" / "server"
MUTATORS = {"append", "add", "discard", "clear", "pop", "remove", "update", "extend", "insert", "setdefault"}

ENGINE = {"games/engine.py", "games/engine_core.py"}
GAME_WRITERS: dict[str, set[str]] = {"ai_task": {"games/ai_turns.py"}}
"""Beyond the engine: the AI's task is its scheduler's (``LocalAiTurns``), not a part of the game."""
ROOM_WRITERS: dict[str, set[str]] = {
    "syncs": {"games/outgoing.py"},
    "recent": {"games/outgoing.py"},
    "views": {"games/outgoing.py"},
    "replay": {"games/outgoing.py"},
    "left_claim_seconds": {"games/engine.py"},  # the setting, handed over as the game enters memory
}


def _written(tree: ast.AST) -> list[tuple[int, ast.Attribute]]:
    """Every attribute written in ``tree`` (not through ``self``), with its line."""
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
                if isinstance(one, ast.Attribute) and not (isinstance(one.value, ast.Name) and one.value.id == "self"):
                    found.append((one.lineno, one))
    return found


def _writes() -> list[tuple[str, int, ast.Attribute]]:
    return [
        (path.relative_to(SERVER).as_posix(), line, attribute)
        for path in sorted(SERVER.rglob("*.py"))
        for line, attribute in _written(ast.parse(path.read_text(encoding="utf-8")))
    ]


def test_only_the_engine_writes_a_live_game() -> None:
    game_fields = {f.name for f in fields(LiveGame)} - {"room", "lock"}
    wrong = [
        f"{module}:{line}: {ast.unparse(attribute)}"
        for module, line, attribute in _writes()
        if attribute.attr in game_fields
        and not (isinstance(attribute.value, ast.Attribute) and attribute.value.attr == "room")
        and module not in ENGINE | GAME_WRITERS.get(attribute.attr, set())
    ]
    assert wrong == []


def test_only_the_room_and_its_messages_write_the_room() -> None:
    room_fields = {f.name for f in fields(Room)}
    wrong = [
        f"{module}:{line}: {ast.unparse(attribute)}"
        for module, line, attribute in _writes()
        if attribute.attr in room_fields
        and isinstance(attribute.value, ast.Attribute)
        and attribute.value.attr == "room"
        and module not in ROOM_WRITERS.get(attribute.attr, set())
    ]
    assert wrong == []


def test_the_checks_see_a_write() -> None:
    """The scan finds the writes it must refuse (else the tests above would pass on nothing)."""
    tree = ast.parse("game.state = s\ngame.chat.append(line)\ngame.room.pins += 1\ngame.room.clients.add(c)")
    seen = {ast.unparse(attribute) for _, attribute in _written(tree)}
    assert seen == {"game.state", "game.chat", "game.room.pins", "game.room.clients"}
