"""Where the CUDA toolkit's programs are (compute-sanitizer, ptxas), for the tools that run them."""

import os
import shutil


def places(patterns):
    """``patterns`` with ``{cuda}`` as the toolkit's root: ``$CUDA_HOME``, ``$CUDA_PATH`` or
    /usr/local/cuda."""
    cuda = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH") or "/usr/local/cuda"
    return [p.format(cuda=cuda) for p in patterns]


def find(name, patterns):
    """The executable ``name`` on PATH, else the first of :func:`places` (``patterns``) that is
    one; None where there is none."""
    found = shutil.which(name)
    if found:
        return found
    return next((p for p in places(patterns) if os.path.isfile(p) and os.access(p, os.X_OK)), None)
