"""Swiss pairing and standings, as pure functions of the games played (no database, no clock).

**Pairing is a maximum-weight matching** (networkx's ``max_weight_matching`` with maximum
cardinality, Edmonds' blossom algorithm), not a greedy loop: every pair of active players is an
edge whose weight falls with what the pair costs, and the matching of greatest total weight among
those that pair everybody is the round. The costs are ordered so that a lesser concern never
outweighs a greater one however many boards there are:

1. a bye to a player who has had more byes than another active player (:data:`REPEAT_BYE_COST`);
2. meeting an opponent again (:data:`REMATCH_COST`);
3. a colour that would put a player two games off balance (:data:`COLOUR_COST`);
4. the difference of the two scores, squared (close scores meet), and for the bye the score of its
   receiver, squared (the lowest score gets it).

With an odd number of players the bye is one more node of the graph, so it is chosen together with
the pairs rather than before them (a bye chosen first can leave the rest unpairable without a
rematch). When even the best matching needs a rematch or a second bye before everyone had one,
there is no round to play: :func:`pair_round` answers ``None`` and the event ends, as lichess's
Swiss ends when every possible pairing has been played.

**Colours** (seat 0 moves first): the player who has had seat 0 more often gets seat 1; if even,
the one who had seat 0 last gets seat 1; else the higher ranked gets seat 0.

**Scores** count half-points (a win 2, a draw 1, a bye 2: one point, as FIDE's bye).
**Tie-breaks:** Buchholz (the sum of the opponents' scores; a bye adds nothing) then
Sonneborn–Berger (the scores of the opponents beaten, plus half the scores of those drawn).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import networkx as nx

WIN, DRAW = 2, 1
"""Half-points of a win and of a draw (a bye counts as a win)."""
SEAT0, SEAT1, DRAWN, NO_RESULT, BYE = "0", "1", "draw", "none", "bye"
"""A pairing's result: the winning seat, a draw, no result (an aborted game: nobody scores), a bye."""
REMATCH_COST = 10**10
REPEAT_BYE_COST = 10**12
COLOUR_COST = 10**8
SCORE_WEIGHT = 100
BASE_WEIGHT = 10**14
"""Every edge weighs ``BASE_WEIGHT`` minus its cost, so all weights stay positive."""
BYE_NODE = -1
"""The bye's node in the graph (account ids are positive)."""


@dataclass(frozen=True)
class Played:
    """One board of a round: the accounts at seat 0 and seat 1 (``None``: a bye) and its result
    (``None`` while the game runs)."""

    round: int
    seats: tuple[int, int | None]
    result: str | None

    def points(self, player: int) -> int:
        """Half-points ``player`` scored here (0 while the game runs)."""
        if self.result == BYE:
            return WIN
        if self.result == DRAWN:
            return DRAW
        if self.result in (SEAT0, SEAT1):
            return WIN if self.seats[int(self.result)] == player else 0
        return 0

    def opponent(self, player: int) -> int | None:
        first, second = self.seats
        return second if first == player else first


@dataclass(frozen=True)
class Standing:
    player: int
    score: int
    """Half-points."""
    games: int
    buchholz: int
    sonneborn_berger: int
    """In quarter-points: half of a drawn opponent's half-points stays whole."""


def scores(players: Iterable[int], played: Sequence[Played]) -> dict[int, int]:
    total = dict.fromkeys(players, 0)
    for board in played:
        for player in board.seats:
            if player is not None:
                total[player] = total.get(player, 0) + board.points(player)
    return total


def standings(players: Iterable[int], played: Sequence[Played]) -> list[Standing]:
    """Everyone who played (or joined) ranked by score, Buchholz, Sonneborn–Berger (then id, so
    that the order is total and the same on every instance)."""
    total = scores(players, played)
    games = dict.fromkeys(total, 0)
    buchholz = dict.fromkeys(total, 0)
    berger = dict.fromkeys(total, 0)
    for board in played:
        if board.result is None:
            continue
        for player in board.seats:
            if player is None:
                continue
            games[player] += 1
            opponent = board.opponent(player)
            if opponent is None or board.result == NO_RESULT:
                continue
            buchholz[player] += total[opponent]
            berger[player] += 2 * total[opponent] * board.points(player) // WIN
    ranked = sorted(total, key=lambda p: (-total[p], -buchholz[p], -berger[p], p))
    return [Standing(p, total[p], games[p], buchholz[p], berger[p]) for p in ranked]


