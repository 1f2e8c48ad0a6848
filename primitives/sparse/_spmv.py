"""SpMV family: ``spmv(A, x, y=, alpha=, beta=, variant=)`` computes y <- alpha*A*x + beta*y.

Variants (``variant=``), each a named kernel in ``kernels/spmv/``:

============  ==================================================================================
csr_scalar    CSR, one thread per row
csr_vector    CSR, a group of 2..32 lanes per row (width from the mean row length), shuffle sum
ell           ELL, one thread per row over column-major padded slots
coo           COO, a segmented reduction over row keys (tiles, then a carry fix-up)
hyb           HYB: the ELL kernel on the ELL part, then the COO kernel on the overflow
merge_path    CSR, merge-based load balancing over rows and nonzeros (Merrill & Garland)
auto          by format; for CSR from the row statistics (see :func:`choose_variant`)
============  ==================================================================================

A variant runs on its format: a matrix in another format is converted on the device first (for
repeated products, convert once with :mod:`primitives.sparse`).

Note: ``primitives.spmv`` is this module's function; the module itself is
``sys.modules["primitives.spmv"]`` (``from primitives.spmv import VARIANTS`` works).
"""

from __future__ import annotations

import collections
import numbers

import numpy as np

from ._core import backend as _backend, checks as _checks, dtypes as _dtypes, launch as _launch, loader as _loader
from . import sparse

__all__ = ["spmv", "choose_variant", "VARIANTS", "FORMAT_OF"]

VARIANTS = ("csr_scalar", "csr_vector", "ell", "coo", "hyb", "merge_path")
#: the format each variant runs on
FORMAT_OF = {"csr_scalar": "csr", "csr_vector": "csr", "merge_path": "csr", "ell": "ell",
             "coo": "coo", "hyb": "hyb"}

_CSR, _ELL, _COO = "spmv/csr.cu", "spmv/ell.cu", "spmv/coo.cu"
_BLOCK = 256          # threads per block of the row-parallel kernels
LANES = (2, 4, 8, 16, 32)
# merge-path tile per value type: BLOCK threads x ITEMS path items (row ends + nonzeros) each.
# Measured on an H100 (tools/figures_spmv.py sweeps 128x8 .. 256x12): 256x8 is best or within
# 2% of the best for both value types on the skewed, dense-row and empty-row matrices (the
# smaller staging buffers leave more of the SM's L1 to the gathers from x).
_MERGE_POLICY = {np.dtype(np.float32): (256, 8), np.dtype(np.float64): (256, 8)}
# reduction by key over COO products and over carries: BLOCK threads x ITEMS items
_COO_BLOCK, _COO_ITEMS = 256, 8
_FIX_BLOCK, _FIX_ITEMS = 256, 8

# auto for CSR: rows are "even" when their lengths vary little and none is far above the mean,
# and "local" when a row's columns span a small part of x (x's lines then stay in cache)
_EVEN_CV = 0.5
_EVEN_MAX_OVER_MEAN = 4.0
_LOCAL_SPAN = 0.1


def _pairs():
    return [(v, i) for v in sparse.VALUE_DTYPES for i in sparse.INDEX_DTYPES]


def _ct(dt):
    return _dtypes.CTYPES[np.dtype(dt)]


def _names(variant):
    out = []
    if variant == "csr_scalar":
        out = [f"spmv_csr_scalar<{_ct(v)}, {_ct(i)}>" for v, i in _pairs()]
    elif variant == "csr_vector":
        out = [f"spmv_csr_vector<{_ct(v)}, {_ct(i)}, {L}>" for v, i in _pairs() for L in LANES]
    elif variant == "merge_path":
        out = [f"spmv_merge_partition<{_ct(i)}>" for i in sparse.INDEX_DTYPES]
        out += [f"spmv_merge_path<{_ct(v)}, {_ct(i)}, {_MERGE_POLICY[v][0]}, "
                f"{_MERGE_POLICY[v][1]}>" for v, i in _pairs()]
    elif variant == "ell":
        out = [f"spmv_ell<{_ct(v)}, {_ct(i)}>" for v, i in _pairs()]
    elif variant == "coo":  # the reduction by key, its fix-up and the beta scaling
        out = [f"spmv_coo<{_ct(v)}, {_ct(i)}, {_COO_BLOCK}, {_COO_ITEMS}>" for v, i in _pairs()]
        out += [f"spmv_carry_fixup<{_ct(v)}, {_ct(i)}, {_FIX_BLOCK}, {_FIX_ITEMS}>"
                for v, i in _pairs()]
        out += [f"spmv_scale<{_ct(v)}>" for v in sparse.VALUE_DTYPES]
    return out


