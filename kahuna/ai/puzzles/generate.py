"""Cutting puzzles from self-play: play a game, find the turns that matter, prove, theme and rate.

Game ``g`` of seed ``s`` is played by :data:`PLAYERS` (the strong levels), every choice seeded from
``(s, g)``, so a run replays. At the start of each turn (both seats) the fair-play judge's cheap
search (:func:`kahuna.ai.review.screening.root_stats`, :data:`CUT_ITERATIONS`) looks for a turn
that matters: the first action's value beats every other action's by :attr:`Cut.gap`, or the action
played lost at least :attr:`Cut.loss`, with the mover's chances still open
(:attr:`Cut.low` to :attr:`Cut.high`). At most :attr:`Cut.per_game` such candidates per game (the
largest gaps) go to the proof (:func:`kahuna.ai.puzzles.prove.prove`); each proved one is themed
and rated, and written out.

The other source is finished games given as records (:func:`generate_from_records`: a server's
finished games, read by ``kahuna.server.puzzles.finished``): each is replayed on the referee and
cut the same way, the action played being the record's.

The output is a JSON-lines file: one ``{"type": "puzzle", ...}`` line per puzzle and one
``{"type": "game", ...}`` line per finished game (its candidates, proofs and seconds; ``game`` is
the self-play game's number, or the recorded game's id), flushed as it goes. A run given the same
file again skips the games it already holds: it is resumable.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import random
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kahuna.ai.puzzles.prove import ProofConfig, prove
from kahuna.ai.puzzles.puzzle import Puzzle, puzzle_id_of
from kahuna.ai.puzzles.rate import TRIES, AgentCache, rating_salt, solves, starting_rating
from kahuna.ai.puzzles.themes import themes_of
from kahuna.ai.review.screening import Judge, judge_network, root_stats
from kahuna.rules import GameState, KahunaError, PlayerView, Variant, legal_actions_of, parse, view_of
from kahuna.rules.record import GameRecord

PLAYERS: tuple[str, str] = ("master", "master")
CUT_ITERATIONS = 600


@dataclass(frozen=True)
class Cut:
    """Which turns of a game are candidates."""

    gap: float = 0.12
    loss: float = 0.15
    low: float = 0.10
    high: float = 0.95
    per_game: int = 3


@dataclass
class GameLog:
    """What one game gave: the line written for it."""

    game: int | str
    """The self-play game's number, or a recorded game's id."""
    candidates: int = 0
    proved: int = 0
    seconds: float = 0.0
    puzzles: list[Puzzle] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "game",
            "game": self.game,
            "candidates": self.candidates,
            "proved": self.proved,
            "seconds": round(self.seconds, 2),
        }


@dataclass(frozen=True)
class Candidate:
    step: int
    state: GameState
    score: float


def cut_score(view: PlayerView, played_index: int, cut: Cut, seed: int) -> float | None:
    """How much the turn from ``view`` matters (the gap or the loss), ``None`` when it is no candidate."""
    if len(legal_actions_of(view)) < 2:
        return None
    judge = Judge(iterations=CUT_ITERATIONS)
    stats = root_stats(view, judge_network(), judge.config(), seed)
    if not stats:
        return None
    first = max(stats, key=lambda i: (stats[i][0], -i))
    best = stats[first][1]
    if not cut.low <= best <= cut.high:
        return None
    others = [v for i, (_, v) in stats.items() if i != first]
    gap = best - max(others) if others else 0.0
    played = stats[played_index][1] if played_index in stats else min(v for _, v in stats.values())
    loss = best - played
    if gap >= cut.gap or loss >= cut.loss:
        return max(gap, loss)
    return None


def play_game(seed: int, game: int, agents: AgentCache, cut: Cut) -> list[Candidate]:
    """Self-play game ``game`` of ``seed`` and its candidate turns (largest score first, capped)."""
    rng = random.Random(f"kahuna-puzzles:{seed}:{game}")
    state = GameState.new(rng)
    found: list[Candidate] = []
    turn_start = True
    step = 0
    while not state.is_over:
        seat = state.to_move
        view = view_of(state, seat)
        action = agents(PLAYERS[seat]).choose(view, rng)
        if turn_start:
            score = cut_score(view, action.index, cut, rng.getrandbits(32))
            if score is not None:
                found.append(Candidate(step, state.copy(), score))
        state.apply(action)
        turn_start = action.ends_turn
        step += 1
    return _largest(found, cut)


def _largest(found: list[Candidate], cut: Cut) -> list[Candidate]:
    found.sort(key=lambda c: (-c.score, c.step))
    return found[: cut.per_game]


def record_candidates(seed: int, game_id: str, record: GameRecord, cut: Cut) -> list[Candidate]:
    """The candidate turns of a recorded game, replayed on the referee (largest score first, capped);
    the loss is the action the record played."""
    rng = random.Random(f"kahuna-puzzles-record:{seed}:{game_id}")
    found: list[Candidate] = []
    turn_start = True

    def before_each(step: int, state: GameState) -> None:
        nonlocal turn_start
        action = parse(str(record.actions[step]))
        if turn_start:
            score = cut_score(view_of(state, state.to_move), action.index, cut, rng.getrandbits(32))
            if score is not None:
                found.append(Candidate(step, _unrecorded(state, f"{seed}:{game_id}:{step}"), score))
        turn_start = action.ends_turn

    record.replay(before_each)
    return _largest(found, cut)


def _unrecorded(state: GameState, key: str) -> GameState:
    """A copy of a replayed state that goes on as a self-played one: the record's reshuffle orders
    fit only the line the record played, so a coming reshuffle is drawn from a seeded RNG."""
    copy = state.copy()
    copy.reshuffle_queue = []
    copy.rng = random.Random(f"kahuna-puzzles-record-rng:{key}")
    return copy


def make_puzzle(
    candidate: Candidate, seed: int, game: int | str, agents: AgentCache, config: ProofConfig
) -> Puzzle | None:
    """Prove, theme and rate one candidate; ``None`` when the proof fails."""
    state = candidate.state
    seat = state.to_move
    proof_seed = random.Random(f"kahuna-puzzle-proof:{seed}:{game}:{candidate.step}").getrandbits(32)
    proof = prove(view_of(state, seat), proof_seed, config)
    if proof is None:
        return None
    document = state.to_json(complete=True)
    unrated = Puzzle(
        puzzle_id=puzzle_id_of(document, seat),
        state=document,
        seat=seat,
        solutions=proof.turns,
        themes=themes_of(state, proof.turns[0]),
        rating=0,
        proof={
            "worlds": proof.worlds,
            "agreement": round(proof.first.agreement, 3),
            "best": round(proof.first.best_value, 3),
            "runner_up": round(proof.first.runner_up, 3),
            "seconds": round(proof.seconds, 2),
        },
        source=(
            {"seed": seed, "game": game, "step": candidate.step, "players": list(PLAYERS)}
            if isinstance(game, int)
            else {"seed": seed, "game_id": game, "step": candidate.step}
        ),
    )
    solved = solves(unrated, rating_salt(seed), TRIES, agents)
    return dataclasses.replace(unrated, solves=solved, tries=TRIES, rating=starting_rating(solved, TRIES))


def run_game(seed: int, game: int, agents: AgentCache, cut: Cut, config: ProofConfig) -> GameLog:
    """One self-play game's candidates, proved."""
    start = time.perf_counter()
    return _prove_all(seed, game, play_game(seed, game, agents, cut), agents, config, start)


