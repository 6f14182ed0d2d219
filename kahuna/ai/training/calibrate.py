"""Is the value head's win probability honest? Predicted against observed, on held-out games.

The network's own search plays games from seeds that training never uses; every searched position
gets the value head's estimate for the mover and, at the end, the mover's result (1, ½, 0). The
table is the one of ``kahuna analyse``'s calibration (:func:`kahuna.ai.eval.calibration.reliability`):
ten bins, the observed rate with a Wilson interval, the Brier score and the expected calibration
error. Positions of one game are not independent, so the intervals are too narrow. numpy only.
"""

from __future__ import annotations

from typing import Any

from kahuna.ai.agents.net import Network
from kahuna.ai.agents.netsearch import NetSearchConfig
from kahuna.ai.eval.calibration import Sample, reliability
from kahuna.ai.training.selfplay import network_search, play
from kahuna.progress import Progress


def value_calibration(
    net: Network, games: int, seed: int, config: NetSearchConfig, explore: int, progress: bool | None = None
) -> dict[str, Any]:
    """The reliability table of ``net``'s value head over ``games`` held-out self-play games."""
    search = network_search(net, config)
    samples: list[Sample] = []
    with Progress(games, "calibration games", enabled=progress) as bar:
        for k in range(games):
            positions, _ = play(search, f"kahuna-calibrate:{seed}:{k}", explore)
            if len(positions):
                _, values = net.evaluate_batch(positions.obs)
                for step, (estimate, outcome) in enumerate(zip(values, positions.value, strict=True)):
                    samples.append(Sample(f"game{k}", step, float(estimate), float(estimate), float(outcome)))
            bar.advance()
    return reliability(samples)