_FILE = {"csr_scalar": _CSR, "csr_vector": _CSR, "merge_path": _CSR, "ell": _ELL, "coo": _COO}
for _v, _f in _FILE.items():
    _loader.register(_f, _names(_v))


def _kernel(module, name):
    # one module per variant (hyb uses the ell and coo modules, merge_path the coo fix-up)
    return _loader.load(_FILE[module], _names(module))(name)


class _Launch:
    """A kernel with its grid; the first call validates the configuration (``_launch.launch``),
    later calls go straight to the kernel."""

    __slots__ = ("kernel", "grid", "block", "checked")

    def __init__(self, kernel, grid, block):
        self.kernel, self.grid, self.block, self.checked = kernel, int(grid), int(block), False

    def __call__(self, args):
        if self.checked:
            self.kernel((self.grid,), (self.block,), args)
        else:
            _launch.launch(self.kernel, self.grid, self.block, args)
            self.checked = True


# Launch plans per (variant, dtypes, sizes, device, stream): kernels, grids and the carry buffers
# of the reductions by key. Launches on one stream are ordered, so reusing buffers is safe.
_plans = collections.OrderedDict()
_MAX_PLANS = 64


def _plan(key, build):
    p = _plans.get(key)
    if p is None:
        p = _plans[key] = build()
        if len(_plans) > _MAX_PLANS:
            _plans.popitem(last=False)
    else:
        _plans.move_to_end(key)
    return p


def _resident(kernel, n_items, block=_BLOCK):
    return _Launch(kernel, _launch.cover_grid(n_items, block, kernel=kernel), block)


def _fixup_chain(n, vt, it, xp):
    """Launches that fold ``n`` carries (one per tile of the previous launch) into y: each level
    leaves one carry per tile of its own, until a single tile is left."""
    chain = []
    k = _kernel("coo", f"spmv_carry_fixup<{_ct(vt)}, {_ct(it)}, {_FIX_BLOCK}, {_FIX_ITEMS}>")
    tile = _FIX_BLOCK * _FIX_ITEMS
    while n > 1:
        grid = _launch.cdiv(n, tile)
        chain.append((_Launch(k, grid, _FIX_BLOCK), _launch.i64(n),
                      xp.empty(grid, dtype=it), xp.empty(grid, dtype=vt)))
        n = grid
    return chain


def _run_fixup(chain, keys, vals, alpha, y):
    for launch, n, out_keys, out_vals in chain:
        launch((keys, vals, n, alpha, y, out_keys, out_vals))
        keys, vals = out_keys, out_vals


# ---- variants -----------------------------------------------------------------------------------


def _csr_scalar(A, x, y, alpha, beta, skey):
    vt, it = A.dtype, A.index_dtype
    m = A.shape[0]
    run = _plan(("csr_scalar", vt, it, m, skey), lambda: _resident(
        _kernel("csr_scalar", f"spmv_csr_scalar<{_ct(vt)}, {_ct(it)}>"), m))
    run((A.indptr, A.indices, A.data, x, _launch.i64(m), alpha, beta, y))


