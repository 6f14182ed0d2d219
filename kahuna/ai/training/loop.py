"""The training run: generations of self-play, training and the arena gate, resumable at any point.

A run lives in one directory::

    state.json      where the run is (generation, stage, games done in the stage) and its settings
    data/           the positions of each self-play game (gGGG-NNNNN.npz), the replay buffer's source
                    (every tenth game held out to stop training early)
    best.npz/.pt    the network that self-play uses (numpy for play, torch to train on)
    candidate.*     the network trained this generation, waiting for the gate
    log.jsonl       one line per generation: losses, gate result, Elo, score against the reference
    elo.png         Elo per generation (matplotlib)

Generation 0 trains a fresh network on the teacher's games (the heuristic ISMCTS, ``--teacher-games``)
or, without a teacher, on the games of an untrained network's search; it becomes the first best
network without a gate. Every later generation plays ``--games`` self-play games with the best
network's search, trains a candidate from the best network's weights on the newest ``--buffer``
positions, and plays the candidate against the best one (``--gate-games``, seat-swapped deals):
the candidate replaces it only with a score of at least ``--gate`` (55 %). Each accepted network
then plays ``--reference`` (a fixed agent, ``hard`` by default) to put the generations on one scale.

Every game and every training step is saved as soon as it is done (files are replaced atomically),
and every game is fixed by the run's seed, the generation and its number, so a run stopped at any
point (Ctrl-C, a time budget, a crash) and continued with the same command gives what an
uninterrupted run gives.
"""

from __future__ import annotations

import json
import time
import zlib
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import torch

from kahuna.ai.agents.heuristic import load_weights
from kahuna.ai.agents.net import Network
from kahuna.ai.agents.netsearch import NetSearchConfig
from kahuna.ai.eval.stats import elo_difference, paired_interval
from kahuna.ai.training.games import Games, Job, MatchGame, Player, SelfPlayGame
from kahuna.ai.training.model import PolicyValueNet, train
from kahuna.ai.training.selfplay import Positions
from kahuna.progress import Progress

STAGES = ("selfplay", "train", "gate", "reference")


@dataclass(frozen=True)
class TrainConfig:
    """The settings of a run (``kahuna train --help`` explains each)."""

    seed: int = 0
    generations: int = 10
    teacher_games: int = 200
    teacher_iterations: int = 1500
    games: int = 100
    iterations: int = 100
    c_puct: float = 1.5
    mix: float = 0.0
    playout: int = 2
    heuristic: str = ""
    explore: int = 12
    buffer: int = 100_000
    epochs: int = 4
    batch: int = 256
    lr: float = 1e-3
    value_weight: float = 1.0
    hidden: int = 128
    gate_games: int = 200
    gate: float = 0.55
    reference: str = "hard"
    reference_games: int = 20

    def search(self) -> NetSearchConfig:
        """The network-guided search of self-play, the gate, the reference games and calibration."""
        return NetSearchConfig(
            iterations=self.iterations,
            c_puct=self.c_puct,
            mix=self.mix,
            playout_turns=self.playout,
            heuristic=load_weights(self.heuristic),
        )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> TrainConfig:
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})


class Stopped(Exception):
    """The run's budget (units of work or minutes) is spent; the state on disk is complete."""


