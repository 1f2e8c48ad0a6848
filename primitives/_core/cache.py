"""Where the package keeps what it writes to disk: ``$PRIMITIVES_CACHE_DIR`` (default
``~/.cache/primitives``), one folder per kind (``cubin``: kernels compiled on first use,
``emulator``: the emulator's shared objects, ``compile-logs``: the whole logs of failed compiles).

Depends only on the standard library (the emulator imports it).
"""

from __future__ import annotations

import os
import pathlib

__all__ = ["cache_dir"]


def cache_dir(kind: str) -> pathlib.Path:
    """The folder of ``kind`` under the cache root (not created here)."""
    base = os.environ.get("PRIMITIVES_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "primitives"
    )
    return pathlib.Path(base) / kind