def vector_lanes(mean, dtype=np.float32):
    """``csr_vector``'s lanes per row, from the mean row length and the value type.

    Measured on an H100 over the suite's even matrices (``tools/figures_spmv.py``): the best
    group is narrower than the row, as each lane then walks a few consecutive entries whose
    cache lines it reuses, and more rows share a warp. float32 rows of fewer than 8 entries get
    2 lanes, of fewer than 16 get 4, of fewer than 96 get 8 (the 27-point stencil's 27 entries
    ran 7% faster on 8 lanes than on 4), longer ones about one lane per 12 entries; float64 rows
    (12 bytes per entry with int32 indices) get about one lane per 2 entries. Always a power of
    two between 2 and 32.
    """
    per_lane = 2.0 if np.dtype(dtype) == np.float64 else None
    if per_lane is None:
        target = 2 if mean < 8 else 4 if mean < 16 else 8 if mean < 96 else mean / 12
    else:
        target = mean / per_lane
    for lanes in LANES:
        if target <= lanes:
            return lanes
    return LANES[-1]


def _csr_vector(A, x, y, alpha, beta, skey, lanes=None):
    vt, it = A.dtype, A.index_dtype
    m = A.shape[0]
    if lanes is None:
        lanes = vector_lanes(A.row_stats().mean, vt)
    run = _plan(("csr_vector", vt, it, m, lanes, skey), lambda: _resident(
        _kernel("csr_vector", f"spmv_csr_vector<{_ct(vt)}, {_ct(it)}, {lanes}>"), m * lanes))
    run((A.indptr, A.indices, A.data, x, _launch.i64(m), alpha, beta, y))


def _merge_partition(A, tile, ntiles, skey):
    key = ("merge_partition", tile, skey)
    part = A._cache.get(key)
    if part is None:
        it = A.index_dtype
        xp = _backend.get_backend().xp
        part = xp.empty(ntiles + 1, dtype=it)
        k = _kernel("merge_path", f"spmv_merge_partition<{_ct(it)}>")
        m, nnz = A.shape[0], A.nnz
        _launch.launch(k, _launch.cover_grid(ntiles + 1, _BLOCK, kernel=k), _BLOCK,
                       (A.indptr, _launch.i64(m), _launch.i64(nnz), _launch.i64(tile),
                        _launch.i64(ntiles), part))
        A._cache[key] = part
    return part


def _merge_path(A, x, y, alpha, beta, skey, policy=None):
    vt, it = A.dtype, A.index_dtype
    m, nnz = A.shape[0], A.nnz
    default = _MERGE_POLICY[vt]
    policy = default if policy is None else tuple(policy)
    block, items = policy
    tile = block * items

    def build():
        xp = _backend.get_backend().xp
        ntiles = _launch.cdiv(m + nnz, tile)
        name = f"spmv_merge_path<{_ct(vt)}, {_ct(it)}, {block}, {items}>"
        if policy == default:
            k = _kernel("merge_path", name)
        else:  # another tile shape (policy sweeps of tools/figures_spmv.py)
            k = _loader.load(_CSR, [name])(name)
        return (_Launch(k, ntiles, block), ntiles, xp.empty(ntiles, dtype=it),
                xp.empty(ntiles, dtype=vt), _fixup_chain(ntiles, vt, it, xp))

    run, ntiles, carry_rows, carry_vals, chain = _plan(
        ("merge_path", vt, it, m, nnz, policy, skey), build)
    part = _merge_partition(A, tile, ntiles, skey)
    run((A.indptr, A.indices, A.data, x, _launch.i64(m), _launch.i64(nnz), alpha, beta, y, part,
         carry_rows, carry_vals))
    _run_fixup(chain, carry_rows, carry_vals, alpha, y)


def _ell(A, x, y, alpha, beta, skey):
    vt, it = A.dtype, A.index_dtype
    m = A.shape[0]
    run = _plan(("ell", vt, it, m, skey), lambda: _resident(
        _kernel("ell", f"spmv_ell<{_ct(vt)}, {_ct(it)}>"), m))
    run((A.cols, A.data, x, _launch.i64(m), _launch.i64(A.width), _launch.i64(A.ld), alpha, beta,
         y))