class Run:
    """A training run in a directory (see the module docstring)."""

    def __init__(self, directory: Path, config: TrainConfig, progress: bool | None = False, jobs: int = 1) -> None:
        """``progress``: draw progress bars (None: when standard error is a terminal); ``jobs``:
        games played at once in worker processes (the results do not depend on it)."""
        self.dir = directory
        self.progress = progress
        self.jobs = jobs
        self.state_path = directory / "state.json"
        if self.state_path.is_file():
            saved = json.loads(self.state_path.read_text(encoding="utf-8"))
            stored = TrainConfig.from_json(saved["config"])
            # A continued run keeps its settings; only the number of generations may grow.
            self.config = TrainConfig(**{**asdict(stored), "generations": config.generations})
            self.state: dict[str, Any] = saved
        else:
            directory.mkdir(parents=True, exist_ok=True)
            (directory / "data").mkdir(exist_ok=True)
            self.config = config
            self.state = {"generation": 0, "stage": "selfplay", "done": 0, "scores": [], "elo": 0.0}
        self.state["config"] = asdict(self.config)
        self._units_left: int | None = None
        self._pool = Games(1)
        self._deadline: float | None = None

    # -- bookkeeping ---------------------------------------------------------------------------

    def _save_state(self) -> None:
        tmp = self.state_path.with_name("state.json.tmp")
        tmp.write_text(json.dumps(self.state, indent=1) + "\n", encoding="utf-8")
        tmp.replace(self.state_path)

    def _spend(self) -> None:
        """Called before each unit of work: stop here when the budget is spent."""
        if self._units_left is not None:
            if self._units_left <= 0:
                raise Stopped
            self._units_left -= 1
        if self._deadline is not None and time.monotonic() >= self._deadline:
            raise Stopped

    def _next_stage(self, stage: str) -> None:
        self.state.update(stage=stage, done=0, scores=[])
        self._save_state()

    def _log(self, entry: dict[str, Any]) -> None:
        with (self.dir / "log.jsonl").open("a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def log_entries(self) -> list[dict[str, Any]]:
        path = self.dir / "log.jsonl"
        if not path.is_file():
            return []
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]

    def _network(self, name: str) -> Network:
        return Network.load(self.dir / f"{name}.npz")

    # -- the run -------------------------------------------------------------------------------

    def run(self, units: int | None = None, minutes: float | None = None) -> bool:
        """Work until the configured generations are done (True) or the budget is spent (False)."""
        self._units_left = units
        self._deadline = None if minutes is None else time.monotonic() + 60 * minutes
        torch.set_num_threads(1)
        self._pool = Games(self.jobs)
        try:
            while self.state["generation"] < self.config.generations:
                stage = self.state["stage"]
                if stage == "selfplay":
                    self._selfplay()
                elif stage == "train":
                    self._train()
                elif stage == "gate":
                    self._gate()
                else:
                    self._reference()
        except Stopped:
            return False
        finally:
            self._pool.close()
        return True

    def _going_on(self) -> bool:
        try:
            self._spend()
        except Stopped:
            return False
        return True

    def _games(self, total: int, label: str, make: Callable[[int], Job], record: Callable[[float], None]) -> None:
        """Play games ``done`` … ``total - 1`` of the stage (``make(k)`` is game k), recording each
        result in order and saving the state after each; Stopped when the budget ends first."""
        with Progress(total, label, enabled=self.progress) as bar:
            bar.advance(self.state["done"])
            for result in self._pool.results(make, self.state["done"], total, self._going_on):
                record(result)
                self.state["done"] += 1
                self._save_state()
                bar.advance()
            if self.state["done"] < total:
                raise Stopped

    def _selfplay(self) -> None:
        c, g = self.config, self.state["generation"]
        teacher = c.teacher_iterations if g == 0 and c.teacher_games else 0
        net: Network | None = None
        if teacher:
            total, label = c.teacher_games, "teacher games"
        else:
            net = self._network("best") if g else PolicyValueNet(c.hidden).export({}) if self._seed_model() else None
            total, label = c.games, f"gen {g} self-play games"

        def make(k: int) -> Job:
            path = self.dir / "data" / f"g{g:03d}-{k:05d}.npz"
            seed = f"kahuna-train:{c.seed}:gen{g}:game{k}"
            return SelfPlayGame(seed, c.explore, path, teacher, net, self._search_config())

        self._games(total, label, make, lambda _: None)
        self._next_stage("train")

    def _seed_model(self) -> bool:
        torch.manual_seed(self.config.seed)
        return True

    def _buffer(self) -> tuple[Positions, Positions]:
        """The newest ``buffer`` positions over all generations so far, as (training, validation):
        every tenth game (by its file name's CRC) is held out to stop training early."""
        chosen: list[Path] = []
        count = 0
        for path in sorted((self.dir / "data").glob("g*.npz"), reverse=True):
            chosen.append(path)
            count += len(Positions.load(path))
            if count >= self.config.buffer:
                break
        chosen.reverse()
        held = [p for p in chosen if zlib.crc32(p.name.encode()) % 10 == 0]
        kept = [p for p in chosen if zlib.crc32(p.name.encode()) % 10 != 0]
        return Positions.concat([Positions.load(p) for p in kept]), Positions.concat([Positions.load(p) for p in held])

    def _train(self) -> None:
        self._spend()
        c, g = self.config, self.state["generation"]
        torch.manual_seed(c.seed * 1000 + g)
        model = PolicyValueNet(c.hidden)
        if g:
            model.load_state_dict(torch.load(self.dir / "best.pt", weights_only=True))
        data, validation = self._buffer()
        history = train(
            model, data, c.epochs, c.batch, c.lr, c.seed * 1000 + g, validation=validation, value_weight=c.value_weight
        )
        meta = {"generation": g, "positions": len(data), "seed": c.seed, "trained": "kahuna train"}
        net = model.export(meta)
        net.save(self.dir / "candidate.npz")
        torch.save(model.state_dict(), self.dir / "candidate.pt")
        best = history[-1]
        if len(validation):
            best = min(history, key=lambda h: h["val_policy_loss"] + c.value_weight * h["val_value_loss"])
        self.state["train"] = {"positions": len(data), "held_out": len(validation), "losses": best}
        if g == 0:
            self._accept()
            self._next_stage("reference")
        else:
            self._next_stage("gate")

    def _accept(self) -> None:
        (self.dir / "candidate.npz").replace(self.dir / "best.npz")
        (self.dir / "candidate.pt").replace(self.dir / "best.pt")

    def _search_config(self) -> NetSearchConfig:
        return self.config.search()

    def _net_player(self, name: str) -> Player:
        return Player(name, self._network(name), self._search_config())

    def _gate(self) -> None:
        c, g = self.config, self.state["generation"]
        candidate, best = self._net_player("candidate"), self._net_player("best")
        seed = 1_000_000 + c.seed * 1000 + g

        def make(k: int) -> Job:
            return MatchGame(candidate, best, seed, k)

        self._games(c.gate_games, f"gen {g} gate games", make, self.state["scores"].append)
        scores: list[float] = self.state["scores"]
        rate = sum(scores) / len(scores)
        accepted = rate >= c.gate
        entry = self._entry(g, scores, "gate")
        entry["accepted"] = accepted
        if accepted:
            self._accept()
            self.state["elo"] += elo_difference(rate)
        entry["elo"] = self.state["elo"]
        self.state["pending"] = entry
        self._next_stage("reference" if accepted else "done")
        if not accepted:
            self._finish_generation()

    def _reference(self) -> None:
        c, g = self.config, self.state["generation"]
        pending: dict[str, Any] = self.state.get("pending") or {"generation": g, "accepted": True, "elo": 0.0}
        if c.reference_games:
            best, reference = self._net_player("best"), Player(c.reference, spec=c.reference)
            seed = 2_000_000 + c.seed * 1000 + g

            def make(k: int) -> Job:
                return MatchGame(best, reference, seed, k)

            self._games(c.reference_games, f"gen {g} games against {c.reference}", make, self.state["scores"].append)
            pending["reference"] = {"agent": c.reference, **self._entry(g, self.state["scores"], "reference")}
        self.state["pending"] = pending
        self._finish_generation()

    def _entry(self, g: int, scores: list[float], what: str) -> dict[str, Any]:
        pairs = [sum(scores[i : i + 2]) / len(scores[i : i + 2]) for i in range(0, len(scores), 2)]
        rate = sum(scores) / len(scores) if scores else 0.5
        low, high = paired_interval(pairs, len(scores)) if scores else (0.0, 1.0)
        return {
            "generation": g,
            f"{what}_games": len(scores),
            f"{what}_score": rate,
            f"{what}_interval95": [low, high],
            f"{what}_elo": elo_difference(rate),
        }

    def _finish_generation(self) -> None:
        entry = dict(self.state.get("pending") or {})
        entry.update(self.state.get("train", {}))
        entry["generation"] = self.state["generation"]
        self._log(entry)
        self.state.update(generation=self.state["generation"] + 1, pending=None, train={})
        self._next_stage("selfplay")
        plot(self.log_entries(), self.dir / "elo.png")


