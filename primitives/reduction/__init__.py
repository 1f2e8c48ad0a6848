"""Reduction family: ``reduce``, ``sum``, ``prod``, ``min``, ``max`` and the classic ladder of
variants (complex sums and products: production only).

Variants (``variant=``), each a named kernel in ``kernels/reduction/reduce.cu``:

============  ==================================================================================
alpha         interleaved addressing, divergent branch (``tid % (2*s) == 0``)
beta          interleaved addressing, strided index (no divergence; shared-memory bank conflicts)
gamma         sequential addressing (conflict-free; half the threads idle at the first step)
delta         first add during load (two elements per thread)
epsilon       delta with the last warp unrolled (``__syncwarp`` between steps: correct on Volta+)
zeta          completely unrolled tree (block size a template), grid sized to the machine,
              many elements per thread
production    16-byte vector loads, shuffle-based block reduction, machine-sized grid, one launch
auto          ``production``
============  ==================================================================================

The ladder variants launch once per level on the block partials until one value is left; zeta
launches twice; production launches once.

Modules: ``_api`` (the public functions and their prepare steps), ``_checks`` (argument checks),
``_choose`` (the variant choice), ``_plans`` (the whole-array plans and mean's division),
``_axis`` (reductions over axes), ``_arg`` (argmin and argmax), ``_kernels`` (the kernels'
instantiations), ``_policy`` (tuning).
"""

from __future__ import annotations

from ._api import OPS, VARIANTS, max, min, reduce, sum  # noqa: A004 - NumPy-style names
from ._api import prod
from ._api import all, any, mean  # noqa: A004 - NumPy-style names
from ._api_arg import argmax, argmin
from ._plans import error_depth

# building blocks of the Dask layer (primitives.dask): its checks, with the same errors; and of
# the statistics (NumPy's min/max into an out of another dtype, which its fmin/fmax follow, and
# its initial's conversion)
from ._checks import check_arg_dtype, check_dtype, initial_value, into_out, normalize_axis

__all__ = [
    "reduce",
    "sum",
    "prod",
    "min",
    "max",
    "mean",
    "any",
    "all",
    "VARIANTS",
    "OPS",
    "error_depth",
    "argmin",
    "argmax",
    "check_dtype",
    "check_arg_dtype",
    "normalize_axis",
    "into_out",
    "initial_value",
]
