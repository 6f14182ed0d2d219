"""Fuzzing and a memory check of the compiled core's entry points (docs/engine.md, *Safety*).

``python tools/core_fuzz.py --rounds N`` throws random and malformed input at every entry point
of ``kahuna.fast._core`` (states from random fields, actions of every kind and range, reshuffle
orders, search views and budgets, networks and observations of wrong shapes, types and values,
batch buffers of wrong shapes and types, board tables) and
checks that each either works or raises ``ValueError``, ``TypeError``, ``IndexError``,
``OverflowError`` or ``BufferError``: never a crash. ``--so PATH`` loads another build of the
extension (tests/fast builds one with AddressSanitizer and UndefinedBehaviorSanitizer and runs
this under it). ``--memory GAMES`` plays that many games through the core (whole games in C,
states through the Python wrapper, batch steps, searches and network searches) and fails if the process grows by
more than a few megabytes after the first tenth.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import random
import sys
from array import array
from types import ModuleType
from typing import Any

from kahuna.fast.layout import LAYOUT, SIZE
from kahuna.rules.board import CONTROL, DEGREE, LINES

ACCEPTED = (ValueError, TypeError, IndexError, OverflowError, BufferError)
"""What a bad input may raise."""


def load(path: str | None) -> ModuleType:
    """The installed extension, or the build at ``path``, configured with the board."""
    if path is None:
        from kahuna.fast import core_module

        return core_module()
    spec = importlib.util.spec_from_file_location("kahuna.fast._core", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.configure([end for line in LINES for end in line], list(CONTROL), list(DEGREE))
    return module


def _junk(rng: random.Random) -> Any:
    return rng.choice([None, "x", 3.5, -1, 2**70, -(2**70), [], [1, 2], b"\x00\xff", {"a": 1}, object()])


def _fields(rng: random.Random, start: list[int]) -> Any:
    """Mostly near-valid field lists (a valid state with a few numbers changed), sometimes junk."""
    roll = rng.random()
    if roll < 0.05:
        return _junk(rng)
    fields: list[Any] = list(start)
    if roll < 0.1:
        return fields[: rng.randrange(SIZE)]
    for _ in range(rng.choice([1, 1, 2, 5, 40])):
        i = rng.randrange(SIZE)
        fields[i] = rng.choice([rng.randrange(-3, 30), rng.randrange(-200, 200), -(2**40), 2**40, _junk(rng)])
    return fields


def fuzz(core: ModuleType, rounds: int, seed: int) -> dict[str, int]:
    """``rounds`` rounds over every entry point; returns how many calls were accepted/refused."""
    from kahuna.fast.layout import fields_of
    from kahuna.rules import GameState

    rng = random.Random(seed)
    tally = {"accepted": 0, "refused": 0}

    def call(fn: Any, *args: Any) -> Any:
        try:
            out = fn(*args)
        except ACCEPTED:
            tally["refused"] += 1
            return None
        tally["accepted"] += 1
        return out

    for _ in range(rounds):
        game = GameState.new(random.Random(rng.getrandbits(32)))
        for _ in range(rng.randrange(200)):
            legal = game.legal_actions()
            if not legal:
                break
            game.apply_unchecked(legal[rng.randrange(len(legal))])
        valid = fields_of(game)
        state = call(core.State, _fields(rng, valid))
        if state is None:
            state = core.State(valid)
        call(state.fields)
        for _ in range(20):
            action = rng.choice([rng.randrange(243), rng.randrange(-5, 300), 2**64, -(2**63), _junk(rng)])
            call(state.needs_reshuffle, action)
            order = rng.choice([None, [rng.randrange(-2, 14) for _ in range(rng.randrange(30))], _junk(rng)])
            if state.fields()[1] == 2 or rng.random() < 0.5:
                call(state.apply, action, order)
            else:
                legal = state.legal()
                if legal:
                    pick = legal[rng.randrange(len(legal))]
                    pile = state.pile()
                    good = [c for c in range(12) for _ in range(pile[c])]
                    rng.shuffle(good)
                    call(state.apply, pick, good if state.needs_reshuffle(pick) else order)
            call(state.heuristic)
            ended = call(state.copy)
            if ended is not None:
                winner, reason = (
                    rng.choice([-1, 0, 1, 2, 2**40, _junk(rng)]),
                    rng.choice([0, 5, 6, 7, 8, 9, _junk(rng)]),
                )
                call(ended.terminate, winner, reason)
        words = list(random.Random(rng.getrandbits(32)).getstate()[1])
        spoilt = rng.choice([words[:-1], [*words[:-1], 625], [*words[:-1], -1], [2**32, *words[1:]], _junk(rng)])
        call(state.playout, rng.choice([words, tuple(words), spoilt]))
        if not game.is_over:
            _fuzz_search(core, game, rng, call)
            _fuzz_net(core, game, rng, call)
        call(core.random_games, rng.choice([[1, 2], [-1], [2**64], [_junk(rng)], _junk(rng)]), False, True)
        batch = call(core.Batch, rng.choice([1, 3, 0, -1, 2**40]), rng.choice([0, 5, -1, 2**64]), False, False)
        if batch is not None:
            _fuzz_batch(core, batch, rng, call)
        call(core.configure, _junk(rng), list(CONTROL), list(DEGREE))
        call(core.configure, [0] * 54, list(CONTROL), list(DEGREE))
        call(core.mt_check, rng.choice([0, -1, _junk(rng)]), rng.choice([5, -1, 10**9]), rng.choice([3, 0]))
    assert tuple(core.fields_layout()) == LAYOUT
    return tally


def _fuzz_search(core: ModuleType, game: Any, rng: random.Random, call: Any) -> None:
    """Searches from the mover's view: valid ones, and ones with one argument spoiled."""
    from kahuna.fast.layout import view_fields
    from kahuna.rules import view_of

    seat = game.to_move
    fields, hands, downs = view_fields(view_of(game, seat))
    words = random.Random(rng.getrandbits(32)).getstate()[1]
    args: list[Any] = [fields, seat, hands, downs, words, rng.randrange(1, 40), 0.0, 0.7, rng.randrange(4), HEURISTIC]
    if rng.random() < 0.6:
        k = rng.randrange(len(args))
        spoiled: list[Any] = [
            _fields(rng, fields),
            rng.choice([1 - seat, 2, -1, _junk(rng)]),
            rng.choice([(rng.randrange(-1, 7), rng.randrange(-1, 7)), (1,), _junk(rng)]),
            rng.choice([(rng.randrange(-1, 3), rng.randrange(-1, 3)), _junk(rng)]),
            rng.choice([words[:10], [2**33] * 625, [*words[:624], 9999], _junk(rng)]),
            rng.choice([0, -3, 10**9, _junk(rng)]),
            rng.choice([-1.0, float("nan"), 1e9, _junk(rng)]),
            rng.choice([-1.0, float("inf"), float("nan"), _junk(rng)]),
            rng.choice([-1, 5000, _junk(rng)]),
            rng.choice([HEURISTIC[:8], (*HEURISTIC[:8], 0.0), (float("nan"),) * 9, _junk(rng)]),
        ]
        args[k] = spoiled[k]
    call(core.search, *args)


