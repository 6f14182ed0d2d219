"""The presence snapshots of several instances in one Redis hash (``kahuna serve --broker``).

Each instance writes its snapshot (``presence.Presence.snapshot``, stamped with its clock) under
its own field of one hash (:func:`key`, named after the database the instances share: two
clusters on one Redis do not count each other) and reads every field back in the same round trip; a field not
refreshed for ``presence.STALE_AFTER`` seconds belongs to an instance that died and is removed.
The stamps are compared with the reader's clock, so the instances' clocks must agree within a
second or two (NTP); a hash of one field per instance, whatever the number of connections.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from kahuna.server.cluster.presence import STALE_AFTER


def key(db_url: str) -> str:
    """The hash of the instances sharing the database ``db_url`` (its URL's digest: no password in Redis)."""
    return "kahuna:presence:" + hashlib.sha256(db_url.encode()).hexdigest()[:16]


class RedisShare:
    def __init__(self, client: Any, instance: str, db_url: str) -> None:
        self.client = client
        self.instance = instance
        self.key = key(db_url)

    async def exchange(self, mine: dict[str, Any]) -> list[dict[str, Any]]:
        now = time.time()
        async with self.client.pipeline(transaction=False) as pipe:
            pipe.hset(self.key, self.instance, json.dumps({**mine, "at": now}, separators=(",", ":")))
            pipe.hgetall(self.key)
            _, stored = await pipe.execute()
        alive: list[dict[str, Any]] = []
        stale: list[str] = []
        for instance, text in stored.items():
            snapshot = json.loads(text)
            if snapshot.get("at", 0) >= now - STALE_AFTER:
                alive.append(snapshot)
            else:
                stale.append(instance)
        if stale:
            await self.client.hdel(self.key, *stale)
        return alive
