"""SpMV plans: one plan per (variant, dtypes, sizes, policies, stream), over the kernels of
:mod:`._kernels`.

A plan holds its variant's launches, checked once when it is made (:class:`Launch`), and the
scratch of the reductions by key (the carries of merge_path and COO tiles and the levels of
their fix-up). It takes the matrix per call: a plan serves every matrix of its format, dtypes and
sizes. What depends on a matrix's values (the merge-path partition of its rows) is kept on the
matrix, per tile size and stream, made at its first product.
"""

from __future__ import annotations

import cmath
import math

import numpy as np

from .._core import backend as _backend, launch as _launch, loader as _loader, plans as _plans
from . import _kernels as _k, _policy
from ._choose import vector_lanes

#: the format each variant runs on
FORMAT_OF = {
    "csr_scalar": "csr",
    "csr_vector": "csr",
    "merge_path": "csr",
    "ell": "ell",
    "coo": "coo",
    "hyb": "hyb",
}
LANES = _policy.LANES


def _resident(kernel, n_items, block):
    """A checked launch of a grid-stride ``kernel`` over ``n_items``, grid capped at the
    resident blocks."""
    return _plans.Launch(kernel, _launch.cover_grid(n_items, block, kernel=kernel), block)


def kernel_scalar(v, backend=None):
    """A NumPy scalar ``v`` as a kernel's value parameter: as it is for the real types and, on the
    GPU, for the complex ones (CuPy passes complex64/complex128 by their bytes); the emulator takes
    a structure parameter (prim::c64/c128) as a ``numpy.void`` of its bytes."""
    if v.dtype.kind != "c" or (backend or _backend.get_backend()).is_cuda:
        return v
    return np.asarray(v).view(f"V{v.dtype.itemsize}")[()]


# ---- the reduction by key's fix-up ---------------------------------------------------------------


class FixupChain:
    """Launches that fold ``n`` carries (one per tile of the previous launch) into y: each level
    leaves one carry per tile of its own, until a single tile is left."""

    def __init__(self, n, vt, it, xp, pol):
        k = _k.coo_module()(_k.fixup_name(vt, it, pol))
        tile = pol.block * pol.items
        self.levels = []
        while n > 1:
            grid = _launch.cdiv(n, tile)
            self.levels.append(
                (
                    _plans.Launch(k, grid, pol.block),
                    _launch.i64(n),
                    xp.empty(grid, dtype=it),
                    xp.empty(grid, dtype=vt),
                )
            )
            n = grid
        self.nbytes = _plans.scratch_bytes(*(a for lv in self.levels for a in lv[2:]))

    def __call__(self, keys, vals, alpha, y):
        for launch, n, out_keys, out_vals in self.levels:
            launch(keys, vals, n, alpha, y, out_keys, out_vals)
            keys, vals = out_keys, out_vals


# ---- plans ------------------------------------------------------------------------------------