HEURISTIC = (1.0, 0.06, 0.45, 0.45, 0.12, 0.07, 0.08, 0.1, 1.5)
"""The heuristic's default weights in the order the searches take them (kahuna.ai.agents.heuristic.Weights)."""


def _floats(rng: random.Random, *shape: int) -> memoryview[float]:
    """A float32 buffer of that shape with small random values (stdlib: no numpy)."""
    count = 1
    for n in shape:
        count *= n
    values = array("f", [rng.uniform(-1, 1) for _ in range(count)])
    return memoryview(values).cast("B").cast("f", list(shape))


def _network(core: ModuleType, rng: random.Random, call: Any) -> Any:
    """A ``Net`` of a random width; sometimes one array spoiled (shape, type, values), then refused."""
    hidden = rng.choice([1, 3, 8, 33])
    shapes = [(173, hidden), (hidden,), (hidden, hidden), (hidden,), (hidden, 243), (243,), (hidden, 1), (1,)]
    arrays: list[Any] = [_floats(rng, *shape) for shape in shapes]
    if rng.random() < 0.4:
        k = rng.randrange(len(arrays))
        arrays[k] = rng.choice(
            [
                _floats(rng, *(n + 1 for n in shapes[k])),
                _floats(rng, 2, 2, 2),
                _zeros("d", 8),
                b"\x00" * 16,
                _junk(rng),
                _nonfinite(rng, shapes[k]),
                array("f"),
            ]
        )
    return call(core.Net, *arrays)


