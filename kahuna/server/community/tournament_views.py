"""What the API shows of a tournament: its summary, its standings (with tie-breaks) and its boards.

Pure functions of the rows (``tournament_rows.py``), so that ``GET /api/tournaments/<id>`` and the
loop that pairs read the standings the same way: Swiss by ``swiss.standings`` (points, Buchholz,
Sonneborn–Berger, shown in points), Arena by ``arena.standings`` (lichess's points, the streak, the
points of each game).
"""

from __future__ import annotations

import time
from typing import Any

from kahuna.server.community import arena, swiss
from kahuna.server.community.tournament_rows import SWISS, Board, Entrant, Event


def seat_url(game_id: str, seat: int) -> str:
    """The page of a seat played as its account's (the signed-in browser; no token)."""
    return f"/play/{game_id}#seat:{seat}"


def summary(event: Event) -> dict[str, Any]:
    return {
        "tournament_id": event.tournament_id,
        "kind": event.kind,
        "name": event.name,
        "creator": event.creator_name,
        "status": event.status,
        "clock": event.clock,
        "planned_rounds": event.rounds,
        "minutes": event.minutes,
        "rated": event.rated,
        "starts_at": event.starts_at,
        "started": event.started,
        "ends_at": event.ends_at,
        "finished": event.finished,
        "round": event.round,
        "now": time.time(),
    }


def standings(event: Event, players: list[Entrant], boards: list[Board]) -> list[dict[str, Any]]:
    names = {p.account_id: p.username for p in players}
    ids = list(names)
    if event.kind == SWISS:
        return [
            {
                "username": names.get(s.player, "?"),
                "score": s.score / 2,
                "games": s.games,
                "tiebreaks": {"buchholz": s.buchholz / 2, "sonneborn_berger": s.sonneborn_berger / 4},
            }
            for s in swiss.standings(ids, [b.played for b in boards])
        ]
    return [
        {
            "username": names.get(s.player, "?"),
            "score": s.score,
            "games": s.games,
            "tiebreaks": {"fire": s.fire, "sheet": list(s.sheet)},
        }
        for s in arena.standings(ids, arena_games(boards))
    ]


def rounds(event: Event, boards: list[Board], names: dict[int, str]) -> list[list[dict[str, Any]]]:
    rounds: dict[int, list[dict[str, Any]]] = {}
    for board in boards:
        first, second = board.accounts
        rounds.setdefault(board.round, []).append(
            {
                "game_id": board.game_id,
                "players": [names.get(first, "?"), None if second is None else names.get(second, "?")],
                "result": board.result,
                "berserk": list(board.berserk),
            }
        )
    return [rounds[number] for number in sorted(rounds)]


def arena_games(boards: list[Board]) -> list[arena.ArenaGame]:
    return [arena.ArenaGame((b.accounts[0], b.accounts[1] or 0), b.berserk, b.result) for b in boards]