def _coo_accumulate(A, x, y, alpha, skey):
    """y += alpha*A*x for COO ``A`` with nnz > 0."""
    vt, it = A.dtype, A.index_dtype
    nnz = A.nnz

    def build():
        xp = _backend.get_backend().xp
        grid = _launch.cdiv(nnz, _COO_BLOCK * _COO_ITEMS)
        k = _kernel("coo", f"spmv_coo<{_ct(vt)}, {_ct(it)}, {_COO_BLOCK}, {_COO_ITEMS}>")
        return (_Launch(k, grid, _COO_BLOCK), xp.empty(grid, dtype=it), xp.empty(grid, dtype=vt),
                _fixup_chain(grid, vt, it, xp))

    run, carry_rows, carry_vals, chain = _plan(("coo", vt, it, nnz, skey), build)
    run((A.row, A.col, A.data, x, _launch.i64(nnz), alpha, y, carry_rows, carry_vals))
    _run_fixup(chain, carry_rows, carry_vals, alpha, y)


def _scale(y, beta, skey):
    vt = y.dtype
    m = y.size
    run = _plan(("scale", vt, m, skey), lambda: _resident(
        _kernel("coo", f"spmv_scale<{_ct(vt)}>"), m))
    run((y, _launch.i64(m), beta))


def _coo(A, x, y, alpha, beta, skey):
    _scale(y, beta, skey)
    if A.nnz:
        _coo_accumulate(A, x, y, alpha, skey)


def _hyb(A, x, y, alpha, beta, skey):
    _ell(A.ell, x, y, alpha, beta, skey)
    if A.coo.nnz:
        _coo_accumulate(A.coo, x, y, alpha, skey)


_RUN = {"csr_scalar": _csr_scalar, "csr_vector": _csr_vector, "merge_path": _merge_path,
        "ell": _ell, "coo": _coo, "hyb": _hyb}


def choose_variant(A):
    """The kernel ``variant="auto"`` runs for ``A`` (a container or a SciPy/CuPy matrix).

    A matrix already in ELL, COO or HYB runs that format's kernel. For CSR the row statistics
    (:meth:`primitives.sparse.CSR.row_stats`, computed once per container) decide:

    * rows *even* (coefficient of variation at most 0.5, longest row at most 4 times the mean)
      and *local* (a row's columns span at most a tenth of x on average): ``csr_vector``, with
      the group width of :func:`vector_lanes`;
    * otherwise ``merge_path``: skewed rows, a few long rows or many empty rows (its tiles hold
      the same number of rows plus nonzeros whatever the lengths), and scattered columns, where
      the product is bound by the gathers from x and merge_path's streaming loads of the matrix
      leave L2 to x.
    """
    M = sparse.as_matrix(A, func="choose_variant")
    if M.format != "csr":
        return M.format
    s = M.row_stats()
    if s.rows == 0 or s.nnz == 0:
        return "csr_scalar"
    even = s.cv <= _EVEN_CV and s.max <= _EVEN_MAX_OVER_MEAN * s.mean
    if even and s.span <= _LOCAL_SPAN:
        return "csr_vector"
    return "merge_path"


def _real(v, *, func, arg):
    if isinstance(v, (numbers.Real, np.bool_)) and not isinstance(v, np.ndarray):
        return float(v)
    raise TypeError(f"{func}: {arg} must be a real number, got {type(v).__name__}")


def _span(a):
    """[first, last) byte addresses a CuPy array can touch (its strides may be negative)."""
    lo = hi = a.data.ptr
    for n, st in zip(a.shape, a.strides):
        if st > 0:
            hi += (n - 1) * st
        else:
            lo += (n - 1) * st
    return lo, hi + a.itemsize


def _write_back(y, out):
    if out is y:
        return
    if isinstance(y, np.ndarray):
        y[...] = _backend.to_host(out)
    else:
        import cupy

        y[...] = cupy.asarray(out)


