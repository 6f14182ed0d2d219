"""Build the optional compiled core (``kahuna.fast._core``); all metadata lives in pyproject.toml.

The extension is ``optional``: without a C compiler (or Python headers) ``pip install`` still
succeeds and the package runs on the pure-Python referee exactly as before (docs/engine.md).
"""

import sys

from setuptools import Extension, setup

if sys.platform == "win32":
    flags = ["/O2", "/fp:precise"]
else:
    # -ffp-contract=off: no fused multiply-adds, so the heuristic equals Python's bit for bit.
    flags = ["-O2", "-ffp-contract=off", "-std=c99"]

setup(
    ext_modules=[
        Extension(
            "kahuna.fast._core",
            ["kahuna/fast/_core.c"],
            depends=["kahuna/fast/_netsearch.inc.c"],  # #included by _core.c: an edit rebuilds
            extra_compile_args=flags,
            optional=True,
        ),
    ]
)
