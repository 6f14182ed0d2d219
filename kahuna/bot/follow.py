"""A client's side of protocols 2 and 3 (docs/protocol.md, *Protocol 2* and *Protocol 3*): the
view of the last ``sync``, brought up to date by each ``update``.

A protocol-2 ``update`` carries the action, its events and what changed in the recipient's view; a
protocol-3 one only what its events do not say of it (:mod:`kahuna.rules.view_patch`).
:class:`Follower` turns each ``sync`` and ``update`` back into the message protocol 1 sends (the
whole view, every field), so that the rest of a client reads whole views and never knows which
protocol it speaks. It tells the three apart by the update itself (``view``: 1, ``changed``: 2,
neither: 3), so that it follows whichever a server answers its ``hello`` with (an older server
speaks 2 at most). The browser's ``web/js/delta.js`` does the same in JavaScript.
"""

from __future__ import annotations

import copy
from typing import Any

from kahuna.rules.view_patch import expected, patched

PROTOCOL = 3
"""The protocol version these clients ask for in ``hello``."""

DEFAULTS: dict[str, Any] = {"legal": [], "why_not": {}, "status": "playing", "result": None, "can_take_back": False}
"""The fields a protocol-2 or -3 ``update`` leaves out when they have these values."""


class OutOfStep(Exception):
    """An ``update`` that does not follow the view held (none held, or versions missed): the client
    asks for a ``sync`` (``hello`` with version ``null``) and waits for it."""


def apply(view: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """The view after ``update``, a new object (``view`` is left as it was): protocol 2's
    ``changed`` or protocol 3's ``patch`` applied (to the view as protocol 3's events leave it),
    and the update's ``action`` added to ``history``. A protocol-1 update (a whole ``view``) is
    its own answer."""
    if "view" in update:
        whole: dict[str, Any] = update["view"]
        return whole
    if "changed" in update:
        after: dict[str, Any] = patched(view, update["changed"])
    else:
        after = patched(expected(view, update["events"]), update.get("patch", {}))
    after["history"] = [*view["history"], update["action"]]
    return after


class Follower:
    """The game as one connection sees it: the version and view of the last message followed."""

    def __init__(self) -> None:
        self.version: int | None = None
        self.view: dict[str, Any] | None = None

    def follow(self, message: dict[str, Any]) -> dict[str, Any] | None:
        """``message`` (a ``sync`` or an ``update``) as protocol 1 would have sent it; ``None`` for an
        update already followed (a catch-up may repeat one that arrived meanwhile); raises
        :class:`OutOfStep` for an update that skips a version."""
        if message["type"] == "update" and "view" not in message:
            if self.view is None or self.version is None or message["version"] > self.version + 1:
                raise OutOfStep(f"update {message['version']} after version {self.version}")
            if message["version"] <= self.version:
                return None
            message = whole_update(self.view, message)
        self.version, self.view = message["version"], message["view"]
        return message


def whole_update(view: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """The protocol-1 form of a protocol-2 or -3 ``update`` that follows ``view``: the whole view in
    place of ``changed`` or ``patch``, ``seat_acted`` (protocol 3 leaves out the seat that was to
    move), and each field left out back at its default."""
    out = {"type": update["type"], "version": update["version"], "seat_acted": view["to_move"]}
    out.update((key, value) for key, value in update.items() if key not in ("changed", "patch"))
    out["view"] = apply(view, update)
    for key, default in DEFAULTS.items():
        if key not in out:
            out[key] = copy.copy(default)  # empty containers: a fresh one each time
    return out
