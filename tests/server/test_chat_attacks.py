"""A game's chat under attack, against a real server: a spectator without a
token who reconnects again and again, and spectators from many addresses filling their room. The
players must always be able to talk.

Each test prints the figure it measured (``figure: ...``; ``pytest -s`` shows it)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from server_harness import Conn, Server, connect, run

pytestmark = pytest.mark.slow  # hundreds of connections and stored lines: seconds


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    # The chat's own limits stay at their defaults; the per-address budgets of the HTTP API are
    # wide so that creating the games of the module is never what is refused.
    limits = ("games_burst=1000", "joins_burst=1000", "reads_burst=1000")
    args = tuple(arg for limit in limits for arg in ("--limit", limit))
    running = Server(tmp_path_factory.mktemp("chat-attacks"), args=args).start()
    yield running
    running.stop()


async def say(conn: Conn, text: str, msg_id: str) -> dict[str, object]:
    """Send a chat line; the answer to it (``ack``, or an ``error``)."""
    await conn.send(type="chat", text=text, id=msg_id)
    return await conn.until(lambda m: m["type"] in ("ack", "error") and m.get("id") == msg_id)


async def say_until_refused(conn: Conn, prefix: str, most: int) -> tuple[int, str]:
    """Send lines until one is refused (at most ``most``): how many were stored, and the refusal's code."""
    for n in range(most):
        answer = await say(conn, f"{prefix} {n}", f"{prefix}-{n}")
        if answer["type"] == "error":
            return n, str(answer["code"])
    return most, ""


def test_a_spectator_reconnecting_cannot_fill_the_chat_and_silence_the_players(server: Server) -> None:
    game = server.create(opponent="hotseat", seat="first", name="Ana")
    reconnects = 100

    async def scenario() -> tuple[int, dict[str, object]]:
        stored = 0
        for attempt in range(reconnects):
            spectator = await connect(server, game["game_id"])  # no token: a spectator
            lines, _ = await say_until_refused(spectator, f"spam{attempt}", 10)
            stored += lines
            await spectator.close()
        player = await connect(server, game["game_id"], game["tokens"][0])
        answer = await say(player, "can you hear me?", "player")
        await player.close()
        return stored, answer

    began = time.monotonic()
    stored, answer = run(scenario())
    took = time.monotonic() - began
    print(f"figure: a spectator reconnecting {reconnects} times stored {stored} lines; the player's line: {answer}")
    assert answer["type"] == "ack", answer
    # What the chat's limit lets through, however long the run took: the burst of 5, and 10 a minute.
    assert stored <= 5 + 10 * took / 60


def test_spectators_from_many_addresses_fill_their_own_room_never_the_players(server: Server) -> None:
    game = server.create(opponent="hotseat", seat="first", name="Ana")
    addresses = [f"127.0.{1 + n // 200}.{1 + n % 200}" for n in range(110)]

    async def scenario() -> tuple[int, str, dict[str, object], list[dict[str, object]]]:
        stored, refusal = 0, ""
        for n, address in enumerate(addresses):
            spectator = await connect(server, game["game_id"], local=address)
            lines, code = await say_until_refused(spectator, f"crowd{n}", 5)
            stored += lines
            refusal = code or refusal
            await spectator.close()
        player = await connect(server, game["game_id"], game["tokens"][0])
        answer = await say(player, "still here", "player")
        other = await connect(server, game["game_id"], game["tokens"][1])
        heard = (await other.state())["chat"]
        for conn in (player, other):
            await conn.close()
        return stored, refusal, answer, heard

    stored, refusal, answer, heard = run(scenario())
    crowd = f"{len(addresses)} spectator addresses stored {stored} lines (then {refusal!r})"
    print(f"figure: {crowd}; the player's line: {answer}")
    assert answer["type"] == "ack", answer
    assert refusal == "chat_full" and stored == 200  # the spectators' room is full at 200 lines
    assert [line["text"] for line in heard] == ["still here"]  # the players' room: theirs only