def spmv(A, x, *, y=None, alpha=1.0, beta=0.0, variant="auto"):
    """Sparse matrix-vector product ``y <- alpha * A @ x + beta * y``.

    Args:
        A: a :mod:`primitives.sparse` container (``CSR``, ``ELL``, ``COO``, ``HYB``) or a
            ``scipy.sparse`` / ``cupyx.scipy.sparse`` matrix (converted to CSR first: duplicates
            summed, indices sorted), float32 or float64.
        x: 1-D array of length ``A.shape[1]`` (CuPy, NumPy, ``__cuda_array_interface__`` or
            DLPack), of a real dtype.
        y: optional NumPy or CuPy array of length ``A.shape[0]`` and of the result dtype,
            updated in place and returned. Must not overlap ``x``.
        alpha: real scalar multiplying ``A @ x``.
        beta: real scalar multiplying ``y``; must be 0 when ``y`` is omitted. With ``beta == 0``
            ``y`` is not read (NaN in it is ignored), as in BLAS.
        variant: one of ``primitives.spmv.VARIANTS`` or ``"auto"`` (:func:`choose_variant`). A
            variant whose format differs from ``A``'s converts ``A`` on the device first.

    Returns:
        ``y`` when given; otherwise a new array of length ``A.shape[0]``, on the device for
        device ``x`` and a NumPy array for host ``x``. Its dtype is
        ``numpy.result_type(A.dtype, x.dtype)`` (as SciPy's ``A @ x``), float32 or float64;
        sums accumulate in it.

    Raises:
        TypeError: ``A`` is not a sparse matrix or container, or ``x`` not an array; a dtype is
            unsupported (``A`` not float32/float64, ``x`` complex, bool or object, the result
            not float32/float64, ``y`` not of the result dtype); ``y`` is not a NumPy or CuPy
            array; ``alpha`` or ``beta`` is not a real number.
        ValueError: unknown ``variant``; ``x`` or ``y`` not 1-D; ``len(x) != A.shape[1]`` or
            ``len(y) != A.shape[0]``; ``beta != 0`` without ``y``; ``y`` overlaps ``x``; the
            variant's format cannot hold ``A`` (ELL of a matrix with a few very long rows).

    Each y[r] is written once, by one thread, with sums formed in an order fixed by the matrix
    and the launch shape: repeated products are bit-identical. Device inputs: no host
    synchronization, except the first product of a container with ``"auto"`` or
    ``"csr_vector"`` (row statistics, cached) and conversions between formats.

    See Also:
        :meth:`scipy.sparse.csr_matrix.dot`, ``cupyx.scipy.sparse.csr_matrix @ x`` (cuSPARSE).
    """
    func = "spmv"
    if variant != "auto" and variant not in VARIANTS:
        raise ValueError(f"{func}: variant must be 'auto' or one of {VARIANTS}, got {variant!r}")
    M = sparse.as_matrix(A, func=func, arg="A")
    if y is not None and not (isinstance(y, np.ndarray) or _checks._is_cupy(y)):
        raise TypeError(f"{func}: y must be a NumPy or CuPy array, got {type(y).__name__}")
    alpha = _real(alpha, func=func, arg="alpha")
    beta = _real(beta, func=func, arg="beta")
    xdt = getattr(x, "dtype", None)
    if isinstance(xdt, np.dtype) and getattr(x, "ndim", None) == 1:
        _result_dtype(M, xdt, func=func)  # before the copy to the device, which may refuse it
    xin = _checks.as_input(x, func=func, arg="x", ndim=1)
    yin = _checks.as_input(y, func=func, arg="y", ndim=1) if y is not None else None
    xa = xin.array
    out_dt = _result_dtype(M, xa.dtype, func=func)
    if yin is not None and yin.array.dtype != out_dt:
        raise TypeError(f"{func}: y has dtype {yin.array.dtype.name}, the result dtype is "
                        f"{out_dt.name}")
    m, n = M.shape
    if xa.size != n:
        raise ValueError(f"{func}: x has length {xa.size}, A has {n} columns (shape {M.shape})")
    if yin is not None and yin.array.size != m:
        raise ValueError(f"{func}: y has length {yin.array.size}, A has {m} rows "
                         f"(shape {M.shape})")
    if yin is None and beta != 0:
        raise ValueError(f"{func}: beta={beta} scales y, but y was not given")
    backend = xin.backend
    xp = backend.xp
    if yin is not None:
        out = yin.array
        if _overlap(x, y):
            raise ValueError(f"{func}: y overlaps x; pass separate arrays")
    else:
        out = xp.empty(m, dtype=out_dt)
    if m == 0:
        return y if y is not None else xin.result(out)

    if variant == "auto":
        variant = choose_variant(M)
    if M.dtype != out_dt:
        M = M.astype(out_dt)
    fmt = FORMAT_OF[variant]
    if M.format != fmt:
        M = {"csr": M.to_csr, "ell": M.to_ell, "coo": M.to_coo, "hyb": M.to_hyb}[fmt]()
    xa = xp.ascontiguousarray(xa.astype(out_dt, copy=False))
    t = out_dt.type
    _RUN[variant](M, xa, out, t(alpha), t(beta), backend.stream_key())
    if y is not None:
        _write_back(y, out)
        return y
    return xin.result(out)


