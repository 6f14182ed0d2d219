"""The policy/value network at play time: a small multilayer perceptron evaluated with numpy.

Input: the observation of a seat's player view (:mod:`kahuna.ai.agents.features`, ``float32[173]``).
Output: a logit for each of the 243 actions (:attr:`kahuna.rules.Action.index`; the caller keeps
only the legal ones) and the probability that the seat to move wins the game.

The network is trained with PyTorch (``kahuna train``, the ``train`` extra), but play needs only
numpy, a core dependency: :meth:`Network.evaluate` is a few float32 matrix-vector products
(about 20 µs for two hidden layers of 128), for training and analysis. The search evaluates
positions with :meth:`Network.hidden` and :meth:`Network.logits`, which add the same products
in double precision in one fixed order, the order of the compiled core's forward pass
(:meth:`Network.compiled`, ``kahuna/fast/src/net.c``, a few µs), so that the Python and
the compiled search compute the same numbers. A weights file is an ``.npz`` of the layers'
arrays plus a JSON ``meta`` string (sizes, how it was trained); the torch model in
:mod:`kahuna.ai.training.model` exports exactly these arrays, and a test checks both forward
passes agree on saved weights.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from kahuna.ai.agents import WEIGHTS_DIR
from kahuna.ai.agents.features import OBS_SIZE
from kahuna.rules import NUM_ACTIONS

LAYERS = ("w1", "b1", "w2", "b2", "wp", "bp", "wv", "bv")
"""The arrays of a weights file: two hidden layers, the policy head and the value head."""

Floats = npt.NDArray[np.float32]
Doubles = npt.NDArray[np.float64]


class Network:
    """Evaluates positions: ``evaluate(obs)`` → (action logits, win probability of the mover)."""

    def __init__(self, arrays: dict[str, Floats], meta: dict[str, object] | None = None) -> None:
        missing = [k for k in LAYERS if k not in arrays]
        if missing:
            raise ValueError(f"weights lack {', '.join(missing)}")
        self.w1, self.b1 = arrays["w1"], arrays["b1"]
        self.w2, self.b2 = arrays["w2"], arrays["b2"]
        self.wp, self.bp = arrays["wp"], arrays["bp"]
        self.wv, self.bv = arrays["wv"], arrays["bv"]
        if self.w1.shape[0] != OBS_SIZE or self.wp.shape[1] != NUM_ACTIONS or self.wv.shape[1] != 1:
            raise ValueError(f"weights of shape {self.w1.shape} → {self.wp.shape} do not fit the observation")
        self.meta = meta or {}
        self._compiled: Any = None

    @classmethod
    def random(cls, seed: int, hidden: int = 16, meta: dict[str, Any] | None = None) -> Network:
        """An untrained network of width ``hidden`` with normal(0, 0.5) weights drawn from
        ``seed``: a network whose numbers are nothing like the shipped one's, for checking that
        searches and forward passes agree on any weights, not only on trained ones."""
        rng = np.random.default_rng(seed)
        shapes = {
            "w1": (OBS_SIZE, hidden),
            "b1": (hidden,),
            "w2": (hidden, hidden),
            "b2": (hidden,),
            "wp": (hidden, NUM_ACTIONS),
            "bp": (NUM_ACTIONS,),
            "wv": (hidden, 1),
            "bv": (1,),
        }
        return cls({k: rng.normal(0, 0.5, shapes[k]).astype(np.float32) for k in LAYERS}, meta)

    @classmethod
    def load(cls, path: str | Path) -> Network:
        """From an ``.npz`` written by :meth:`save` (no pickles are read)."""
        with np.load(Path(path), allow_pickle=False) as data:
            arrays = {k: np.asarray(data[k], dtype=np.float32) for k in LAYERS if k in data}
            meta = json.loads(str(data["meta"])) if "meta" in data else {}
        return cls(arrays, meta)

    def save(self, path: str | Path) -> None:
        arrays = {k: getattr(self, k) for k in LAYERS}
        np.savez_compressed(Path(path), meta=np.array(json.dumps(self.meta)), **arrays)

    def evaluate(self, obs: Floats) -> tuple[Floats, float]:
        """Action logits (all 243) and the mover's win probability for one observation."""
        h = np.maximum(obs @ self.w1 + self.b1, 0.0)
        h = np.maximum(h @ self.w2 + self.b2, 0.0)
        logits = h @ self.wp + self.bp
        v = float((h @ self.wv + self.bv)[0])
        return logits, 1.0 / (1.0 + math.exp(-max(v, -60.0)))

    def hidden(self, obs: Floats) -> tuple[Doubles, float]:
        """The last hidden layer and the mover's win probability, computed as the compiled core
        computes them: in double precision, adding input by input and unit by unit in increasing
        order, skipping zeros (so the network search gives the same numbers in Python and in C,
        which :meth:`evaluate`'s float32 matrix products would not)."""
        h = _layer(obs, self.w1, self.b1)
        h = _layer(h, self.w2, self.b2)
        (v,) = _ordered_sum(self.bv, h, self.wv)
        return h, 1.0 / (1.0 + math.exp(-max(float(v), -60.0)))

    def logits(self, hidden: Doubles, actions: list[int]) -> list[float]:
        """The policy logits of some actions from a last hidden layer of :meth:`hidden`, in the
        compiled core's order (a search needs the logits of a few actions, not all 243)."""
        return [float(x) for x in _ordered_sum(self.bp[actions], hidden, self.wp[:, actions])]

    def compiled(self) -> Any:
        """The network as the compiled core's ``Net`` (built once; the weights must not change
        afterwards), for the compiled search; ``CoreUnavailableError`` without the extension."""
        if self._compiled is None:
            from kahuna.fast import core_module

            self._compiled = core_module().Net(*(np.ascontiguousarray(getattr(self, k)) for k in LAYERS))
        return self._compiled

    def __getstate__(self) -> dict[str, Any]:
        # The compiled copy cannot be pickled (arena workers receive agents): rebuilt on demand.
        return {**self.__dict__, "_compiled": None}

    def evaluate_batch(self, obs: Floats) -> tuple[Floats, Floats]:
        """The same for a batch ``float32[n, 173]``: logits ``[n, 243]`` and win probabilities ``[n]``."""
        h = np.maximum(obs @ self.w1 + self.b1, 0.0)
        h = np.maximum(h @ self.w2 + self.b2, 0.0)
        v = (h @ self.wv + self.bv)[:, 0]
        return h @ self.wp + self.bp, (1.0 / (1.0 + np.exp(-v))).astype(np.float32)