class SpmvPlan(_plans.Plan):
    """One variant for matrices of one format, dtypes and size (m rows).

    ``run(A, x, out, alpha, beta)`` computes ``out <- alpha*A*x + beta*out`` for a container
    ``A`` of the plan's configuration, contiguous ``x`` and ``out`` of its value dtype and a
    finite ``alpha`` and a ``beta`` of that dtype, as kernel parameters (:func:`kernel_scalar`).
    ``apply`` takes any ``alpha`` and ``beta`` (real, or complex for a complex value dtype).
    Calling the plan does what :func:`spmv` does for arguments a call checked before (the
    repeat path): a new ``out`` when ``y`` is None.
    """

    def __init__(self, m, vt):
        backend = _backend.get_backend()
        self.m, self.m64 = m, _launch.i64(m)
        self.vt, self.t = np.dtype(vt), np.dtype(vt).type
        self.xp = backend.xp
        cplx = self.vt.kind == "c"
        self.finite = cmath.isfinite if cplx else math.isfinite
        self.scalar = complex if cplx else float  # Python scalars first: NumPy's ones convert
        self.karg = (
            (lambda v: kernel_scalar(v, backend)) if cplx and not backend.is_cuda else (lambda v: v)
        )

    def __call__(self, A, x, y, alpha, beta):
        out = self.xp.empty(self.m, dtype=self.vt) if y is None else y
        t, s = self.t, self.scalar
        a = t(s(alpha))  # apply, inlined: the repeat path
        if self.finite(a):
            k = self.karg
            self.run(A, x, out, k(a), k(t(s(beta))))
        else:
            self._unscaled(A, x, out, a, t(s(beta)))
        return out

    def apply(self, A, x, out, alpha, beta):
        """``out <- alpha*A*x + beta*out`` for ``alpha`` and ``beta`` Python or NumPy scalars
        (real; complex too for a complex value dtype), as :meth:`run` for a finite ``alpha`` in
        the value dtype."""
        t, s = self.t, self.scalar
        a = t(s(alpha))
        if self.finite(a):
            k = self.karg
            self.run(A, x, out, k(a), k(t(s(beta))))
        else:
            self._unscaled(A, x, out, a, t(s(beta)))

    def _unscaled(self, A, x, out, alpha, beta):
        """A non-finite ``alpha``: the kernels apply it per row part (HYB's ELL and COO parts,
        the tiles of a row that merge_path and COO carry) and leave out the rows COO does not
        visit, so ``inf * 0`` would not always be NaN. The product is formed with alpha = 1 in
        a scratch vector and scaled once, as SciPy's ``alpha * (A @ x) + beta * y``; with
        ``beta == 0`` ``out`` is not read."""
        xp, t, k = self.xp, self.t, self.karg
        s = xp.empty(self.m, dtype=self.vt)
        self.run(A, x, s, k(t(1)), k(t(0)))
        with np.errstate(invalid="ignore", over="ignore"):
            if beta == 0:
                xp.multiply(s, alpha, out=out)
            else:
                s *= alpha
                out *= beta
                out += s


class CsrScalarPlan(SpmvPlan):
    def __init__(self, vt, it, m, pol):
        super().__init__(m, vt)
        k = _k.scalar_module()(_k.scalar_name(vt, it))
        self.launch = _resident(k, m, pol.block)

    def run(self, A, x, out, alpha, beta):
        self.launch(A.indptr, A.indices, A.data, x, self.m64, alpha, beta, out)


class CsrVectorPlan(SpmvPlan):
    def __init__(self, vt, it, m, lanes, pol):
        super().__init__(m, vt)
        self.lanes = lanes
        k = _k.vector_module()(_k.vector_name(vt, it, lanes))
        self.launch = _resident(k, m * lanes, pol.block)

    def run(self, A, x, out, alpha, beta):
        self.launch(A.indptr, A.indices, A.data, x, self.m64, alpha, beta, out)


class EllPlan(SpmvPlan):
    """ell: a thread per stored row. An ELL that stores only some rows (``stored`` of the m,
    ``A.rows``) runs as COO does: beta*y written to every row (``spmv_scale``), then alpha times
    each stored row's sum added to its row (kernels/sparse/ell.cu, spmv_ell_rows)."""

    def __init__(self, vt, it, m, stored, width, ld, pol):
        super().__init__(m, vt)
        self.skips = stored != m
        k = _k.ell_module()(_k.ell_name(vt, it, width, rows=self.skips))
        # a thread a row: on an H200 the whole grid ran the ELL matrices of the widened suite
        # 1-4% faster than the resident grid striding over rows (tools/tune/spmv_auto's matrices)
        self.launch = _plans.Launch(
            k, min(_launch.cover_grid(max(stored, 1), pol.block), _launch.MAX_GRID_X), pol.block
        )
        self.stored64 = _launch.i64(stored)
        self.width64, self.ld64 = _launch.i64(width), _launch.i64(ld)
        if self.skips:
            self.scale = _resident(_k.coo_module()(_k.scale_name(vt)), m, pol.block)

    def run(self, A, x, out, alpha, beta):
        if not self.skips:
            self.launch(A.cols, A.data, x, self.m64, self.width64, self.ld64, alpha, beta, out)
            return
        self.scale(out, self.m64, beta)
        self.launch(A.cols, A.data, A.rows, x, self.stored64, self.width64, self.ld64, alpha, out)


