"""Durability and secrecy against a real server: SIGKILL mid-game, and the two-worlds test."""

from __future__ import annotations

import random
import re
from pathlib import Path

from server_harness import Player, Server, play_random, run

from kahuna.rules import GameRecord, GameState
from kahuna.rules.board import LETTERS


def _record(server: Server, game_id: str) -> GameRecord:
    return GameRecord.from_json(server.get(f"/api/games/{game_id}/record").json())


def test_sigkill_mid_game_loses_no_acknowledged_action(tmp_path: Path) -> None:
    first = Server(tmp_path).start()
    hotseat = first.create(opponent="hotseat", seat="first")
    versus_ai = first.create(opponent="ai", level="random", seat="second")
    acked: dict[str, list[str]] = {hotseat["game_id"]: [], versus_ai["game_id"]: []}

    async def before_the_crash() -> None:
        seats = {s: await Player.join(first, hotseat["game_id"], hotseat["tokens"][s]) for s in (0, 1)}
        rng = random.Random(6)
        for _ in range(30):
            mover = seats[seats[0].last["view"]["to_move"]]
            await mover.reach(seats[0].version)
            legal = mover.last["legal"]
            token = legal[rng.randrange(len(legal))]
            await mover.play(token)
            acked[hotseat["game_id"]].append(token)
            for seat in seats.values():
                await seat.reach(len(acked[hotseat["game_id"]]))
        me = await Player.join(first, versus_ai["game_id"], versus_ai["token"])
        while len(acked[versus_ai["game_id"]]) < 10:
            if me.last["legal"]:
                await me.play(me.last["legal"][0])
            else:
                me.last = await me.conn.until(lambda m: m["type"] in ("update", "sync"))
            acked[versus_ai["game_id"]] = list(me.last["view"]["history"])
        # One more action in flight when the server dies: it may or may not have been stored.
        mover = seats[seats[0].last["view"]["to_move"]]
        await mover.conn.send(type="action", action=mover.last["legal"][0], version=mover.version, id="lost?")

    run(before_the_crash())
    first.kill()
    second = Server(tmp_path).start()
    try:

        async def after_the_restart() -> None:
            seats = {s: await Player.join(second, hotseat["game_id"], hotseat["tokens"][s]) for s in (0, 1)}
            assert seats[0].version >= len(acked[hotseat["game_id"]])
            await play_random(seats, [], random.Random(7), None)
            me = await Player.join(second, versus_ai["game_id"], versus_ai["token"])
            while not me.over:  # the AI resumes its turns by itself
                if me.last["legal"]:
                    await me.play(me.last["legal"][0])
                else:
                    me.last = await me.conn.until(lambda m: m["type"] in ("update", "sync"))

        run(after_the_restart())
        hot = _record(second, hotseat["game_id"])
        assert hot.actions[: len(acked[hotseat["game_id"]])] == acked[hotseat["game_id"]]
        assert hot.replay().is_over
        versus = _record(second, versus_ai["game_id"])
        seen_by_white = ["-?" if seat == 0 and token.startswith("-") else token for token, seat in _actors(versus)]
        assert seen_by_white[: len(acked[versus_ai["game_id"]])] == acked[versus_ai["game_id"]]
        assert versus.replay().is_over
        assert '"resumed_games":2' in second.log()
    finally:
        second.stop()


def _actors(record: GameRecord) -> list[tuple[str, int]]:
    """Each action of a record with the seat that made it."""
    state = record.start()
    out = []
    for token in record.actions:
        out.append((token, state.to_move))
        state.apply(token)
    return out


def _two_worlds(seed: int) -> tuple[str, str]:
    """Two deals that differ only in Black's first card and the bottom card of the deck."""
    rng = random.Random(seed)
    cards = [ch for ch in LETTERS for _ in range(2)]
    while True:
        rng.shuffle(cards)
        if cards[0] != cards[23]:
            other = cards[:]
            other[0], other[23] = other[23], other[0]
            return "".join(cards), "".join(other)


def _common_script(deal_a: str, deal_b: str, rng: random.Random, limit: int) -> list[str]:
    """Tokens legal in both worlds, stopping before the differing deck card could surface."""
    worlds = [GameState.from_deal(deal_a), GameState.from_deal(deal_b)]
    script: list[str] = []
    while len(script) < limit and all(w.round == 1 and w.deck_size > 3 for w in worlds):
        common = sorted({a.token for a in worlds[0].legal_actions()} & {a.token for a in worlds[1].legal_actions()})
        if worlds[0].to_move == 1:
            assert common == [a.token for a in worlds[0].legal_actions()]
        token = common[rng.randrange(len(common))]
        for world in worlds:
            world.apply(token)
        script.append(token)
    return script


def test_two_worlds_differing_in_hidden_cards_look_the_same_to_white_and_spectators(tmp_path: Path) -> None:
    deal_a, deal_b = _two_worlds(8)
    script = _common_script(deal_a, deal_b, random.Random(9), 40)
    assert len(script) >= 20
    server = Server(tmp_path, deals=[deal_a, deal_b]).start()
    try:
        clock = {"days": 3}  # the clocks and the chat go through the same messages
        games = [server.create(opponent="hotseat", seat="first", name="Alice", clock=clock) for _ in range(2)]

        async def chat(player: Player, text: str) -> None:
            await player.conn.send(type="chat", text=text, id="c")
            answer = await player.conn.until(lambda m: m["type"] in ("ack", "error") and m["id"] == "c")
            assert answer["type"] == "ack", answer

        async def play(game: dict[str, str | list[str]]) -> list[list[str]]:
            game_id = str(game["game_id"])
            seats = {s: await Player.join(server, game_id, game["tokens"][s]) for s in (0, 1)}
            watcher = await Player.join(server, game_id)
            for step, token in enumerate(script):
                mover = seats[seats[0].last["view"]["to_move"]]
                await mover.reach(step)
                await mover.play(token, msg_id=f"m{step}")
                for player in [*seats.values(), watcher]:
                    await player.reach(step + 1)
                if step % 10 == 0:  # within the chat's burst of five lines
                    for who in (seats[0], seats[1], watcher):
                        await chat(who, f"step {step}")
            return [seats[0].conn.texts, seats[1].conn.texts, watcher.conn.texts]

        def timeless(texts: list[str]) -> list[str]:
            """The clocks' seconds left and the chat lines' times depend on when the test ran, not on
            any card."""
            texts = [re.sub(r'"remaining":\[[0-9.,]+\]', '"remaining":[]', t) for t in texts]
            return [re.sub(r'"at":"[0-9T:Z-]+"', '"at":""', t) for t in texts]

        black_a, white_a, spectator_a = map(timeless, run(play(games[0])))
        black_b, white_b, spectator_b = map(timeless, run(play(games[1])))
        assert any('"clock":{"control":{"days":3}' in t for t in white_a)
        assert sum('"type":"chat"' in t for t in white_a) >= 2 * (len(script) // 10)
        assert white_a == white_b
        assert spectator_a == spectator_b
        assert black_a != black_b  # Black holds the card that differs
        assert len(white_a) > len(script)
    finally:
        server.stop()