def _result_dtype(M, xdt, *, func):
    if xdt.kind not in "iuf":
        raise TypeError(f"{func}: x has dtype {xdt.name}; x must be real (int or float)")
    out_dt = np.result_type(M.dtype, xdt)
    if out_dt not in sparse.VALUE_DTYPES:
        raise TypeError(f"{func}: A ({M.dtype.name}) times x ({xdt.name}) gives "
                        f"{out_dt.name}; supported result dtypes are float32, float64")
    return out_dt


def _overlap(x, y):
    """Whether the caller's ``x`` and ``y`` share memory (both NumPy or both CuPy)."""
    if isinstance(x, np.ndarray) and isinstance(y, np.ndarray):
        return bool(np.may_share_memory(x, y))
    if _checks._is_cupy(x) and _checks._is_cupy(y) and x.size and y.size:
        (a0, a1), (b0, b1) = _span(x), _span(y)
        return a0 < b1 and b0 < a1
    return False


# ---- oracle: SciPy (or cupyx on the device at full size) in float64, with an error bound ----


def _gamma(d, dtype):
    u = np.finfo(dtype).eps / 2
    du = d * u
    return du / (1 - du)


def reference(A64, x, *, y=None, alpha=1.0, beta=0.0, dtype=np.float32):
    """``(want, bound)``: the float64 product of the oracle and an elementwise error bound for a
    result computed in ``dtype``.

    ``A64`` is a float64 ``scipy.sparse`` (host) or ``cupyx.scipy.sparse`` (device) CSR matrix
    and ``x``, ``y`` arrays of the same library. Row r of the result is a sum of ``nnz_r``
    products and ``beta*y[r]``; whatever the order of the additions (a tree of height at most
    ``nnz_r``), each term passes through at most ``d_r = nnz_r + 2`` roundings (its product,
    alpha, the additions), so ``|got - want| <= gamma(d_r) * (|alpha| |A| |x| + |beta| |y|)``
    with ``gamma(d) = d u / (1 - d u)`` and ``u`` the unit roundoff of ``dtype`` (Higham,
    *Accuracy and Stability of Numerical Algorithms*, sec. 3.1 and 4.2); the float64 oracle has
    its own error of the same form, added to the bound.
    """
    xp = np if isinstance(x, np.ndarray) else __import__("cupy")
    x64 = x.astype(np.float64)
    want = alpha * (A64 @ x64)
    mag = abs(alpha) * (abs(A64) @ xp.abs(x64))
    if beta != 0:
        y64 = y.astype(np.float64)
        want = want + beta * y64
        mag = mag + abs(beta) * xp.abs(y64)
    d = xp.diff(A64.indptr).astype(np.float64) + 2
    bound = (_gamma(d, dtype) + _gamma(d, np.float64)) * mag + np.finfo(dtype).tiny
    return want, bound


