"""Protocol edges against a real server: every kind of rejected message, and reconnecting."""

from __future__ import annotations

import json
import random
from typing import Any

from server_harness import Conn, Player, Server, connect, play_random, run

from kahuna.bot.follow import Follower
from kahuna.rules import ALL_ACTIONS
from kahuna.rules.reasons import MESSAGES


async def _snapshot(server: Server, game_id: str, tokens: list[str]) -> list[dict[str, Any]]:
    """What each seat and a spectator get on a fresh connection, and the public summary."""
    out = []
    for token in [*tokens, None]:
        conn = await connect(server, game_id, token, hello=False)
        out.append(await conn.state())
        await conn.close()
    out.append(server.get(f"/api/games/{game_id}").json())
    return out


async def _error(conn: Conn) -> dict[str, Any]:
    return await conn.until(lambda m: m["type"] == "error")


def test_rejected_messages_leave_the_game_untouched(server: Server) -> None:
    created = server.create(opponent="hotseat", seat="first")
    game_id, tokens = created["game_id"], created["tokens"]

    async def scenario() -> None:
        seats = {s: await Player.join(server, game_id, tokens[s]) for s in (0, 1)}
        await play_random(seats, [], random.Random(3), 9)
        before = await _snapshot(server, game_id, tokens)
        mover = seats[seats[0].last["view"]["to_move"]]
        waiter = seats[1 - seats[0].last["view"]["to_move"]]
        version = mover.version
        legal = set(mover.last["legal"])
        illegal = next(a.token for a in ALL_ACTIONS if a.token not in legal)
        conn = mover.conn

        malformed: list[str | bytes] = [
            "{not json",
            "[1, 2]",
            json.dumps({"type": "shout"}),
            json.dumps({"type": "action", "action": "pass", "id": "no-version"}),
            json.dumps({"type": "action", "action": "pass", "version": str(version)}),
            json.dumps({"type": "action", "action": "pass", "version": True}),
            json.dumps({"type": "action", "action": "Z>Q", "version": version, "id": "bad-token"}),
            json.dumps({"type": "action", "action": "pass", "version": version, "pad": "x" * 5000}),
            b"\x00\x01binary",
        ]
        for frame in malformed:
            await conn.send_raw(frame)
            assert (await _error(conn))["code"] == "malformed", frame
        await conn.send(type="action", action=illegal, version=version - 1, id="s")
        assert await _error(conn) == {
            "type": "error",
            "code": "stale_version",
            "message": f"you are at version {version - 1}, the game is at version {version}",
            "id": "s",
        }
        await waiter.conn.send(type="action", action="pass", version=version, id="t")
        turn = await _error(waiter.conn)
        assert turn["code"] == "not_your_turn" and turn["id"] == "t"
        await conn.send(type="action", action=illegal, version=version, id="i")
        refused = await _error(conn)
        assert refused["code"] == "illegal" and refused["message"] and refused["id"] == "i"
        assert refused["reason"]["code"] in MESSAGES  # machine-readable, for clients to translate
        watcher = await connect(server, game_id)
        await watcher.send(type="action", action=sorted(legal)[0], version=version)
        assert (await _error(watcher))["code"] == "forbidden"
        await conn.send(type="ping")
        assert (await conn.until(lambda m: m["type"] != "presence")) == {"type": "pong"}
        assert await _snapshot(server, game_id, tokens) == before
        ack = await mover.play(sorted(legal)[0], msg_id="ok")
        assert ack == {"type": "ack", "id": "ok", "version": version + 1}

    run(scenario())


def test_reconnect_gets_the_missed_updates_or_a_sync(server: Server) -> None:
    created = server.create(opponent="hotseat", seat="first")
    game_id, tokens = created["game_id"], created["tokens"]

    async def scenario() -> None:
        seats = {s: await Player.join(server, game_id, tokens[s]) for s in (0, 1)}
        live = {s: await Player.join(server, game_id, tokens[s] if s is not None else None) for s in (1, None)}
        await play_random(seats, list(live.values()), random.Random(4), 5)
        left_at = seats[0].version
        marks = {s: len(p.conn.texts) for s, p in live.items()}
        await play_random(seats, list(live.values()), random.Random(5), 12)
        now = seats[0].version
        for seat, player in live.items():
            missed = [t for t in player.conn.texts[marks[seat] :] if json.loads(t)["type"] == "update"]
            assert len(missed) == now - left_at
            back = await connect(server, game_id, tokens[seat] if seat is not None else None, hello=False)
            await back.hello(left_at)
            caught_up = [await back.recv() for _ in missed]
            assert back.texts == missed  # byte for byte what a connected client got
            assert [m["version"] for m in caught_up] == list(range(left_at + 1, now + 1))
            for stale in (None, now, now + 50, -3):
                await back.send(type="hello", version=stale)
                sync = await back.until(lambda m: m["type"] != "presence")
                assert sync["type"] == "sync" and sync["version"] == now
            await back.close()

    run(scenario())


