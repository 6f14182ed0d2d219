"""Build the optional compiled core (``kahuna.fast._core``); all metadata lives in pyproject.toml.

The extension is ``optional``: without a C compiler (or Python headers) ``pip install`` still
succeeds and the package runs on the pure-Python referee exactly as before (docs/engine.md).
Its sources are every ``kahuna/fast/src/*.c``, each compiled on its own (one concern per file,
with its header beside it; ``module.c`` lists them).
"""

import sys
from pathlib import Path

from setuptools import Extension, setup

SOURCES = sorted(str(path) for path in Path("kahuna/fast/src").glob("*.c"))
HEADERS = sorted(str(path) for path in Path("kahuna/fast/src").glob("*.h"))

if sys.platform == "win32":
    flags = ["/O2", "/fp:precise"]
else:
    # -ffp-contract=off: no fused multiply-adds, so the heuristic and the network equal Python's
    # bit for bit; -fvisibility=hidden: the units call each other directly, and only PyInit__core
    # is exported.
    flags = ["-O2", "-ffp-contract=off", "-std=c99", "-fvisibility=hidden"]

setup(
    ext_modules=[
        Extension(
            "kahuna.fast._core",
            SOURCES,
            depends=HEADERS,  # an edited header rebuilds the units
            extra_compile_args=flags,
            optional=True,
        ),
    ]
)