def _ordered_sum(bias: Floats, x: npt.NDArray[np.floating[Any]], w: Floats) -> Doubles:
    """``bias + x @ w`` in double, adding the products ``x[i] * w[i]`` of the non-zero inputs one
    row after another, in order (``np.add.accumulate``: a matrix product or ``np.sum`` would add
    them in another order, with other roundings)."""
    rows = np.flatnonzero(x)
    terms = np.empty((len(rows) + 1, w.shape[1]))
    terms[0] = bias
    terms[1:] = x[rows].astype(np.float64)[:, None] * w[rows].astype(np.float64)
    out: Doubles = np.add.accumulate(terms, axis=0)[-1]
    return out


def _layer(x: npt.NDArray[np.floating[Any]], w: Floats, b: Floats) -> Doubles:
    """``relu(x @ w + b)`` accumulated as the compiled core does (:func:`_ordered_sum`)."""
    return np.maximum(_ordered_sum(b, x, w), 0.0)


def shipped(name: str) -> Path:
    """The path of a weights file shipped in the package (``kahuna/ai/agents/weights/NAME.npz``)."""
    return WEIGHTS_DIR / f"{name}.npz"


def load_network(name_or_path: str) -> Network:
    """A shipped network by name, or one from a file path."""
    path = shipped(name_or_path)
    return Network.load(path if path.is_file() else Path(name_or_path))
