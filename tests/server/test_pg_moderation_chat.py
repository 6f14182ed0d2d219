"""Chat sanctions on two ``kahuna serve`` processes sharing one PostgreSQL database and one Redis
(issue 48): a chat mute made through instance A refuses the player's next line through instance B
(``muted``); a shadow-muted line written on A never reaches the opponent connected to B; a line
hidden through A is dropped by the opponent connected to B (``chat_hidden``) and is gone from B's
``sync``."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from scale_harness import pg_url, redis_url, start_instances, stop_all
from server_harness import Server
from test_accounts import csrf, signed_in
from test_moderation_chat import hello, made, sanction, synced_chat
from test_moderation_reports import lobby_game, say, until

from kahuna.cli import main

__all__ = ["pg_url", "redis_url"]

pytestmark = [
    pytest.mark.pg,
    pytest.mark.redis,
    pytest.mark.long,
]  # two instances: make test-all (docs/testing.md, *Markers*)


async def seen(ws: Any, text: str, known: tuple[str, ...] = ()) -> list[str]:
    """The chat ``ws`` shows (``known`` so far) once it has the line ``text``: lines come in
    ``chat`` frames, or in a ``sync`` when another instance's change (the clock started, …) made B
    reload the game from the database after the line was stored (its ``chat`` frame is then
    skipped as known)."""
    texts = list(known)
    while text not in texts:
        message = json.loads(await asyncio.wait_for(ws.recv(), 10))
        if message["type"] == "chat":
            texts.append(message["text"])
        elif message["type"] == "sync":
            texts = [line["text"] for line in message["chat"]]
    return texts


async def both_online(ws: Any) -> None:
    while (await until(ws, "presence"))["online"] != [True, True]:
        pass


@pytest.fixture
def pair(tmp_path: Path, pg_url: str, redis_url: str) -> Iterator[tuple[Server, Server]]:
    # The sign-ups' budget is shared through Redis, which outlives a run: refilled at once.
    limits = ("--limit", "signups_burst=100", "--limit", "signups_per_hour=360000")
    servers = start_instances(tmp_path, pg_url, ("--broker", redis_url, *limits))
    yield servers[0], servers[1]
    stop_all(servers)


def test_a_mute_and_a_hidden_line_made_on_one_instance_hold_on_the_other(pair: tuple[Server, Server]) -> None:
    a, b = pair
    ann, bob, mia = signed_in(a, "ann"), signed_in(a, "bob"), signed_in(a, "mia")
    assert main(["admin", "grant", "mia", "moderator", "--db", a.db]) == 0
    game_id, black, white = lobby_game(ann, bob)

    async def scenario() -> None:
        on_a, on_b = f"{a.ws_url}/ws/{game_id}", f"{b.ws_url}/ws/{game_id}"
        opponent, author = await hello(on_b, ann, black), await hello(on_a, bob, white)
        for ws in (opponent, author):
            await until(ws, "sync")
        # B follows the game once A's presence reaches it (B's subscription is live: a line stored
        # on A before that would not be sent to B's connections; the presence heartbeat is 15 s).
        await asyncio.wait_for(both_online(opponent), 30)
        assert (await say(author, "hello"))["line_id"] == 0
        assert await seen(opponent, "hello") == ["hello"]  # on B, from A

        mute = made(sanction(mia, username="bob", kind="chat_mute", minutes=10))  # through A
        async with await hello(on_b, bob, white) as author_on_b:
            await until(author_on_b, "sync")
            refused: dict[str, Any] = await say(author_on_b, "let me talk")
            assert (refused["type"], refused["code"]) == ("error", "muted")
        assert mia.delete(f"/api/mod/sanctions/{mute}", headers=csrf(mia)).status_code == 204

        shadow = made(sanction(mia, username="bob", kind="shadow_mute", minutes=10))
        assert (await say(author, "spam"))["line_id"] == 1  # accepted on A, shown to bob only
        assert mia.delete(f"/api/mod/sanctions/{shadow}", headers=csrf(mia)).status_code == 204
        assert (await say(author, "you idiot"))["line_id"] == 2
        assert await seen(opponent, "you idiot", ("hello",)) == ["hello", "you idiot"]  # B never got "spam"

        body = {"kind": "hide_line", "game_id": game_id, "line_id": 2}
        made(sanction(mia, username="bob", **body))  # through A
        hidden = await asyncio.wait_for(until(opponent, "chat_hidden"), 10)  # on B
        assert hidden == {"type": "chat_hidden", "line_id": 2}
        assert await until(author, "chat_hidden") == {"type": "chat_hidden", "line_id": 2}
        assert await synced_chat(on_b, ann, black) == ["hello"]
        assert await synced_chat(on_b, bob, white) == ["hello", "spam"]
        for ws in (opponent, author):
            await ws.close()

    asyncio.run(scenario())
    for browser in (ann, bob, mia):
        browser.close()
