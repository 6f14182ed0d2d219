"""A client's side of protocol 2 (docs/protocol.md, *Protocol 2*): the view of the last ``sync``,
brought up to date by each ``update``'s changes.

A protocol-2 ``update`` carries the action, its events and only what changed in the recipient's
view; :class:`Follower` turns each ``sync`` and ``update`` back into the message protocol 1 sends
(the whole view, every field), so that the rest of a client reads whole views and never knows which
protocol it speaks. The browser's ``web/js/delta.js`` does the same in JavaScript.
"""

from __future__ import annotations

import copy
from typing import Any

PROTOCOL = 2
"""The protocol version these clients ask for in ``hello``."""

MERGED = ("bridges", "stones", "unseen")
"""The view's maps whose changes list only the keys whose value changed."""

DEFAULTS: dict[str, Any] = {"legal": [], "why_not": {}, "status": "playing", "result": None, "can_take_back": False}
"""The fields a protocol-2 ``update`` leaves out when they have these values."""


class OutOfStep(Exception):
    """An ``update`` that does not follow the view held (none held, or versions missed): the client
    asks for a ``sync`` (``hello`` with version ``null``) and waits for it."""


def apply(view: dict[str, Any], update: dict[str, Any]) -> dict[str, Any]:
    """The view after ``update``, a new object (``view`` is left as it was): each changed field set,
    the maps of :data:`MERGED` merged key by key, and the update's ``action`` added to ``history``.
    A protocol-1 update (a whole ``view``) is its own answer."""
    if "view" in update:
        whole: dict[str, Any] = update["view"]
        return whole
    after = dict(view)
    for key, value in update["changed"].items():
        after[key] = {**view[key], **value} if key in MERGED else value
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
    """The protocol-1 form of a protocol-2 ``update`` that follows ``view``: the whole view in place
    of ``changed``, and each field left out back at its default."""
    out = {key: value for key, value in update.items() if key != "changed"}
    out["view"] = apply(view, update)
    for key, default in DEFAULTS.items():
        if key not in out:
            out[key] = copy.copy(default)  # empty containers: a fresh one each time
    return out
