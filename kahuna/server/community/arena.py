"""Arena scoring and pairing, as pure functions of the games played (lichess's Arena is the model).

**Scoring.** A win is 2 points, a draw 1, a loss 0. Two wins in a row put a player *on fire*: from
the next game on each result counts double (a win 4, a draw 2) until a game is not won. A player
who berserked (half the clock) and won gets one point more. A game without result (aborted) scores
nothing and ends a streak, as a loss does.

**Pairing.** Whoever has no game running is waiting; the waiting players are paired by a
maximum-weight matching (networkx, as the Swiss) whose weight falls with the square of the
difference of their places in the standings, so that close scores meet; two players whose last
games were against each other are never paired (not the same opponent twice in a row), nor two
players one of whom blocks the other.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from kahuna.server.community.swiss import DRAWN, SEAT0, SEAT1

if TYPE_CHECKING:
    import networkx as nx

WIN, DRAW = 2, 1
BERSERK_BONUS = 1
BASE_WEIGHT = 10**9


@dataclass(frozen=True)
class ArenaGame:
    """One finished or running game: the accounts at seat 0 and 1, who berserked, its result
    (``None`` while it runs); in the order the games were paired."""

    seats: tuple[int, int]
    berserk: tuple[bool, bool]
    result: str | None


@dataclass(frozen=True)
class ArenaStanding:
    player: int
    score: int
    games: int
    fire: bool
    """On a streak: its next win counts double."""
    sheet: tuple[int, ...]
    """The points of each of its finished games, in order (lichess's score sheet)."""


def standings(players: Iterable[int], games: Sequence[ArenaGame]) -> list[ArenaStanding]:
    """Every player ranked by score (then by fewer games, then id: a total order)."""
    sheets: dict[int, list[int]] = {p: [] for p in players}
    wins_in_a_row = dict.fromkeys(sheets, 0)
    for game in games:
        if game.result is None:
            continue
        for seat, player in enumerate(game.seats):
            sheet = sheets.setdefault(player, [])
            streak = wins_in_a_row.get(player, 0)
            won = game.result == str(seat) and game.result in (SEAT0, SEAT1)
            base = WIN if won else DRAW if game.result == DRAWN else 0
            points = base * (2 if streak >= 2 else 1)
            if won and game.berserk[seat]:
                points += BERSERK_BONUS
            sheet.append(points)
            wins_in_a_row[player] = streak + 1 if won else 0
    ranked = sorted(sheets, key=lambda p: (-sum(sheets[p]), len(sheets[p]), p))
    return [
        ArenaStanding(p, sum(sheets[p]), len(sheets[p]), wins_in_a_row.get(p, 0) >= 2, tuple(sheets[p])) for p in ranked
    ]


def last_opponent(player: int, games: Sequence[ArenaGame]) -> int | None:
    for game in reversed(games):
        if player in game.seats:
            first, second = game.seats
            return second if first == player else first
    return None


def pair_waiting(
    waiting: Sequence[int], games: Sequence[ArenaGame], order: Sequence[int], apart: Collection[frozenset[int]] = ()
) -> list[tuple[int, int]]:
    """Pairs of waiting players, ``(seat 0, seat 1)``: close places in ``order`` (the standings),
    never the last opponent again nor a pair in ``apart`` (one blocks the other); seat 0 to the one
    who had it less often."""
    # networkx is imported here, not at the top: importing it took 0.1–0.3 s of every server's start
    # (python -X importtime, load 2–4), most servers never pairing an event
    import networkx as nx

    place = {p: i for i, p in enumerate(order)}
    ranked = sorted(waiting, key=lambda p: (place.get(p, len(place)), p))
    last = {p: last_opponent(p, games) for p in ranked}
    graph: nx.Graph[int] = nx.Graph()
    for i, a in enumerate(ranked):
        for b in ranked[i + 1 :]:
            if last[a] == b or last[b] == a or frozenset((a, b)) in apart:
                continue
            graph.add_edge(a, b, weight=BASE_WEIGHT - (place.get(a, 0) - place.get(b, 0)) ** 2)
    firsts = {p: sum(1 for g in games if g.seats[0] == p) - sum(1 for g in games if g.seats[1] == p) for p in ranked}
    pairs = []
    for a, b in nx.max_weight_matching(graph, maxcardinality=True):
        pairs.append((a, b) if (firsts[a], place.get(a, 0)) <= (firsts[b], place.get(b, 0)) else (b, a))
    return sorted(pairs, key=lambda pair: min(place.get(p, 0) for p in pair))
