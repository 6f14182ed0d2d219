"""Protocols 2 and 3's updates (docs/protocol.md, *Protocol 2* and *Protocol 3*), checked
in-process on the server's own broadcast and catch-up (``games/outgoing.py``) over whole random
games.

For both seats and a spectator, a protocol-2 or -3 client that follows its ``sync`` with the deltas
(``kahuna.bot.follow``, and the browser's ``web/js/delta.js`` run by node) reads at every version
exactly the message a protocol-1 client gets, whole view included; the protocol-1 frames are byte
for byte those of the code before protocol 2; a catch-up gives each protocol the frames a connected
client got; and two games that differ only in cards hidden from White give White and a spectator
the same protocol-2 and -3 frames.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import random
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kahuna.bot import follow
from kahuna.rules import GameState, Variant
from kahuna.rules.board import LETTERS
from kahuna.server.games import messages, outgoing
from kahuna.server.games.live import Client, LiveGame

RECIPIENTS = (0, 1, None)
DELTA_JS = Path(__file__).resolve().parents[2] / "kahuna" / "web" / "js" / "delta.js"
SEEDS = range(4)

OLD_FRAMES = "c899a8db304a560b362c46a418283af799192da46ea9524c68a8deb0cbc6aa68"
"""SHA-256 of the protocol-1 updates of the games of :data:`SEEDS` (each recipient's frame of each
action, one a line, in :data:`RECIPIENTS` order), as the server encoded them before protocol 2
existed (commit 16c0116's ``messages.update``). A deliberate change to them is a protocol change."""


def _game(state: GameState) -> LiveGame:
    return LiveGame(
        game_id="delta", state=state, kinds=["human", "human"], names=["Alice", "Bob"],
        seat_tokens=["t0", "t1"], invite=None, created="", updated="",
    )  # fmt: skip


def _connect(game: LiveGame) -> dict[tuple[int | None, int], Client]:
    """One connection per recipient and protocol."""
    clients = {}
    for seat in RECIPIENTS:
        for protocol in messages.PROTOCOLS:
            client = clients[seat, protocol] = Client(seat)
            client.protocol = protocol
            game.room.join(client)
    return clients


def _play(game: LiveGame, token: str) -> None:
    """What the engine does with an action, without the database: apply, make current, broadcast."""
    before = game.state
    after = before.copy()
    events = after.apply(token)
    game.state = after
    outgoing.update(game, before.to_move, events, before)


def _taken(client: Client) -> str:
    text = client.outbox.get_nowait()
    assert text is not None and client.outbox.empty()
    return text


def _random_game(seed: int) -> tuple[LiveGame, random.Random]:
    rng = random.Random(seed)
    variant = Variant(no_build_at_enemy_stone=seed % 2 == 1, replace_on_remove=seed >= 2)
    return _game(GameState.new(rng, variant)), rng


DELTAS = (2, 3)


def test_protocols_2_and_3_rebuild_every_protocol_1_message_and_protocol_1_is_unchanged() -> None:
    old = hashlib.sha256()
    sizes = dict.fromkeys(messages.PROTOCOLS, 0)
    checked = 0
    for seed in SEEDS:
        game, rng = _random_game(seed)
        clients = _connect(game)
        followers = {(seat, p): follow.Follower() for seat in RECIPIENTS for p in DELTAS}
        for seat, p in followers:
            followers[seat, p].follow(json.loads(outgoing.sync_text(game, seat)))
        sent: dict[tuple[int | None, int], list[str]] = {key: [] for key in clients}
        while not game.state.is_over:
            _play(game, rng.choice(game.state.legal_actions()).token)
            for seat in RECIPIENTS:
                whole = _taken(clients[seat, 1])
                old.update(whole.encode() + b"\n")
                sent[seat, 1].append(whole)
                sizes[1] += len(whole.encode())
                for p in DELTAS:
                    delta = _taken(clients[seat, p])
                    assert "history" not in json.loads(delta).get("changed" if p == 2 else "patch", {})
                    assert followers[seat, p].follow(json.loads(delta)) == json.loads(whole)
                    sent[seat, p].append(delta)
                    sizes[p] += len(delta.encode())
                checked += 1
            if game.version == 45:  # rebuilt from the record; at the end, kept since and added to live
                _catch_ups_match(game, sent)
        for seat, p in followers:  # the end's view equals the sync's of the finished game
            assert followers[seat, p].view == json.loads(outgoing.sync_text(game, seat))["view"]
        _catch_ups_match(game, sent)
    games = len(SEEDS)
    print(
        f"\n{checked} updates of {games} games followed; bytes per game (both seats and a spectator): "
        f"protocol 1 {sizes[1] // games:,}, protocol 2 {sizes[2] // games:,} ({sizes[1] / sizes[2]:.1f}x fewer), "
        f"protocol 3 {sizes[3] // games:,} ({sizes[1] / sizes[3]:.1f}x fewer)"
    )
    assert old.hexdigest() == OLD_FRAMES
    assert sizes[1] > 4 * sizes[2]
    assert sizes[1] > 7 * sizes[3]


def test_the_browsers_delta_js_rebuilds_every_protocol_1_message() -> None:
    """``web/js/delta.js``, run by node on protocol 3's updates of the same games from each sync,
    gives at every version the protocol-1 update (its bookkeeping agrees with
    ``kahuna.rules.view_patch``'s)."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI"):
            pytest.fail("node is not installed: CI's machines have it (.ci/run)")
        pytest.skip("node is not installed")
    games: list[dict[str, Any]] = []
    """Each recipient's sync, protocol-3 updates and protocol-1 updates, game by game."""
    for seed in SEEDS:
        game, rng = _random_game(seed)
        clients = _connect(game)
        followed = {
            seat: {"sync": json.loads(outgoing.sync_text(game, seat)), "deltas": [], "wholes": []}
            for seat in RECIPIENTS
        }
        while not game.state.is_over:
            _play(game, rng.choice(game.state.legal_actions()).token)
            for seat in RECIPIENTS:
                followed[seat]["wholes"].append(json.loads(_taken(clients[seat, 1])))
                followed[seat]["deltas"].append(json.loads(_taken(clients[seat, 3])))
                _taken(clients[seat, 2])
        games += followed.values()
    script = f"""
import {{ readFileSync }} from "node:fs";
import {{ wholeUpdate }} from {json.dumps(DELTA_JS.as_uri())};
const games = JSON.parse(readFileSync(0, "utf8"));
const out = games.map(({{ sync, deltas }}) => {{
  let view = sync.view;
  return deltas.map((delta) => {{ const whole = wholeUpdate(view, delta); view = whole.view; return whole; }});
}});
process.stdout.write(JSON.stringify(out));
"""
    done = subprocess.run(
        [node, "--input-type=module", "-e", script], input=json.dumps(games), capture_output=True, text=True, check=True
    )
    for recipient, rebuilt in zip(games, json.loads(done.stdout), strict=True):
        for whole, got in zip(recipient["wholes"], rebuilt, strict=True):  # one update at a time: a short diff
            assert got == whole


def _catch_ups_match(game: LiveGame, sent: dict[tuple[int | None, int], list[str]]) -> None:
    """A client back from version ``since`` gets, in its protocol, the frames a connected client got
    after it (the game is untimed: no clock in them)."""
    current = game.version
    for seat, protocol in sent:
        for since in (current - 1, current - 7, current - 40):
            texts = asyncio.run(outgoing.catch_up(game, seat, since, protocol))
            assert texts == sent[seat, protocol][since:]


def test_two_games_differing_in_hidden_cards_give_white_and_spectators_the_same_deltas() -> None:
    deal_a, deal_b = _two_worlds(random.Random(8))
    games = [_game(GameState.from_deal(deal)) for deal in (deal_a, deal_b)]
    clients = [_connect(game) for game in games]
    rng = random.Random(9)
    frames: list[dict[tuple[int | None, int], list[str]]] = [{key: [] for key in c} for c in clients]
    steps = 0
    while all(g.state.round == 1 and g.state.deck_size > 3 for g in games) and steps < 40:
        legal = [{a.token for a in g.state.legal_actions()} for g in games]
        token = rng.choice(sorted(legal[0] & legal[1]))
        for game, client, seen in zip(games, clients, frames, strict=True):
            _play(game, token)
            for key, c in client.items():
                seen[key].append(_taken(c))
        steps += 1
    print(f"\n{steps} actions in two worlds differing in Black's first card and the deck's bottom card")
    assert steps >= 20
    for protocol in DELTAS:
        for seat in (1, None):
            assert frames[0][seat, protocol] == frames[1][seat, protocol]
        assert frames[0][0, protocol] != frames[1][0, protocol]  # Black holds the card that differs


def _two_worlds(rng: random.Random) -> tuple[str, str]:
    """Two deals that differ only in Black's first card and the bottom card of the deck."""
    cards = [ch for ch in LETTERS for _ in range(2)]
    while True:
        rng.shuffle(cards)
        if cards[0] != cards[23]:
            other = cards[:]
            other[0], other[23] = other[23], other[0]
            return "".join(cards), "".join(other)


def test_a_follower_skips_repeats_and_asks_for_a_sync_on_a_gap() -> None:
    game, rng = _random_game(0)
    clients = _connect(game)
    sync = json.loads(outgoing.sync_text(game, 1))
    deltas = []
    for _ in range(3):
        _play(game, rng.choice(game.state.legal_actions()).token)
        deltas.append(json.loads(_taken(clients[1, 3])))
    with pytest.raises(follow.OutOfStep):  # no view yet
        follow.Follower().follow(deltas[0])
    follower = follow.Follower()
    follower.follow(sync)
    with pytest.raises(follow.OutOfStep):  # version 2 after version 0
        follower.follow(deltas[1])
    assert follower.follow(deltas[0]) is not None
    assert follower.follow(deltas[0]) is None  # a catch-up may repeat an update that came meanwhile
    assert follower.version == 1
    whole = follower.follow(deltas[1])
    history = json.loads(outgoing.sync_text(game, 1))["view"]["history"]
    assert whole is not None and whole["view"]["history"] == history[:2]


def test_the_clients_know_the_servers_protocol_3() -> None:
    """``kahuna.bot.follow`` may not import the server: the protocol's constants are written on both
    sides, and must agree (the browser's too)."""
    assert max(messages.PROTOCOLS) == follow.PROTOCOL
    assert follow.DEFAULTS == messages.DEFAULTS
    assert f"export const PROTOCOL = {follow.PROTOCOL};" in DELTA_JS.read_text(encoding="utf-8")
