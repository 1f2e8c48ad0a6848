"""SpMV tuning, as data (see :mod:`primitives.tuning`); family ``"sparse"``.

Selectors: ``"rows"`` (the row-parallel kernels: csr_scalar, csr_vector, ell, the scaling of y
and the merge-path partition), ``"convert"`` (the format conversions), ``("merge_path", value
dtype name)``, ``("csr_vector", value dtype name)``, ``"coo"`` (the reduction by key over COO
products), ``"fixup"`` (the reduction by key over carries) and ``"auto"`` (the rule of
:func:`primitives.sparse.choose_variant`). One provenance line per tuned value; the experiments
behind them are in docs/perf-log/.
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np

from .._core import policy as _policy
from .._core.policy import knob

#: csr_vector's instantiated group widths (lanes per row)
LANES = (2, 4, 8, 16, 32)


def _steps(steps):
    """Whether ``steps`` is a tuple of (mean below, lanes) pairs, means and lanes increasing,
    lanes from 1 to 32 (a warp)."""
    if not isinstance(steps, tuple) or not all(isinstance(s, tuple) and len(s) == 2 for s in steps):
        return False
    means, lanes = [m for m, _ in steps], [n for _, n in steps]
    return (
        all(isinstance(m, numbers.Real) and m > 0 for m in means)
        and all(isinstance(n, numbers.Integral) and 1 <= n <= 32 for n in lanes)
        and means == sorted(set(means))
        and lanes == sorted(lanes)
    )


@dataclasses.dataclass(frozen=True)
class BlockPolicy:
    block: int = knob(_policy.BLOCK)  # threads per block of a grid-stride kernel (whole warps)


@dataclasses.dataclass(frozen=True)
class TilePolicy:
    # threads per block, a template parameter (by_key.cuh's static_assert: whole warps)
    block: int = knob(_policy.BLOCK)
    # items per thread: a tile is block * items items, a template parameter (at most 32:
    # reduce_by_key_tile's static_assert, in the COO and carry kernels; merge_path's tile, one
    # policy per value type, must also fit its 48 KiB of static shared memory)
    items: int = knob(_policy.Range(1, 32))


@dataclasses.dataclass(frozen=True)
class VectorPolicy:
    """csr_vector's lanes per row from the mean row length: the target is the lanes of the
    first ``(below, lanes)`` step whose bound the mean is below, else ``mean / per_lane``; the
    width is the narrowest of :data:`LANES` at least the target."""

    steps: tuple = knob(
        _policy.Rule(
            _steps, "a tuple of (mean below, lanes) pairs, both increasing, lanes from 1 to 32"
        )
    )
    # entries per lane past the steps (at least one entry a lane)
    per_lane: float = knob(_policy.Real(1.0))
    # a fixed width of LANES for every mean (sweeps); 0: the rule above
    lanes: int = knob(_policy.OneOf(0, *LANES), 0)
    # auto: csr_vector for even rows too few for ELL when rows x lanes is at least this
    min_threads: int = knob(_policy.Range(0), 1 << 17)


@dataclasses.dataclass(frozen=True)
class AutoPolicy:
    """``auto`` for CSR: ELL for many rows of nearly one length; rows are *even* when their
    lengths vary little and none is far above the mean."""

    # ELL when rows x longest row <= this x nonzeros (0: never) ...
    ell_max_fill: float = knob(_policy.Real(0.0))
    ell_min_rows: int = knob(_policy.Range(0))  # ... and the matrix has at least this many rows
    # largest coefficient of variation of the row lengths of even rows
    even_cv: float = knob(_policy.Real(0.0))
    # largest longest-row / mean of even rows
    even_max_over_mean: float = knob(_policy.Real(0.0))


TABLE = _policy.register(
    "sparse",
    {
        # the row-parallel kernels' block (not tuned: any block of whole warps works)
        ("default", "rows"): BlockPolicy(block=256),
        # the conversions' block (not tuned: one-off grid-stride launches)
        ("default", "convert"): BlockPolicy(block=256),
        # H100, tools/figures/spmv.py sweep 128x8 .. 256x12: 256x8 best or within 2% on the skewed,
        # dense-row and empty-row matrices (smaller staging leaves L1 to the gathers from x)
        ("default", ("merge_path", "float32")): TilePolicy(block=256, items=8),
        ("default", ("merge_path", "float64")): TilePolicy(block=256, items=8),
        # complex: not tuned yet; to be measured on an H100. complex64 takes float64's tile (the
        # same 8-byte values); complex128's 16-byte products need a tile of 1024 items to fit the
        # kernel's static shared memory (48 KiB) with long long indices
        ("default", ("merge_path", "complex64")): TilePolicy(block=256, items=8),
        ("default", ("merge_path", "complex128")): TilePolicy(block=128, items=8),
        # H100, suite's even matrices (tools/figures/spmv.py lanes sweep): the 27-point stencil ran
        # 7% faster on 8 lanes than on 4; long rows about one lane per 12 entries
        # auto's threshold (min_threads), H200, tools.tune.spmv_auto: long_rows (1024 rows of 65536,
        # 32 lanes each: 32768 threads) ran fastest on csr_vector in four runs, merge_path 1.039-1.061x
        # its time; in float64 merge_path is the fastest there, csr_vector 1.050-1.063x
        ("default", ("csr_vector", "float32")): VectorPolicy(
            steps=((8, 2), (16, 4), (96, 8)), per_lane=12.0, min_threads=1 << 15
        ),
        # H100, suite's even matrices: float64 rows (12 bytes per entry) about one lane per 2 entries
        ("default", ("csr_vector", "float64")): VectorPolicy(
            steps=(), per_lane=2.0, min_threads=1 << 17
        ),
        # complex: not tuned yet; to be measured on an H100 (float64's rule: complex64 entries are
        # as wide, complex128 ones wider still)
        ("default", ("csr_vector", "complex64")): VectorPolicy(
            steps=(), per_lane=2.0, min_threads=1 << 17
        ),
        ("default", ("csr_vector", "complex128")): VectorPolicy(
            steps=(), per_lane=2.0, min_threads=1 << 17
        ),
        # the reductions by key: 256 x 8 as merge_path's tile (not tuned separately)
        ("default", "coo"): TilePolicy(block=256, items=8),
        ("default", "fixup"): TilePolicy(block=256, items=8),
        # H200, tools.tune.spmv_auto over the suite and testing.matrices.WIDE, float32 and float64
        # (the table in docs/spmv.rst): ELL (a conversion kept on the container) is fastest or
        # within 3% on every matrix of at least 2^16 rows whose longest row is at most 1.5x the
        # mean, and since its kernels per width and whole grid (62337c7) fastest or within 1.3% on
        # the rows spread to 1.7x and 1.9x the mean too, where merge_path ran up to 4.9% slower in
        # float32 (the threshold was 1.5 before); csr_vector ran 1.1-2.6x slower and merge_path
        # 1.05-2.8x on the even matrices; csr_vector fastest on the even rows of rows_32k (32768
        # rows of 1024, 32 lanes each: 5-8% ahead of merge_path), merge_path within 4-6% on
        # long_rows in float32 (1024 rows of 65536: 32768 threads leave most of the GPU idle; in
        # float64 merge_path is the fastest), and on all the skewed ones. The rows counted are those
        # the ELL conversion stores: since 547922a it leaves out empty rows whose padding would
        # outweigh the rows, and empty_rows (7 in 8 empty, the others of 96) ran ELL over the others
        # 0.852x (float32) and 0.785x (float64) cuSPARSE's time, merge_path 0.951x and 0.934x
        ("default", "auto"): AutoPolicy(
            ell_max_fill=2.0, ell_min_rows=1 << 16, even_cv=0.5, even_max_over_mean=4.0
        ),
    },
    doc="row-parallel and conversion blocks; merge_path and reduction-by-key tiles; csr_vector "
    "lanes; the auto rule's thresholds",
)


def rows():
    return _policy.current("sparse", "rows")


def convert():
    return _policy.current("sparse", "convert")


def merge_path(vt):
    return _policy.current("sparse", ("merge_path", np.dtype(vt).name))


def csr_vector(vt):
    return current_vector(np.dtype(vt).name)


def current_vector(name):
    return _policy.current("sparse", ("csr_vector", name))


def coo():
    return _policy.current("sparse", "coo")


def fixup():
    return _policy.current("sparse", "fixup")


def auto():
    return _policy.current("sparse", "auto")


policies = TABLE.policies