def _prove_all(
    seed: int, game: int | str, candidates: list[Candidate], agents: AgentCache, config: ProofConfig, start: float
) -> GameLog:
    log = GameLog(game)
    log.candidates = len(candidates)
    for candidate in candidates:
        puzzle = make_puzzle(candidate, seed, game, agents, config)
        if puzzle is not None:
            log.puzzles.append(puzzle)
    log.proved = len(log.puzzles)
    log.seconds = time.perf_counter() - start
    return log


def read_output(path: Path) -> tuple[set[int | str], set[str], int]:
    """The games already in ``path`` (numbers and recorded games' ids), the puzzle ids and the puzzle
    count (for a resumed run)."""
    games: set[int | str] = set()
    ids: set[str] = set()
    if not path.exists():
        return games, ids, 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry.get("type") == "game":
            games.add(entry["game"] if isinstance(entry["game"], str) else int(entry["game"]))
        elif entry.get("type") == "puzzle":
            ids.add(str(entry["puzzle_id"]))
    return games, ids, len(ids)


def generate(
    seed: int,
    games: int,
    path: Path,
    cut: Cut | None = None,
    config: ProofConfig | None = None,
    target: int | None = None,
    agents: AgentCache | None = None,
) -> Iterator[GameLog]:
    """Play games ``0..games-1`` of ``seed`` not yet in ``path``, appending each game's puzzles and
    log line; stops early once ``path`` holds ``target`` puzzles. Yields each game's log."""
    cut = cut or Cut()
    config = config or ProofConfig()
    agents = agents or AgentCache()
    runs = ((game, functools.partial(run_game, seed, game, agents, cut, config)) for game in range(games))
    return (log for log in _append(path, runs, target) if log is not None)


RecordedGame = tuple[str, GameRecord | None]
"""A finished game's id and its record (``None``: it could not be read, and is skipped)."""


def generate_from_records(
    seed: int,
    records: Iterable[RecordedGame],
    path: Path,
    cut: Cut | None = None,
    config: ProofConfig | None = None,
    target: int | None = None,
    agents: AgentCache | None = None,
) -> Iterator[GameLog | None]:
    """Cut and prove the recorded games not yet in ``path`` as :func:`generate` does the self-play
    ones. Yields each game's log, ``None`` for a game skipped: unreadable, not ended on the board's
    referee, or of a variant (the search and the levels know the standard game only)."""
    cut = cut or Cut()
    config = config or ProofConfig()
    agents = agents or AgentCache()

    def one(game_id: str, record: GameRecord | None) -> GameLog | None:
        if record is None or record.variant != Variant():
            return None
        start = time.perf_counter()
        try:
            candidates = record_candidates(seed, game_id, record, cut)
        except KahunaError:  # a record the referee does not replay
            return None
        return _prove_all(seed, game_id, candidates, agents, config, start)

    return _append(path, ((game_id, functools.partial(one, game_id, record)) for game_id, record in records), target)


def _append(
    path: Path, games: Iterable[tuple[int | str, Callable[[], GameLog | None]]], target: int | None
) -> Iterator[GameLog | None]:
    """Run each game not yet in ``path`` and append its puzzles and its log line, until ``path``
    holds ``target`` puzzles; yields each game's log (``None`` for a game skipped, not written)."""
    done, ids, count = read_output(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as out:
        for game, run in games:
            if game in done:
                continue
            if target is not None and count >= target:
                return
            log = run()
            if log is None:
                yield None
                continue
            fresh = [p for p in log.puzzles if p.puzzle_id not in ids]
            for puzzle in fresh:
                ids.add(puzzle.puzzle_id)
                out.write(json.dumps(puzzle.to_json(), separators=(",", ":")) + "\n")
            out.write(json.dumps(log.to_json()) + "\n")
            out.flush()
            count += len(fresh)
            yield log
