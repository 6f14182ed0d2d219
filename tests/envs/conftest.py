"""The research adapters' tests: those that need the ``rl`` extra are marked ``rl``.

A developer without the extra (or on a platform where OpenSpiel has no wheel) gets them skipped
by ``pytest.importorskip`` in each module; in CI (``CI`` set, as ``.ci/run`` does) a missing
library is an error instead, so a broken install cannot pass as a green run.
"""

from __future__ import annotations

import importlib.util
import os

RL_LIBRARIES = ("numpy", "gymnasium", "pettingzoo", "pyspiel")

if os.environ.get("CI"):
    _missing = [name for name in RL_LIBRARIES if importlib.util.find_spec(name) is None]
    if _missing:
        raise RuntimeError(f"{', '.join(_missing)} missing: CI runs the rl tests (pip install -e '.[dev]')")
