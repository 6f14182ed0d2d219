"""ISMCTS guided by the policy/value network: the network's agent, and the search of self-play.

The search is the single-observer ISMCTS of :mod:`kahuna.ai.agents.ismcts` (every iteration samples a
world consistent with the agent's view and walks one shared tree among the actions legal in that
world), with the AlphaZero changes: a new node is not played out but judged by the network (the
win probability of the seat to move, from *that seat's* view of the sampled world, so the
network never sees a card its seat could not see there), and children are chosen by PUCT, where
the network's policy is the prior: ``Q + c · P · √N / (1 + n)``. A child not yet visited is
valued at its parent's network value (first-play urgency). The root's view is the agent's own,
identical in every world, so its priors depend on nothing hidden.

The priors of a node are the softmax of the logits of the actions legal in the world that judged
it; an action that only another world offers there gets its prior from the same hidden layer
and normalisation when first met, so the network is evaluated once per node and each logit at
most once. With ``mix`` λ > 0 a leaf's value is ``(1 - λ) · network + λ · playout``: the playout
of the heuristic ISMCTS (``playout_turns`` turns of its policy, then the heuristic's win
probability, :func:`kahuna.ai.agents.ismcts._playout`), a check on a network still learning.

The most visited root action is played (ties to the lowest index); self-play also reads the
visit counts as the policy target (:mod:`kahuna.ai.training.selfplay`). With ``stop`` the search
ends as soon as no other root action can still overtake the leader in the iterations left
(:func:`_settled`): each iteration adds one visit to one root child at most, so the move played
is the one the full budget would play, only sooner. The counts are then those of a shorter
search, which is why self-play (whose targets and exploratory draws read them) keeps ``stop``
off, the default of :class:`NetSearchConfig`; the ``net`` agent spec turns it on.

:func:`search` runs in the compiled core when it is built and ``KAHUNA_CORE`` is not ``python``
(``kahuna/fast/src/netsearch.c``, many times faster). Both follow the same steps with the same
random stream and the same arithmetic (:meth:`Network.hidden` and :meth:`Network.logits` compute
in the compiled core's order), so for the same view, network, settings and seed they give the
same root visits (tests/fast checks it); :func:`python_search` is the readable reference.
"""

from __future__ import annotations

import math
import random
from dataclasses import astuple, dataclass

from kahuna.ai.agents.features import encode_view
from kahuna.ai.agents.heuristic import DEFAULT_WEIGHTS, Weights
from kahuna.ai.agents.ismcts import _playout, tree_actions
from kahuna.ai.agents.net import Doubles, Network
from kahuna.fast import core_module, selected_core
from kahuna.fast.layout import view_fields
from kahuna.rules import Action, GameState, PlayerView, action_at, determinize, legal_actions_of, view_of

MAX_ITERATIONS = 10_000_000
"""The compiled search's budget bound (beyond it :func:`search` runs in Python)."""


@dataclass(frozen=True)
class NetSearchConfig:
    """What one network search spends and how it values its leaves."""

    iterations: int = 200
    c_puct: float = 1.5
    mix: float = 0.0
    """λ in [0, 1]: the playout's share of a leaf's value (0: the network's value alone)."""
    playout_turns: int = 2
    """Turns of the heuristic playout when ``mix`` > 0 (as :class:`kahuna.ai.agents.ismcts.SearchConfig`)."""
    heuristic: Weights = DEFAULT_WEIGHTS
    """The heuristic's weights at the end of a playout."""
    stop: bool = False
    """End the search once the most visited root action can no longer be overtaken: the same
    move in less time, but fewer visits (off for self-play, whose targets are the visits)."""
    share: float = 0.0
    """σ in [0, 1], 0 off: a budget that follows the decision's difficulty. From a quarter of
    ``iterations`` on, the search ends once the most visited root action holds at least σ of the
    root's visits, so the full ``iterations`` go to close decisions only. Unlike ``stop`` this can
    change the move (the leader might still have been overtaken): an explicit option, measured."""


class _Node:
    """Statistics of the action that led here (its prior at the parent, visits, rewards from the
    side of the seat that chose it) and, once judged, the network's view of the seat to move here:
    its value, the last hidden layer, and the softmax's maximum and sum for the priors."""

    __slots__ = ("children", "hidden", "prior", "reward", "top", "total", "value", "visits")

    def __init__(self, prior: float) -> None:
        self.children: dict[int, _Node] = {}
        self.prior = prior
        self.visits = 0
        self.reward = 0.0
        self.hidden: Doubles | None = None
        self.value = 0.5
        self.top = 0.0
        self.total = 1.0

    def child(self, index: int, net: Network) -> _Node:
        """The child of an action, created with its prior the first time a world offers it."""
        node = self.children.get(index)
        if node is None:
            assert self.hidden is not None
            (logit,) = net.logits(self.hidden, [index])
            prior = math.exp(logit - self.top) / self.total
            node = self.children[index] = _Node(prior)
        return node


def _judge(node: _Node, state: GameState, net: Network) -> float:
    """Evaluate a new node with the network and give it a child per action; returns the mover's
    win probability."""
    hidden, value = net.hidden(encode_view(view_of(state, state.to_move)))
    actions = [a.index for a in tree_actions(state)]
    logits = net.logits(hidden, actions)
    top = max(logits)
    exps = [(index, math.exp(logit - top)) for index, logit in zip(actions, logits, strict=True)]
    total = 0.0
    for _, e in exps:
        total += e
    for index, e in exps:
        node.children[index] = _Node(e / total)
    node.hidden, node.value, node.top, node.total = hidden, value, top, total
    return value