class MergePathPlan(SpmvPlan):
    """merge_path: the partition of a matrix's merge path into tiles (once per matrix, kept on
    it), the tile kernel and the fix-up of the carries of rows that span tiles."""

    def __init__(self, vt, it, m, nnz, pol, rows_pol, fix_pol, skey):
        super().__init__(m, vt)
        xp = self.xp
        self.tile = pol.block * pol.items
        ntiles = _launch.cdiv(m + nnz, self.tile)
        if pol in _policy.policies(("merge_path", np.dtype(vt).name)):
            names = _k.merge_names(vt, pol)
        else:  # a tile a tool tries: only this index type (a 256x12 float64 tile fits the
            # static shared memory with int32 indices, not with int64)
            names = [_k.partition_name(it), _k.merge_name(vt, it, pol)]
        # the tile kernel, the partition's and the fix-up's compiled side by side (first use)
        _loader.prefetch(_k.CSR_SOURCE, [_k.merge_name(vt, it, pol), _k.partition_name(it)])
        _loader.prefetch(_k.COO_SOURCE, [_k.fixup_name(vt, it, fix_pol)])
        mod = _k.csr_module(names)
        self.launch = _plans.Launch(mod(_k.merge_name(vt, it, pol)), ntiles, pol.block)
        part = mod(_k.partition_name(it))
        self.partition = _resident(part, ntiles + 1, rows_pol.block)
        self.it, self.nnz64 = np.dtype(it), _launch.i64(nnz)
        self.ntiles, self.ntiles64, self.tile64 = (
            ntiles,
            _launch.i64(ntiles),
            _launch.i64(self.tile),
        )
        self.carry_rows = xp.empty(ntiles, dtype=it)
        self.carry_vals = xp.empty(ntiles, dtype=vt)
        self.fixup = FixupChain(ntiles, vt, it, xp, fix_pol)
        self.part_key = ("merge_partition", self.tile, skey)
        self.nbytes = _plans.scratch_bytes(self.carry_rows, self.carry_vals) + self.fixup.nbytes

    def partition_of(self, A):
        """A's merge-path coordinate at every tile boundary (made at its first product)."""
        part = A._cache.get(self.part_key)
        if part is None:
            part = self.xp.empty(self.ntiles + 1, dtype=self.it)
            self.partition(A.indptr, self.m64, self.nnz64, self.tile64, self.ntiles64, part)
            A._cache[self.part_key] = part
        return part

    def run(self, A, x, out, alpha, beta):
        self.launch(
            A.indptr,
            A.indices,
            A.data,
            x,
            self.m64,
            self.nnz64,
            alpha,
            beta,
            out,
            self.partition_of(A),
            self.carry_rows,
            self.carry_vals,
        )
        self.fixup(self.carry_rows, self.carry_vals, alpha, out)


