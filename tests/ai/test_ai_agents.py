"""Agents: legal actions only, determinism under a seed, and no peeking at hidden cards."""

from __future__ import annotations

import pickle
import random

import pytest

from kahuna.ai.base import Agent
from kahuna.ai.levels import LEVELS
from kahuna.ai.registry import FACTORIES, make_agent
from kahuna.ai.spec import SpecError
from kahuna.rules import GameState, legal_actions_of, view_of
from kahuna.rules.board import NUM_ISLANDS

CHEAP_SPECS = [
    "random",
    "greedy",
    "greedy:noise=0.5",
    "greedy:depth=0,beam=1",
    "ismcts:iterations=25",
    "easy",
    "medium",
]


def play(agents: tuple[Agent, Agent], seed: int, max_actions: int = 10_000) -> GameState:
    state = GameState.new(random.Random(seed))
    rngs = (random.Random(seed + 1), random.Random(seed + 2))
    while not state.is_over and len(state.history) < max_actions:
        seat = state.to_move
        action = agents[seat].choose(view_of(state, seat), rngs[seat])
        assert action in state.legal_actions(), (agents[seat].name, action)
        state.apply(action)
    return state


def positions(seed: int, count: int) -> list[GameState]:
    """Mid-game states reached by random play, spread over the game."""
    rng = random.Random(seed)
    state = GameState.new(random.Random(seed))
    out: list[GameState] = []
    while not state.is_over and len(out) < count:
        legal = state.legal_actions()
        state.apply(legal[rng.randrange(len(legal))])
        if len(state.history) % 17 == 0 and not state.is_over:
            out.append(state.copy())
    return out


@pytest.mark.parametrize("spec", CHEAP_SPECS)
def test_agents_play_only_legal_actions_to_the_end(spec: str) -> None:
    final = play((make_agent(spec), make_agent("random")), seed=11)
    assert final.is_over
    final = play((make_agent("greedy"), make_agent(spec)), seed=12)
    assert final.is_over


@pytest.mark.parametrize("spec", ["random", "greedy", "easy", "ismcts:iterations=40"])
def test_same_view_and_seed_give_the_same_action(spec: str) -> None:
    for state in positions(3, 6):
        view = view_of(state, state.to_move)
        first = make_agent(spec).choose(view, random.Random(99))
        again = make_agent(spec).choose(view, random.Random(99))
        assert first is again


def reshuffle_hidden(state: GameState, viewer: int, rng: random.Random) -> GameState | None:
    """The same game with the cards ``viewer`` cannot see dealt differently: the opponent's
    unknown hand cards, its face-down discards and the deck order (``None`` if there is no other way)."""
    other = 1 - viewer
    world = state.copy()
    hidden_hand = [world.hands[other][c] - world.known[other][c] for c in range(NUM_ISLANDS)]
    pool = [c for c in range(NUM_ISLANDS) for _ in range(hidden_hand[c])]
    pool += [c for c in range(NUM_ISLANDS) for _ in range(world.discard_down[other][c])]
    pool += world.deck
    for _ in range(20):
        rng.shuffle(pool)
        hand_slots, down_slots = sum(hidden_hand), sum(world.discard_down[other])
        hand = list(world.known[other])
        for c in pool[:hand_slots]:
            hand[c] += 1
        down = [0] * NUM_ISLANDS
        for c in pool[hand_slots : hand_slots + down_slots]:
            down[c] += 1
        deck = pool[hand_slots + down_slots :]
        if hand != world.hands[other] or deck != world.deck:
            world.hands[other], world.discard_down[other], world.deck = hand, down, deck
            return world
    return None


@pytest.mark.parametrize(
    "spec",
    [
        "greedy",
        "easy",
        "ismcts:iterations=60",
        "net:iterations=40",
        "net:iterations=1",
        "master",
        "net:seconds=0,workers=2,iterations=40",
    ],
)
def test_hidden_cards_do_not_change_the_choice(spec: str) -> None:
    rng = random.Random(5)
    checked = 0
    for state in positions(8, 10):
        seat = state.to_move
        if len(legal_actions_of(view_of(state, seat))) < 2:
            continue
        other_world = reshuffle_hidden(state, seat, rng)
        if other_world is None:
            continue
        assert other_world.to_json() != state.to_json()
        assert view_of(other_world, seat) == view_of(state, seat)
        here = make_agent(spec).choose(view_of(state, seat), random.Random(1))
        there = make_agent(spec).choose(view_of(other_world, seat), random.Random(1))
        assert here is there
        checked += 1
    assert checked >= 4


def test_levels_are_named_and_picklable() -> None:
    # weakest first: clients list them in this order
    assert LEVELS == ("easy", "medium", "hard", "expert", "master", "grandmaster")
    for level in LEVELS:
        assert level in FACTORIES  # what the server offers
        agent = make_agent(level)
        assert agent.name == level
        assert pickle.loads(pickle.dumps(agent)).name == level


@pytest.mark.parametrize(
    "spec", ["nobody", "greedy:beam=0", "ismcts:iterations=-3", "ismcts:speed=2", "hard:iterations=5", "easy:x"]
)
def test_bad_specs_are_refused_with_a_message(spec: str) -> None:
    with pytest.raises(SpecError):
        make_agent(spec)