def _iterate(root: _Node, state: GameState, net: Network, config: NetSearchConfig, rng: random.Random) -> None:
    """One iteration in the world ``state``: down the tree by PUCT to a new node or the end."""
    node = root
    path: list[tuple[_Node, int]] = []
    while True:
        if state.is_over:
            assert state.outcome is not None
            winner = state.outcome.winner
            result = 0.5 if winner is None else float(winner == 0)
            break
        mover = state.to_move
        if node.hidden is None:
            value = _judge(node, state, net)
            result = value if mover == 0 else 1.0 - value
            if config.mix > 0.0:
                played = _playout(state, rng, config.playout_turns, config.heuristic)
                result = (1.0 - config.mix) * result + config.mix * played
            break
        scale = config.c_puct * math.sqrt(node.visits + 1)
        best_value = -1.0
        best: Action | None = None
        best_child = node
        for action in tree_actions(state):
            child = node.child(action.index, net)
            q = child.reward / child.visits if child.visits else node.value
            u = q + scale * child.prior / (1 + child.visits)
            if u > best_value:
                best_value, best, best_child = u, action, child
        assert best is not None
        node.visits += 1
        state.apply_unchecked(best)
        path.append((best_child, mover))
        node = best_child
    node.visits += 1
    for child, chooser in path:
        child.reward += result if chooser == 0 else 1.0 - result


def _settled(root: _Node, remaining: int) -> bool:
    """Whether the root's choice (most visits, ties to the lowest index) is fixed whatever the
    ``remaining`` iterations do: each gives one root child one visit at most, so the leader keeps
    its place when every other action, given all of them, stays behind it or ties it from a higher
    index. An action no world has offered yet counts as unvisited with any index, so the leader
    also needs more visits than remain."""
    lead, leader = 0, -1
    for index, child in root.children.items():
        if child.visits > lead or (child.visits == lead and child.visits and index < leader):
            lead, leader = child.visits, index
    if lead <= remaining:
        return False
    for index, child in root.children.items():
        reach = child.visits + remaining
        if index != leader and (reach > lead or (reach == lead and index < leader)):
            return False
    return True


def _leading(root: _Node, share: float) -> bool:
    """Whether the most visited root action holds at least ``share`` of the root's visits."""
    visits = [child.visits for child in root.children.values()]
    total = sum(visits)
    return total > 0 and max(visits) >= share * total


def python_search(view: PlayerView, net: Network, config: NetSearchConfig, seed: int) -> dict[int, int]:
    """Root visits per action index after ``config.iterations`` iterations (or fewer with
    ``config.stop``, once :func:`_settled` after an iteration, or ``config.share``), in Python."""
    rng = random.Random(seed)
    root = _Node(0.0)
    for done in range(1, config.iterations + 1):
        _iterate(root, determinize(view, rng), net, config, rng)
        if config.stop and _settled(root, config.iterations - done):
            break
        if config.share and 4 * done >= config.iterations and _leading(root, config.share):
            break
    visits = {index: child.visits for index, child in root.children.items() if child.visits}
    if not visits:
        # One iteration only judges the root: play the network's policy alone.
        legal = [a.index for a in legal_actions_of(view)]
        visits = {max(legal, key=lambda i: (root.child(i, net).prior, -i)): 1}
    return visits


def compiled_search(view: PlayerView, net: Network, config: NetSearchConfig, seed: int) -> dict[int, int]:
    """The same root visits as :func:`python_search`, searched by the compiled core."""
    fields, hand_slots, down_slots = view_fields(view)
    visits: dict[int, int] = core_module().net_search(
        net.compiled(),
        fields,
        view.seat,
        hand_slots,
        down_slots,
        random.Random(seed).getstate()[1],
        config.iterations,
        float(config.c_puct),
        float(config.mix),
        config.playout_turns,
        astuple(config.heuristic),
        config.stop,
        float(config.share),
    )
    return visits


def compiled(config: NetSearchConfig) -> bool:
    """Whether :func:`search` runs in C: the core is built and selected, the settings in bounds."""
    bounded = config.iterations <= MAX_ITERATIONS and config.c_puct <= 1e6 and config.playout_turns <= 1000
    shares = 0.0 <= config.mix <= 1.0 and 0.0 <= config.share <= 1.0
    return bounded and shares and selected_core() == "fast"


def search(view: PlayerView, net: Network, config: NetSearchConfig, rng: random.Random) -> dict[int, int]:
    """Root visits per action index after ``config.iterations`` iterations or, with
    ``config.stop``, fewer but to the same most visited action (the compiled search when
    :func:`compiled` says so, else :func:`python_search`: the same visits either way); the
    search's random stream is seeded by one draw from ``rng``."""
    seed = rng.getrandbits(64)
    run = compiled_search if compiled(config) else python_search
    return run(view, net, config, seed)


class NetAgent:
    """Plays the most visited action of a network-guided ISMCTS (see the module docstring)."""

    def __init__(self, net: Network, config: NetSearchConfig, name: str = "net") -> None:
        self.net = net
        self.config = config
        self.name = name

    def choose(self, view: PlayerView, rng: random.Random) -> Action:
        legal = legal_actions_of(view)
        if len(legal) == 1:
            return legal[0]
        visits = search(view, self.net, self.config, random.Random(rng.getrandbits(64)))
        best = max(visits, key=lambda i: (visits[i], -i))
        return action_at(best)
