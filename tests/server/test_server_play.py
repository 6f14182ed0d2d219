"""Whole games over WebSockets against a real server, and what each recipient may see."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from server_harness import ROOT, Player, Server, connect, play_random, run

from kahuna.rules import GameRecord


async def _play_against_ai(me: Player, rng: random.Random) -> None:
    while not me.over:
        legal = me.last["legal"]
        if legal:
            await me.play(legal[rng.randrange(len(legal))])
        else:
            me.last = await me.conn.until(lambda m: m["type"] in ("update", "sync"))


def _updates(player: Player) -> list[dict[str, Any]]:
    return [m for m in map(json.loads, player.conn.texts) if m["type"] == "update"]


def test_whole_game_against_the_ai(server: Server) -> None:
    created = server.create(opponent="ai", level="random", seat="second", name="Alice")
    game_id = created["game_id"]

    async def scenario() -> None:
        me = await Player.join(server, game_id, created["token"])
        watcher = await Player.join(server, game_id)
        await _play_against_ai(me, random.Random(1))
        await watcher.reach(me.version)
        assert watcher.last["view"]["result"] == me.last["view"]["result"]
        for update in _updates(me):
            assert update["view"]["hand"] is not None
            if update["seat_acted"] == 0 and update["action"].startswith("-"):
                assert update["action"] == "-?" and update["events"][0]["card"] is None
        watched = _updates(watcher)
        assert all(u["view"]["hand"] is None for u in watched)
        replay = server.get(f"/api/games/{game_id}/replay").json()
        assert replay["players"] == ["Kahuna AI (random)", "Alice"] and replay["result"] == me.last["view"]["result"]
        keys = ("version", "seat_acted", "action", "events", "view")
        assert len(replay["steps"]) == me.version + 1 and len(watched) >= me.version - 10
        for update in watched:  # the spectator's stream (it connected after the AI's first moves)
            step = replay["steps"][update["version"]]
            assert {k: step[k] for k in keys} == {k: update[k] for k in keys}
            assert sorted(step) == sorted([*keys, "hands", "close"])  # and, the game being over, both hands
        assert replay["steps"][0]["view"]["history"] == [] and replay["steps"][0]["view"]["hand"] is None
        late = await me.conn.state()
        await me.conn.send(type="action", action="pass", version=late["version"], id="late")
        error = await me.conn.until(lambda m: m["type"] == "error")
        assert error["code"] == "game_over" and error["id"] == "late"

    run(scenario())
    summary = server.get(f"/api/games/{game_id}").json()
    assert summary["status"] == "over" and summary["to_move"] is None
    record = GameRecord.from_json(server.get(f"/api/games/{game_id}/record").json())
    final = record.replay()
    assert final.outcome is not None and final.outcome.to_json() == summary["result"]
    assert len(record.actions) == summary["version"]
    assert record.players == ["Kahuna AI (random)", "Alice"]


def test_whole_game_between_two_humans_by_invite(server: Server) -> None:
    created = server.create(opponent="human", seat="first", name="Alice")
    game_id = created["game_id"]
    invite = created["invite_url"].removeprefix("/join/")

    async def scenario() -> None:
        alice = await Player.join(server, game_id, created["token"])
        assert alice.last["status"] == "waiting" and alice.last["legal"] == []
        await alice.conn.send(type="action", action="pass", version=0, id="early")
        early = await alice.conn.until(lambda m: m["type"] == "error")
        assert early["code"] == "not_your_turn"
        joined = server.post(f"/api/join/{invite}", {"name": "Bob"}).json()
        alice.last = await alice.conn.until(lambda m: m["type"] == "sync")
        assert alice.last["status"] == "playing" and alice.last["players"] == ["Alice", "Bob"]
        bob = await Player.join(server, game_id, joined["token"])
        watcher = await Player.join(server, game_id)
        await play_random({0: alice, 1: bob}, [watcher], random.Random(2), None)
        assert alice.last["view"]["result"] == bob.last["view"]["result"] == watcher.last["view"]["result"]
        seen_by = [alice.last["view"]["history"], bob.last["view"]["history"], watcher.last["view"]["history"]]
        for by_alice, by_bob, by_watcher in zip(*seen_by, strict=True):
            if by_alice != by_bob:  # a face-down discard: only its owner sees the card
                assert "-?" in (by_alice, by_bob) and by_watcher == "-?"
            else:
                assert by_watcher == by_alice

    run(scenario())
    assert server.get(f"/api/games/{game_id}").json()["status"] == "over"


def test_spectator_cannot_act_and_bad_tokens_are_refused(server: Server) -> None:
    created = server.create(opponent="hotseat", seat="first")
    game_id = created["game_id"]

    async def scenario() -> None:
        watcher = await connect(server, game_id)
        await watcher.send(type="action", action="pass", version=0, id="w")
        error = await watcher.until(lambda m: m["type"] == "error")
        assert error["code"] == "forbidden" and error["id"] == "w"
        intruder = await connect(server, game_id, token="not-a-token", hello=False)
        await intruder.hello(None)
        refused = await intruder.recv()
        assert refused["code"] == "forbidden"
        other = server.create(opponent="hotseat")
        wrong_game = await connect(server, game_id, token=other["token"], hello=False)
        await wrong_game.hello(None)
        assert (await wrong_game.recv())["code"] == "forbidden"
        nowhere = await connect(server, "no-such-game", hello=False)
        assert (await nowhere.recv())["code"] == "not_found"

    run(scenario())


def test_the_log_holds_no_secret(server: Server) -> None:
    created = server.create(opponent="human", seat="second", name="Alice")
    invite = created["invite_url"].removeprefix("/join/")
    joined = server.post(f"/api/join/{invite}", {"name": "Bob"}).json()
    tokens = [joined["token"], created["token"]]

    async def scenario() -> None:
        seats = {s: await Player.join(server, created["game_id"], tokens[s]) for s in (0, 1)}
        await play_random(seats, [], random.Random(10), 25)
        await seats[0].conn.send(type="action", action="-A", version=0)  # rejected: its token is not logged

    run(scenario())
    log = server.log()
    assert f'"game_id":"{created["game_id"]}"' in log and '"event":"action"' in log
    for secret in [*tokens, invite]:
        assert secret not in log
    assert re.search(r'"action":"-[A-L]"', log) is None  # face-down discards appear as -?
    assert '"path":"/api/join/{invite}"' in log


def test_page_routes_serve_the_web_app(server: Server) -> None:
    index = (ROOT / "kahuna" / "web" / "index.html").read_bytes()
    for path in ("/", "/play/abc", "/join/xyz", "/watch/abc", "/replay/abc", "/rules"):
        response = server.get(path)
        assert response.status_code == 200 and response.content == index, path
    asset = next(p for p in sorted((ROOT / "kahuna" / "web").rglob("*")) if p.is_file() and p.name != "index.html")
    static = server.get("/static/" + asset.relative_to(ROOT / "kahuna" / "web").as_posix())
    assert static.status_code == 200 and static.content == asset.read_bytes()