def _nonfinite(rng: random.Random, shape: tuple[int, ...]) -> memoryview[float]:
    """Random weights of that shape with one NaN or infinity among them."""
    view = _floats(rng, *shape)
    flat = view.cast("B").cast("f")
    flat[rng.randrange(len(flat))] = rng.choice([float("nan"), float("inf")])
    return view


def _fuzz_net(core: ModuleType, game: Any, rng: random.Random, call: Any) -> None:
    """The network entry points: Net, its evaluation, the observation and the network search,
    valid and with one argument spoiled."""
    from kahuna.fast.layout import fields_of, view_fields
    from kahuna.rules import view_of

    net = _network(core, rng, call)
    state = core.State(fields_of(game))
    out = _zeros("f", 173)
    call(
        core.observe,
        *rng.choice(
            [
                (state, game.to_move, out),
                (state, 2, out),
                (state, 0, _zeros("f", 5)),
                (state, 1, _zeros("d", 173)),
                (_junk(rng), 0, out),
                (state, _junk(rng), out),
            ]
        ),
    )
    if net is None:
        return
    actions = rng.choice([[240, 0], list(range(243)), [], [243], [-1], list(range(250)), _junk(rng)])
    call(net.evaluate, rng.choice([out, _zeros("f", 172), _zeros("d", 173), _junk(rng)]), actions)
    call(net.evaluate, out, [0], rng.choice([1, 3, 0, -1, 2**40, _junk(rng)]))
    seat = game.to_move
    fields, hands, downs = view_fields(view_of(game, seat))
    words = random.Random(rng.getrandbits(32)).getstate()[1]
    args: list[Any] = [
        net,
        fields,
        seat,
        hands,
        downs,
        words,
        rng.randrange(1, 40),
        1.5,
        rng.choice([0.0, 0.5, 1.0]),
        rng.randrange(4),
        HEURISTIC,
        rng.random() < 0.5,
        rng.choice([0.0, 0.3, 1.0]),
    ]
    if rng.random() < 0.6:
        k = rng.randrange(len(args))
        spoiled: list[Any] = [
            rng.choice([_junk(rng), state]),
            _fields(rng, fields),
            rng.choice([1 - seat, 2, -1, _junk(rng)]),
            rng.choice([(rng.randrange(-1, 7), rng.randrange(-1, 7)), (1,), _junk(rng)]),
            rng.choice([(rng.randrange(-1, 3), rng.randrange(-1, 3)), _junk(rng)]),
            rng.choice([words[:10], [2**33] * 625, [*words[:624], 9999], _junk(rng)]),
            rng.choice([0, -3, 10**9, _junk(rng)]),
            rng.choice([-1.0, float("inf"), float("nan"), _junk(rng)]),
            rng.choice([-0.5, 1.5, float("nan"), _junk(rng)]),
            rng.choice([-1, 5000, _junk(rng)]),
            rng.choice([HEURISTIC[:8], (*HEURISTIC[:8], 0.0), (float("nan"),) * 9, _junk(rng)]),
            _junk(rng),
            rng.choice([-0.1, 1.5, float("nan"), _junk(rng)]),
        ]
        args[k] = spoiled[k]
    # Sometimes without the two optional arguments (stop, share), which then take their defaults.
    call(core.net_search, *(args if rng.random() < 0.8 else args[:-2]))


def _zeros(code: str, n: int) -> array[Any]:
    """A zeroed buffer of ``n`` items (stdlib ``array``: the fuzzing needs no numpy)."""
    return array(code, bytes(n * array(code).itemsize))


def _first_legal(mask: array[Any], games: int) -> array[Any]:
    """The first legal action code of every game, as int16."""
    out = _zeros("h", games)
    for i in range(games):
        row = mask[i * 243 : (i + 1) * 243]
        out[i] = row.index(1)
    return out


