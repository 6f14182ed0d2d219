"""The agents: the heuristic, the greedy planner, ISMCTS (Python and compiled), the network and its
search, and external programs; each made from a spec by :mod:`kahuna.ai.registry`, which they
never import. Their tuned parameters ship in ``weights/`` (:data:`WEIGHTS_DIR`)."""

from pathlib import Path

WEIGHTS_DIR = Path(__file__).parent / "weights"
"""Parameters shipped with the package: ``NAME.json`` heuristic weights (``weights=NAME`` in a
greedy or ISMCTS spec) and ``NAME.npz`` networks (``weights=NAME`` in a net spec)."""