def _colour_balance(player: int, played: Sequence[Played]) -> tuple[int, int | None]:
    """Games at seat 0 minus games at seat 1, and the seat of the last game (``None``: none yet)."""
    balance, last = 0, None
    for board in sorted(played, key=lambda b: b.round):
        if board.seats[1] is None or player not in board.seats:
            continue
        seat = board.seats.index(player)
        balance += 1 if seat == 0 else -1
        last = seat
    return balance, last


def pair_round(
    active: Sequence[int], played: Sequence[Played], apart: Collection[frozenset[int]] = ()
) -> list[tuple[int, int | None]] | None:
    """The boards of the next round among ``active`` players: ``(seat 0, seat 1)``, and
    ``(player, None)`` for the bye; ``None`` if no round pairs everybody without a rematch and with
    the bye to one of those who had the fewest. The pairs in ``apart`` (one blocks the other) are
    never paired: they count as having met. Deterministic for the same input."""
    # networkx is imported here, not at the top: importing it took 0.1–0.3 s of every server's start
    # (python -X importtime, load 2–4), most servers never pairing an event
    import networkx as nx

    total = scores(active, played)
    rank = {p: i for i, p in enumerate(sorted(active, key=lambda p: (-total[p], p)))}
    met = {frozenset(b.seats) for b in played if b.seats[1] is not None} | set(apart)
    byes = {p: sum(1 for b in played if b.seats == (p, None)) for p in active}
    colours = {p: _colour_balance(p, played) for p in active}
    graph: nx.Graph[int] = nx.Graph()
    graph.add_nodes_from(active)
    players = sorted(active, key=rank.__getitem__)
    for i, a in enumerate(players):
        for b in players[i + 1 :]:
            cost = SCORE_WEIGHT * (total[a] - total[b]) ** 2
            if frozenset((a, b)) in met:
                cost += REMATCH_COST
            (balance_a, _), (balance_b, _) = colours[a], colours[b]
            if balance_a * balance_b > 0 and min(abs(balance_a), abs(balance_b)) >= 1:
                cost += COLOUR_COST  # one of them gets the colour it has had more of
            graph.add_edge(a, b, weight=BASE_WEIGHT - cost)
    if len(players) % 2 == 1:
        for p in players:
            cost = REPEAT_BYE_COST * byes[p] + SCORE_WEIGHT * total[p] ** 2 + (len(players) - rank[p])
            graph.add_edge(p, BYE_NODE, weight=BASE_WEIGHT - cost)
    boards: list[tuple[int, int | None]] = []
    for a, b in nx.max_weight_matching(graph, maxcardinality=True):
        if BYE_NODE in (a, b):
            receiver = b if a == BYE_NODE else a
            if byes[receiver] > min(byes.values()):
                return None
            boards.append((receiver, None))
        elif frozenset((a, b)) in met:
            return None
        else:
            boards.append(_seats(a, b, colours, rank))
    return sorted(boards, key=lambda board: (board[1] is None, min(rank[p] for p in board if p is not None)))


def _seats(a: int, b: int, colours: dict[int, tuple[int, int | None]], rank: dict[int, int]) -> tuple[int, int]:
    """Who of two paired players gets seat 0 (see the module's docstring)."""
    (balance_a, last_a), (balance_b, last_b) = colours[a], colours[b]
    if balance_a != balance_b:
        return (a, b) if balance_a < balance_b else (b, a)
    if last_a != last_b and last_a is not None and last_b is not None:
        return (a, b) if last_a == 1 else (b, a)
    return (a, b) if rank[a] < rank[b] else (b, a)
