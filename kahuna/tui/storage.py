"""Where games are saved, and how a saved game becomes a running one again.

The state of a game is its record. Besides deal, reshuffles and actions, ``meta["tui"]`` keeps
what the terminal needs to go on: the opponent spec, the human seat (``None`` in hot-seat) and
the seed that every later random choice (AI moves, reshuffles) is derived from, so a resumed
game plays on exactly as it would have without the interruption.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kahuna.clock import Clock, ClockError
from kahuna.datadir import data_dir
from kahuna.rules import Event, GameRecord, GameState, RecordError, ReplayError, Termination


@dataclass
class Setup:
    """The choices a game was started with."""

    opponent: str
    """An agent spec, or ``human`` for hot-seat."""
    human_seat: int | None
    """The seat of the person at the keyboard against an AI; ``None`` in hot-seat."""
    seed: int
    clock: Clock | None = None
    """The game's clock, paused while the game is not being played (saved with its time left)."""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"opponent": self.opponent, "human_seat": self.human_seat, "seed": self.seed}
        if self.clock is not None:
            out["clock"] = self.clock.to_store()
        return out

    @classmethod
    def from_meta(cls, meta: dict[str, Any]) -> Setup | None:
        data = meta.get("tui")
        if not isinstance(data, dict):
            return None
        opponent, seat, seed = data.get("opponent"), data.get("human_seat"), data.get("seed")
        if not isinstance(opponent, str) or seat not in (0, 1, None) or not isinstance(seed, int):
            raise RecordError("the record's meta.tui is malformed (opponent, human_seat, seed)")
        stored = data.get("clock")
        try:
            clock = None if stored is None else Clock.from_store(stored)
        except (ClockError, KeyError, TypeError, ValueError):
            raise RecordError("the record's meta.tui.clock is malformed") from None
        return cls(opponent, seat, seed, clock)


def default_save_path() -> Path:
    """A new file for a game's record in the data directory (:func:`kahuna.datadir.data_dir`)."""
    return data_dir() / time.strftime("game-%Y%m%d-%H%M%S.kahuna.json")


def reshuffle_rng(seed: int, actions_played: int) -> random.Random:
    """The RNG for a reshuffle due at a given point of the game: the same whether resumed or not."""
    return random.Random(f"kahuna-reshuffle:{seed}:{actions_played}")


def agent_rng(seed: int, actions_played: int) -> random.Random:
    """The RNG handed to the AI for its choice at a given point of the game."""
    return random.Random(f"kahuna-ai:{seed}:{actions_played}")


def save(path: Path, state: GameState, players: list[str], setup: Setup) -> None:
    """Write the record atomically (a crash never leaves half a file)."""
    meta = {"date": time.strftime("%Y-%m-%d"), "tui": setup.to_json()}
    text = GameRecord.of(state, players=players, meta=meta).dumps()
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text + "\n", encoding="utf-8")
    tmp.replace(path)


class _Logged:
    """A referee state that keeps each action's seat and events as a replay applies them."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.log: list[tuple[int, list[Event]]] = []

    @property
    def is_over(self) -> bool:
        return self.state.is_over

    def apply(self, action: str) -> None:
        seat = self.state.to_move
        self.log.append((seat, self.state.apply(action)))

    def terminate(self, termination: Termination) -> None:
        self.log.append((termination.seat, self.state.terminate(termination)))


def load(path: Path) -> tuple[GameRecord, GameState, list[tuple[int, list[Event]]]]:
    """The record in ``path``, its current position and each action's seat and events.

    ``KahunaError`` or ``OSError`` explain failures.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not UTF-8 text") from None
    record = GameRecord.loads(text)
    try:
        logged = record.replay_with(lambda r: _Logged(r.start()))
    except ReplayError as exc:
        raise RecordError(f"action {exc.step} ({exc.token!r}): {exc.message}") from None
    return record, logged.state, logged.log