def plot(entries: list[dict[str, Any]], path: Path) -> bool:
    """Elo per generation as a PNG (best network's cumulative gate Elo, and Elo against the
    reference with its 95 % interval); False when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig, ax = plt.subplots(figsize=(6, 3.5))
    gens = [e["generation"] for e in entries]
    ax.plot(gens, [e.get("elo", 0.0) for e in entries], marker="o", label="best network, cumulative gate Elo")
    agents = sorted({e["reference"]["agent"] for e in entries if "reference" in e})
    for agent in agents:  # one series per reference agent (a continued run may change it)
        refs = [e for e in entries if "reference" in e and e["reference"]["agent"] == agent]
        ys = np.array([r["reference"]["reference_elo"] for r in refs])
        lows = np.array([elo_difference(r["reference"]["reference_interval95"][0]) for r in refs])
        highs = np.array([elo_difference(r["reference"]["reference_interval95"][1]) for r in refs])
        ax.errorbar(
            [r["generation"] for r in refs],
            ys,
            yerr=[ys - lows, highs - ys],
            marker="s",
            capsize=3,
            label=f"against {agent} (95 % interval)",
        )
    ax.set_xlabel("generation")
    ax.set_ylabel("Elo")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    tmp = path.with_name(path.name + ".tmp.png")
    fig.savefig(tmp, dpi=100)
    plt.close(fig)
    tmp.replace(path)
    return True