def matches(got, want, bound):
    """(ok, worst index) of ``got`` against ``reference``'s ``want`` and ``bound`` (same
    library); NaN where the oracle has NaN."""
    xp = np if isinstance(want, np.ndarray) else __import__("cupy")
    got = xp.asarray(got).astype(np.float64)
    if got.shape != want.shape:
        return False, -1
    nan = xp.isnan(want)
    err = xp.where(nan, 0.0, xp.abs(got - want))
    bad = (err > bound) | (nan != xp.isnan(got)) | (xp.isnan(err) & ~nan)
    if not bool(bad.any()):
        return True, -1
    return False, int(xp.argmax(bad))


# ---- tour -------------------------------------------------------------------------------------

#: the tour's matrices: two even structures and the skewed one
TOUR_MATRICES = ("poisson2d", "uniform", "powerlaw")


def tour_sections(gpu, log2n=None):
    """Tour workloads: every variant on the tour's matrices (float32) and ``auto``, with cuSPARSE
    (``cupyx.scipy.sparse`` CSR @ x) as the peer on the GPU. GB/s counts the bytes a CSR product
    must move (the CSR arrays, x and y once), so rows of different formats compare the same work;
    each row's note gives its format's footprint. ELL is left out where its padding is refused
    (a few long rows)."""
    from .testing import matrices as _sparse_suite
    from . import tour as _tour

    scale = (1 << log2n) if log2n else ("full" if gpu else 1 << 12)
    dt = np.dtype(np.float32)
    sections = []
    for name in TOUR_MATRICES:
        sec = _tour.Section(title=f"spmv: {name}, float32", nbytes=0, contenders=None,
                            count=len(VARIANTS) + 1 + (1 if gpu else 0))

        def contenders(name=name, sec=sec):
            xp = _backend.get_backend().xp
            data, indices, indptr, shape = _sparse_suite.csr_arrays(name, dt, scale, xp=xp)
            csr = sparse.CSR._from_arrays(data, indices.astype(np.int32),
                                          indptr.astype(np.int32), shape)
            x = _sparse_suite.values(shape[1], dt, xp=xp, seed=7)
            if gpu:
                import cupyx.scipy.sparse as sps
            else:
                import scipy.sparse as sps
            want, bound = reference(sps.csr_matrix((data.astype(np.float64), indices, indptr),
                                                   shape=shape), x, dtype=dt)
            check = lambda got: matches(got, want, bound)[0]  # noqa: E731
            st = csr.row_stats()
            sec.nbytes = csr.nbytes + (shape[0] + shape[1]) * dt.itemsize
            sec.title = (f"spmv: {name} {shape[0]}x{shape[1]}, {csr.nnz} nonzeros (row length "
                         f"mean {st.mean:.1f}, max {st.max}, cv {st.cv:.2f}), float32")
            forms = {"csr": csr, "coo": sparse.COO(csr), "hyb": sparse.HYB(csr)}
            try:
                forms["ell"] = sparse.ELL(csr)
            except ValueError:
                sec.title += "; ELL refused (padding over max_fill)"
            out = []
            for v in VARIANTS + ("auto",):
                M = forms.get(FORMAT_OF.get(v, "csr"))
                if M is None:
                    continue
                label = v if v != "auto" else f"auto ({choose_variant(csr)})"
                note = f"{M.format} {M.nbytes / 1e6:.1f} MB ({M.nbytes / csr.nbytes:.2f}x CSR)"
                out.append(_tour.Contender(label, (lambda M=M, v=v: spmv(M, x, variant=v)), check,
                                           note=note))
            if gpu:
                peer = csr.to_cupy()
                out.append(_tour.Contender("cuSPARSE (peer)", lambda: peer @ x, check,
                                           note=f"csr {csr.nbytes / 1e6:.1f} MB"))
            return out

        sec.contenders = contenders
        sections.append(sec)
    return sections