class CooPlan(SpmvPlan):
    """coo: y = beta*y (``scale``), then y += alpha*A*x by the reduction by key over the
    products and its fix-up. HYB's COO part runs it without the scaling."""

    def __init__(self, vt, it, m, nnz, scale, pol, rows_pol, fix_pol):
        super().__init__(m, vt)
        xp = self.xp
        mod = _k.coo_module()
        self.scale = _resident(mod(_k.scale_name(vt)), m, rows_pol.block) if scale else None
        self.launch = None
        self.nnz64 = _launch.i64(nnz)
        self.nbytes = 0
        if nnz:
            grid = _launch.cdiv(nnz, pol.block * pol.items)
            self.launch = _plans.Launch(mod(_k.coo_name(vt, it, pol)), grid, pol.block)
            self.carry_rows = xp.empty(grid, dtype=it)
            self.carry_vals = xp.empty(grid, dtype=vt)
            self.fixup = FixupChain(grid, vt, it, xp, fix_pol)
            self.nbytes = _plans.scratch_bytes(self.carry_rows, self.carry_vals) + self.fixup.nbytes

    def run(self, A, x, out, alpha, beta):
        if self.scale is not None:
            self.scale(out, self.m64, beta)
        if self.launch is not None:
            self.launch(
                A.row, A.col, A.data, x, self.nnz64, alpha, out, self.carry_rows, self.carry_vals
            )
            self.fixup(self.carry_rows, self.carry_vals, alpha, out)


class HybPlan(SpmvPlan):
    """hyb: the ELL kernel on the ELL part, then the COO reduction on the overflow."""

    def __init__(self, ell, coo):
        super().__init__(ell.m, ell.vt)
        self.ell, self.coo = ell, coo
        self.nbytes = coo.nbytes

    def run(self, A, x, out, alpha, beta):
        self.ell.run(A.ell, x, out, alpha, beta)
        self.coo.run(A.coo, x, out, alpha, beta)


class OnConversion(_plans.Plan):
    """The repeat path of a matrix whose product runs on its conversion to another format
    (``auto`` choosing ELL for a CSR container): calls give the container, the plan takes the
    conversion kept on it (:meth:`Matrix._as_format`). Holds no reference to either matrix."""

    def __init__(self, plan, fmt):
        self.plan, self.fmt = plan, fmt

    def __call__(self, A, x, y, alpha, beta):
        return self.plan(A._as_format(self.fmt), x, y, alpha, beta)


def plan_for(variant, A):
    """The plan of ``variant`` for container ``A`` (in the variant's format), on the current
    stream under the policies in force."""
    vt, it, m = A.dtype, A.index_dtype, A.shape[0]
    skey = _plans.stream_key()
    get = _plans.PLANS.get
    rows = _policy.rows()
    if variant == "csr_scalar":
        return get(
            ("spmv/csr_scalar", vt, it, m, rows, skey), lambda: CsrScalarPlan(vt, it, m, rows)
        )
    if variant == "csr_vector":
        vpol = _policy.csr_vector(vt)
        lanes = vector_lanes(A.row_stats().mean, vt)
        return get(
            ("spmv/csr_vector", vt, it, m, lanes, rows, vpol, skey),
            lambda: CsrVectorPlan(vt, it, m, lanes, rows),
        )
    if variant == "ell":
        return get(
            ("spmv/ell", vt, it, m, A.stored_rows, A.width, A.ld, rows, skey),
            lambda: EllPlan(vt, it, m, A.stored_rows, A.width, A.ld, rows),
        )
    fix = _policy.fixup()
    if variant == "merge_path":
        pol = _policy.merge_path(vt)
        return get(
            ("spmv/merge_path", vt, it, m, A.nnz, pol, rows, fix, skey),
            lambda: MergePathPlan(vt, it, m, A.nnz, pol, rows, fix, skey),
        )
    cpol = _policy.coo()
    if variant == "coo":
        return get(
            ("spmv/coo", vt, it, m, A.nnz, cpol, rows, fix, skey),
            lambda: CooPlan(vt, it, m, A.nnz, True, cpol, rows, fix),
        )
    E, C = A.ell, A.coo  # hyb
    return get(
        ("spmv/hyb", vt, it, m, E.width, E.ld, C.nnz, rows, cpol, fix, skey),
        lambda: HybPlan(
            EllPlan(vt, it, m, m, E.width, E.ld, rows),
            CooPlan(vt, it, m, C.nnz, False, cpol, rows, fix),
        ),
    )