def _fuzz_batch(core: ModuleType, batch: Any, rng: random.Random, call: Any) -> None:
    size = 1
    while call(batch.fields, size) is not None:
        size += 1
    obs, mask, to_move = _zeros("f", size * 173), _zeros("b", size * 243), _zeros("b", size)
    rewards, dones = _zeros("f", size * 2), _zeros("b", size)
    call(batch.observe, obs, mask, to_move)
    for _ in range(30):
        actions = _first_legal(mask, size)
        args: list[Any] = [actions, obs, mask, to_move, rewards, dones]
        if rng.random() < 0.5:
            k = rng.randrange(6)
            args[k] = rng.choice([_zeros("h", size + 1), _zeros("d", size * 3), b"abc", _junk(rng)])
        if rng.random() < 0.2:
            actions[0] = rng.choice([-1, 243, 300, 0])
        call(batch.step, *args)
    call(batch.fields, -1)
    call(batch.fields, _junk(rng))


def memory(core: ModuleType, games: int, seed: int) -> tuple[int, int]:
    """Play ``games`` games through the core's entry points; the resident size (KB) after a tenth
    of them and at the end."""
    from kahuna.fast.layout import view_fields
    from kahuna.fast.state import FastState
    from kahuna.rules import GameState, view_of

    views = []
    for game in range(8):
        rng = random.Random(seed + game)
        start = GameState.new(rng)
        for _ in range(20 * game):
            legal = start.legal_actions()
            after = start.copy()
            after.apply_unchecked(legal[rng.randrange(len(legal))])
            if after.is_over:
                break
            start = after
        views.append(view_of(start, start.to_move))
    weights = random.Random(seed)
    shapes = [(173, 16), (16,), (16, 16), (16,), (16, 243), (243,), (16, 1), (1,)]
    net = core.Net(*(_floats(weights, *shape) for shape in shapes))
    chunk = 10_000
    after_warmup = 0
    played = 0
    while played < games:
        count = min(chunk, games - played)
        core.random_games([seed * 1_000_003 + played + i for i in range(count)], played % 2 == 0, played % 3 == 0)
        played += count
        state = FastState.new(random.Random(played))
        rng = random.Random(played)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[rng.randrange(len(legal))])
            state.copy().to_json()
        batch = core.Batch(64, played, False, True)
        obs, mask, small = _zeros("f", 64 * 173), _zeros("b", 64 * 243), _zeros("b", 64)
        batch.observe(obs, mask, small)
        for _ in range(20):
            batch.step(_first_legal(mask, 64), obs, mask, small, _zeros("f", 128), _zeros("b", 64))
        view = views[played // chunk % len(views)]
        fields, hands, downs = view_fields(view)
        assert view.seat is not None
        state_words = random.Random(played).getstate()[1]
        core.search(fields, view.seat, hands, downs, state_words, 200, 0.0, 0.7, 2, HEURISTIC)
        core.net_search(net, fields, view.seat, hands, downs, state_words, 200, 1.5, 0.5, 2, HEURISTIC)
        if not after_warmup and played >= games // 10:
            after_warmup = _rss_kb()
    return after_warmup, _rss_kb()


def _rss_kb() -> int:
    """The resident set size in KB (Linux ``/proc``; the memory check needs Linux)."""
    with open("/proc/self/statm") as fh:
        pages = int(fh.read().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") // 1024


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python tools/core_fuzz.py", description=" ".join(__doc__.split("\n\n")[0].split())
    )
    parser.add_argument("--rounds", type=int, default=0, help="fuzz rounds (each: a state, 20 actions, a search, ...)")
    parser.add_argument("--memory", type=int, default=0, metavar="GAMES", help="the memory check over GAMES games")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--so", default=None, help="load this build of the extension instead of the installed one")
    parser.add_argument("--max-growth-kb", type=int, default=4096, help="allowed growth after the warm-up")
    args = parser.parse_args(argv)
    core = load(args.so)
    if args.rounds:
        tally = fuzz(core, args.rounds, args.seed)
        print(f"fuzz: {args.rounds} rounds, {tally['accepted']} calls accepted, {tally['refused']} refused")
    if args.memory:
        warm, end = memory(core, args.memory, args.seed)
        print(f"memory: {args.memory} games, resident {warm} KB after a tenth, {end} KB at the end")
        if end - warm > args.max_growth_kb:
            print(f"memory grew by {end - warm} KB", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