def test_protocol_2_and_3_clients_follow_and_catch_up_to_what_protocol_1_reads(server: Server) -> None:
    """Over the socket: a spectator saying ``"protocol": 4`` is spoken protocol 3 (what this server
    knows), and one saying 2 protocol 2 (a browser tab older than 3); their updates followed
    (``kahuna.bot.follow``) are the messages a protocol-1 spectator reads, live (3) and in a
    catch-up (2); a protocol below 1 is ``malformed``."""
    created = server.create(opponent="hotseat", seat="first")
    game_id, tokens = created["game_id"], created["tokens"]

    async def follow_to(
        conn: Conn, follower: Follower, version: int, old: dict[int, dict[str, Any]], protocol: int
    ) -> None:
        while follower.version is None or follower.version < version:
            delta = await conn.until(lambda m: m["type"] == "update")
            assert "view" not in delta and ("changed" in delta) == (protocol == 2)
            assert follower.follow(delta) == old[delta["version"]]

    async def scenario() -> None:
        seats = {s: await Player.join(server, game_id, tokens[s]) for s in (0, 1)}
        old = await Player.join(server, game_id)
        new = await connect(server, game_id, hello=False)
        await new.send(type="hello", protocol=4, version=None)
        follower = Follower()
        follower.follow(await new.until(lambda m: m["type"] == "sync"))
        await play_random(seats, [old], random.Random(6), 8)
        left_at = seats[0].version
        await play_random(seats, [old], random.Random(7), 9)
        now = seats[0].version
        updates = {m["version"]: m for m in map(json.loads, old.conn.texts) if m["type"] == "update"}
        await follow_to(new, follower, now, updates, 3)
        back = await connect(server, game_id, hello=False)
        await back.send(type="hello", protocol=0, version=None)
        assert (await _error(back))["code"] == "malformed"
        await back.send(type="hello", protocol=2, version=left_at)
        behind = Follower()
        behind.follow({**updates[left_at], "type": "sync"})  # the view it holds from version left_at
        await follow_to(back, behind, now, updates, 2)
        assert behind.view == follower.view == old.last["view"]
        await back.close()
        await new.close()

    run(scenario())


FOLLOWERS = ("island_claimed", "bridge_returned", "stone_lost", "round_scored", "final_turns_began", "game_over")


def _follows(event: dict[str, Any]) -> bool:
    """An event beyond the action itself that may be foreseen (the variant's replacing bridge too)."""
    return event["type"] in FOLLOWERS or (event["type"] == "bridge_built" and event["card"] is None)


async def _foreseen(conn: Conn, version: int) -> dict[str, Any]:
    """Ask what the referee foresees at ``version``: its ``foreseen`` message, or the ``error``."""
    await conn.send(type="foresee", version=version, id="f")
    return await conn.until(lambda m: m["type"] == "foreseen" or (m["type"] == "error" and m.get("id") == "f"))


def test_what_the_referee_foresees_is_what_happens(server: Server) -> None:
    """The ``foresee`` message (issue 53): the seat to move gets its legal actions that cause more than
    themselves with those events, exactly the events that follow when one is played; the other seat
    and a spectator get the same close islands and no actions; one answer per version and connection."""
    created = server.create(opponent="hotseat", seat="first")
    game_id, tokens = created["game_id"], created["tokens"]

    async def scenario() -> tuple[int, int]:
        seats = {s: await Player.join(server, game_id, tokens[s]) for s in (0, 1)}
        watcher = await Player.join(server, game_id)
        rng = random.Random(8)
        asked = played = 0
        while played < 3 and not seats[0].over:
            mover = seats[seats[0].last["view"]["to_move"]]
            version = mover.version
            answer = await _foreseen(mover.conn, version)
            asked += 1
            assert answer["type"] == "foreseen" and answer["version"] == version, answer
            assert set(answer["actions"]) <= set(mover.last["legal"])
            for other in (seats[1 - mover.last["view"]["to_move"]], watcher):
                await other.reach(version)
                theirs = await _foreseen(other.conn, version)
                assert theirs["actions"] == {} and theirs["close"] == answer["close"], theirs
            assert (await _foreseen(mover.conn, version))["code"] == "already_sent"
            assert (await _foreseen(mover.conn, version - 1))["code"] == "stale_version"
            if answer["actions"]:  # play one that causes something: the update has those events
                token = sorted(answer["actions"])[rng.randrange(len(answer["actions"]))]
                await mover.play(token)
                events = [e for e in mover.last["events"] if _follows(e)]
                assert events == answer["actions"][token], (token, mover.last["events"])
                played += 1
            else:
                legal = mover.last["legal"]
                await mover.play(legal[rng.randrange(len(legal))])
            for player in [*seats.values(), watcher]:
                await player.reach(mover.version)
        return asked, played

    asked, played = run(scenario())
    print(f"foresee: {asked} versions asked, {played} foreseen actions played and matched")
    assert played == 3
