"""Scan plans: kernel names, the look-back scan's plan and the classic scans' launches.

Modules per variant and policy (a test or tour touching one variant compiles only that one),
three of them per variant: the 4- and 8-byte real dtypes, the narrow inputs (look-back only) and
the complex dtypes (:data:`MODULES`), so a scan of int32 does not compile the others' kernels.
The look-back scan runs from a :class:`ScanPlan` per (dtypes, op, inclusive or exclusive, n,
policy, stream): its tile counter and tile states are made once and its launch checked once. The
classic scans launch per call (their grids shrink level by level).
"""

from __future__ import annotations

import math

import numpy as np

from .._core import dtypes as _dtypes, launch as _launch, loader as _loader, ops as _ops
from .._core import lookback as _lookback, plans as _plans
from . import _policy

SOURCE = "scan/scan.cu"
VARIANTS = ("hillis_steele", "blelloch", "decoupled_lookback")
OPS = ("sum", "prod", "min", "max")
_TILE_PER_BLOCK = {"hillis_steele": 1, "blelloch": 2}  # elements per thread of the block scans

_B, _I8, _U8, _I16, _U16, _F16, _I32, _U32, _I64, _U64, _F32 = (
    np.dtype(d)
    for d in (
        np.bool_,
        np.int8,
        np.uint8,
        np.int16,
        np.uint16,
        np.float16,
        np.int32,
        np.uint32,
        np.int64,
        np.uint64,
        np.float32,
    )
)
_BF16 = _dtypes.BFLOAT16

#: the narrow dtypes the scans accept (as NumPy's cumsum): bool, 8/16-bit integers, float16 and
#: bfloat16
NARROW = _dtypes.REDUCE_NARROW
#: complex64/complex128 (sum and prod only), read as kernels/util/complex.cuh's c64/c128
COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
#: every dtype the scans accept, as input and as ``dtype=``
DTYPES = _dtypes.NUMERIC + NARROW + COMPLEX

#: C++ types of the scans' element types (bool as prim::Flag, util/flag.cuh: any nonzero byte 1,
#: results stored as 0 or 1)
CTYPES = _dtypes.KERNEL_CTYPES

#: the look-back scan's instantiations for narrow inputs read in place: (input, accumulator,
#: result, ops). Sums and products accumulate as NumPy's result (64-bit integers; wrapping as NumPy
#: does) or, for float16 and bfloat16, in float32 (as CuPy's cumsum and torch's) and store the
#: 16-bit float; min/max accumulate in a
#: 32-bit type (the block's shuffles move 4 or 8 bytes) and store the input's dtype (bool: 0 or 1
#: from any nonzero byte, as NumPy reads it). Sums and products of a narrow integer type *into* that
#: type (NumPy's ``dtype=`` of the input's own) accumulate in uint32, whose wrapping arithmetic
#: has the same low bits as NumPy's in the narrow type, and store the narrow type: no 64-bit
#: temporary (a cumprod of 2^32 int8 reads and writes 4 GiB each, not 32).
NARROW_KERNELS = tuple(
    (i, a, r, ops)
    for i, a, r, ops in (
        (_B, _I64, _I64, ("sum", "prod")),
        (_I8, _I64, _I64, ("sum", "prod")),
        (_U8, _U64, _U64, ("sum", "prod")),
        (_I16, _I64, _I64, ("sum", "prod")),
        (_U16, _U64, _U64, ("sum", "prod")),
        (_F16, _F32, _F16, ("sum", "prod", "min", "max")),
        (_BF16, _F32, _BF16, ("sum", "prod", "min", "max")),
        (_B, _U32, _B, ("min", "max")),
        (_I8, _I32, _I8, ("min", "max")),
        (_U8, _U32, _U8, ("min", "max")),
        (_I16, _I32, _I16, ("min", "max")),
        (_U16, _U32, _U16, ("min", "max")),
        (_I8, _U32, _I8, ("sum", "prod")),
        (_U8, _U32, _U8, ("sum", "prod")),
        (_I16, _U32, _I16, ("sum", "prod")),
        (_U16, _U32, _U16, ("sum", "prod")),
    )
)

#: module groups of each variant: the 4/8-byte real types, narrow inputs (look-back only: the
#: classic scans take them converted), complex types (sum and prod)
_GROUPS = ("", "/narrow", "/complex")
MODULES = tuple(
    v + g for v in VARIANTS for g in _GROUPS if g != "/narrow" or v == "decoupled_lookback"
)


def triples(variant):
    """(input, accumulator, result, op) of every instantiation of ``variant``, by module."""
    real = [(i, a, a, op) for i, a in _dtypes.ACC_PAIRS for op in OPS]
    cplx = [(c, c, c, op) for c in COMPLEX for op in ("sum", "prod")]
    out = {variant: real, variant + "/complex": cplx}
    if variant == "decoupled_lookback":
        out[variant + "/narrow"] = [(i, a, r, op) for i, a, r, ops in NARROW_KERNELS for op in ops]
    return out


#: (variant, input, result, op) -> (module, accumulator): what runs without a conversion
_DIRECT = {
    (v, i, r, op): (m, a) for v in VARIANTS for m, ts in triples(v).items() for i, a, r, op in ts
}


def direct(variant, in_dt, res_dt, op):
    """(module, accumulator) of the kernel that scans ``in_dt`` into ``res_dt`` with ``op``, or
    None; a user operator scans in the input's dtype on every variant, its module :data:`USER`
    (a source of its own: :func:`kernel`)."""
    if isinstance(op, _ops.Op):
        ok = in_dt == res_dt and np.dtype(res_dt) in _ops.DTYPES
        return (USER, np.dtype(res_dt)) if ok else None
    return _DIRECT.get((variant, in_dt, res_dt, op))


def natural(variant, dt, op):
    """The result dtype of the kernel that takes input ``dt`` with ``op`` as it is (NumPy's
    result dtype, or, for the classic scans and narrow inputs, which they take converted,
    None)."""
    res = dt if isinstance(op, _ops.Op) else result_dtype(dt, op)
    return res if direct(variant, dt, res, op) else None


#: NumPy's result dtype of ``numpy.cumsum``/``numpy.cumprod`` of ``dt``: that of ``sum``/``prod``
#: (bool and integers below 64 bits widen to int64/uint64; 16-bit floats and complex stay), ``dt`` for
#: ``min``/``max``
result_dtype = _dtypes.reduce_result_dtype


def _op(op, acc_c, res_dt):
    if op in ("min", "max") and res_dt.itemsize < 4 and res_dt.kind in "iu":
        return f"prim::{op.capitalize()}Of<{acc_c}, {CTYPES[res_dt]}>"
    return _ops.functor(op, acc_c)


def items(pol, in_dt, acc_dt, res_dt=None):
    """Items per thread of the look-back scan: the policy's, rounded down to whole 16-byte vectors
    of the narrowest type it moves."""
    res_dt = acc_dt if res_dt is None else res_dt
    per = 16 // min(_narrowest(in_dt), _narrowest(acc_dt), _narrowest(res_dt))
    return max(per, pol.items(in_dt, acc_dt) // per * per)


def _narrowest(dt):
    """The bytes of ``dt``'s narrowest element: a tuple's narrowest field (each field's array
    moves in 16-byte vectors of its own type)."""
    return min(f.itemsize for f in _ops.fields(dt)) if dt.names else dt.itemsize


def kernel_name(variant, in_dt, acc_dt, op, exclusive, pol, res_dt=None, m=None):
    """The instantiation of ``variant`` scanning ``in_dt`` (read through the map ``m`` where
    given) into ``res_dt`` in ``acc_dt`` with ``op``."""
    res_dt = acc_dt if res_dt is None else res_dt
    in_c, acc_c = (CTYPES[in_dt] if m is None else m.ctype(in_dt)), CTYPES[acc_dt]
    ex = "true" if exclusive else "false"
    if variant == "decoupled_lookback":
        n = items(pol, in_dt, acc_dt, res_dt)
        out_c = None if res_dt == acc_dt else CTYPES[res_dt]
        return lookback_name(in_c, acc_c, _op(op, acc_c, res_dt), pol, n, exclusive, out_c)
    return f"scan_{variant}<{in_c}, {acc_c}, {_op(op, acc_c, res_dt)}, {ex}>"


def lookback_name(in_c, acc_c, op_c, pol, n, exclusive, out_c=None):
    """scan_lookback's instantiation of the C++ types ``in_c``, ``acc_c`` and (None: the
    accumulator's) ``out_c`` with the functor ``op_c``, ``n`` items a thread and the policy's
    block and prefetch distance (template arguments left at their defaults are not written)."""
    ex = "true" if exclusive else "false"
    tail = "" if out_c is None and not pol.prefetch else f", {out_c or acc_c}"
    if pol.prefetch:
        tail += f", {pol.prefetch}"
    return f"scan_lookback<{in_c}, {acc_c}, {op_c}, {pol.block}, {n}, {ex}{tail}>"


def add_name(acc_dt, op):
    acc_c = CTYPES[acc_dt]
    return f"scan_add_prefix<{acc_c}, {_op(op, acc_c, acc_dt)}>"


def names(module, pol):
    variant = module.split("/")[0]
    ts = triples(variant)[module]
    out = [kernel_name(variant, i, a, op, ex, pol, r) for i, a, r, op in ts for ex in (False, True)]
    if variant != "decoupled_lookback":
        out += sorted({add_name(a, op) for _, a, _, op in ts})
    return out


#: every variant's modules under every policy of the table
_named_kernel = _loader.PolicyModules(
    SOURCE, names, _policy.TABLE, MODULES, selector=lambda m: m.split("/")[0]
).kernel


#: the module of a user operator's scans (:func:`direct`): none of :data:`MODULES`
USER = "user"


def kernel(module, name, pol, op, acc_dt, m=None, in_dt=None):
    """The instantiation ``name`` of ``module`` (a key of :data:`MODULES`) under the policy
    ``pol``; of a source of its own for a user operator ``op`` (accumulator ``acc_dt``) or a map
    ``m`` (input dtype ``in_dt``)."""
    if isinstance(op, _ops.Op) or m is not None:
        return _ops.kernel(SOURCE, op, acc_dt, name, m, in_dt)
    return _named_kernel(module, name, pol)


# ---- single-pass decoupled look-back ---------------------------------------------------------

_NOT_SEEDED, _SEEDED = np.int32(0), np.int32(1)  # scan_lookback's ``seeded``


class ScanPlan(_lookback.LookbackPlan):
    """The look-back scan of n elements of ``in_dt`` into ``res_dt`` (accumulated in
    ``acc_dt``) with ``op``: one launch into a new 1-D result of n elements."""

    def __init__(self, backend, in_dt, acc_dt, op, exclusive, n, pol, res_dt=None, m=None):
        res_dt = acc_dt if res_dt is None else res_dt
        module = direct("decoupled_lookback", in_dt, res_dt, op)[0]
        name = kernel_name("decoupled_lookback", in_dt, acc_dt, op, exclusive, pol, res_dt, m)
        k = kernel(module, name, pol, op, acc_dt, m, in_dt)
        tiles = _launch.cdiv(n, pol.block * items(pol, in_dt, acc_dt, res_dt))
        super().__init__(k, tiles, pol.block, n, backend.xp, acc_dt.itemsize)
        self.empty, self.n, self.res_dt, self.acc_dt = backend.xp.empty, n, res_dt, acc_dt
        self.stand_in = _launch.stand_in(backend, acc_dt)  # the seed of an unseeded launch

    def __call__(self, x, seed=None):
        """The scan of the contiguous array ``x`` of the backend's own type (any shape of n
        elements), as the public functions return it for such input. ``seed``: a one-element
        device array of the accumulator's dtype (:attr:`acc_dt`) the scan continues from
        (``seed op x[0] op ...``; the exclusive scan starts at it), read by the kernel."""
        out = self.empty(self.n, dtype=self.res_dt)
        if seed is None:
            self.launch(x, out, self.n64, self.stand_in, _NOT_SEEDED)
        else:
            self.launch(x, out, self.n64, seed, _SEEDED)
        return out


def prefetch_lookback(in_dt, res_dt, op, exclusive):
    """Start compiling the look-back kernel of a flat scan of ``in_dt`` into ``res_dt`` with the
    named ``op`` (where kernels compile on first use): a caller with work of its own before the
    scan (nancumsum's NaN replacement) asks first, so that the two compile side by side."""
    found = None if isinstance(op, _ops.Op) else direct("decoupled_lookback", in_dt, res_dt, op)
    if found is not None:
        pol = _policy.current("decoupled_lookback")
        name = kernel_name("decoupled_lookback", in_dt, found[1], op, exclusive, pol, res_dt)
        _loader.prefetch(SOURCE, [name])


def lookback_plan(backend, in_dt, res_dt, op, exclusive, n, m=None):
    """The plan of the look-back kernel that scans ``in_dt`` (read through the map ``m`` where
    given) into ``res_dt`` (a pair :func:`direct` knows)."""
    pol = _policy.current("decoupled_lookback")
    acc_dt = direct("decoupled_lookback", in_dt, res_dt, op)[1]
    key = ("scan/lookback", in_dt, res_dt, (op, m), exclusive, n, pol, _plans.stream_key())
    return _plans.PLANS.get(
        key, lambda: ScanPlan(backend, in_dt, acc_dt, op, exclusive, n, pol, res_dt, m)
    )


# ---- tuples: several arrays zipped, scanned by the look-back kernel ----------------------------


def tuple_kernel_name(acc_dt, op, exclusive, pol):
    """The look-back kernel's instantiation that scans tuples of ``acc_dt`` with ``op`` under
    the policy ``pol``: the fields' arrays zipped as its input and its output."""
    z, t = _ops.zip_ctype(acc_dt), _ops.ctype(acc_dt)
    return lookback_name(z, t, _ops.functor(op, t), pol, items(pol, acc_dt, acc_dt), exclusive, z)


def tuple_plan(backend, acc_dt, op, exclusive, n):
    """The plan of the look-back scan of n tuples of ``acc_dt`` (:func:`~primitives._core.ops.
    tuple_dtype`) read from and written to arrays of its fields, with the user operator ``op``
    (the ``"tuple"`` policy)."""
    pol = _policy.current("tuple")
    key = ("scan/lookback/tuple", acc_dt, op, exclusive, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: TupleScanPlan(backend, acc_dt, op, exclusive, n, pol))


class TupleScanPlan(_lookback.LookbackPlan):
    """The look-back scan of n tuples of ``acc_dt`` (kernels/util/zip.cuh): the kernel of every
    scan with the fields' arrays zipped as its input and its output (``prim::Zip``), one read of
    each input array and one write of each result array."""

    def __init__(self, backend, acc_dt, op, exclusive, n, pol):
        per = items(pol, acc_dt, acc_dt)
        name = tuple_kernel_name(acc_dt, op, exclusive, pol)
        k = _ops.kernel(SOURCE, op, acc_dt, name)
        super().__init__(
            k, _launch.cdiv(n, pol.block * per), pol.block, n, backend.xp, acc_dt.itemsize
        )
        self.empty, self.n, self.fields = backend.xp.empty, n, _ops.fields(acc_dt)
        stand_in = _launch.stand_in(backend, acc_dt)  # the seed: not read
        zipped = _plans.Launch.zip_slot(len(self.fields))
        self.prepare(zipped, zipped, self.n64, stand_in, _NOT_SEEDED)

    def __call__(self, xs, keep):
        """The scans of the contiguous arrays ``xs`` (n elements each, of the fields' dtypes):
        a new array for each field of ``keep`` (indices), in its order; the others not written."""
        empty, n = self.empty, self.n
        outs = [empty(n, dtype=f) if i in keep else None for i, f in enumerate(self.fields)]
        self.launch(xs, outs)
        return tuple(outs[i] for i in keep)


# ---- a scan of a flat array -------------------------------------------------------------------

#: op -> the name of its ufunc (NumPy's and CuPy's)
UFUNC = {"sum": "add", "prod": "multiply", "min": "minimum", "max": "maximum"}

#: the accumulator dtype of a classic scan of a narrow input (converted to it first)
_WIDE = {
    np.dtype(k): np.dtype(v)
    for k, v in (
        (np.bool_, np.int64),
        (np.int8, np.int64),
        (np.int16, np.int64),
        (np.uint8, np.uint64),
        (np.uint16, np.uint64),
        (np.float16, np.float32),
        (_BF16, np.float32),
    )
}


def identity(op, dt):
    """The identity of ``op`` in ``dt`` (bool: False for sum and max, True for prod and min)."""
    dt = np.dtype(dt)
    if dt.kind == "b":
        return op in ("prod", "min")
    if dt.kind == "c":
        return dt.type(1 if op == "prod" else 0)
    if op == "prod":
        return dt.type(1)
    return _dtypes.identity(op, dt)


def flat_scan(backend, arr, in_dt, res_dt, op, exclusive, variant, m=None):
    """The scan of the flat contiguous backend array ``arr`` (n > 0 elements of ``in_dt``) into
    a new array of ``res_dt``. A kernel that takes (``in_dt``, ``res_dt``) as they are runs alone;
    otherwise the elements are cast to ``res_dt`` first (as NumPy's ``dtype=``), scanned by the
    kernel that takes that dtype (the classic scans: narrow dtypes converted to a 32/64-bit
    accumulator type first) and the result cast back to ``res_dt``."""
    n = arr.size
    if direct(variant, in_dt, res_dt, op):
        if variant == "decoupled_lookback":
            return lookback_plan(backend, in_dt, res_dt, op, exclusive, n, m)(arr)
        return hierarchical(arr, n, in_dt, res_dt, op, exclusive, variant, backend, m)
    assert m is None, "a map reads its input as it is (_checks.map_route)"
    src = res_dt
    if in_dt != src:
        arr = arr.astype(src)
    work = natural(variant, src, op)
    if work is None:  # a classic scan of a narrow dtype
        work = _WIDE[src]
        arr, src = arr.astype(work), work
    out = flat_scan(backend, arr, src, work, op, exclusive, variant)
    if work == res_dt:
        return out
    with np.errstate(over="ignore"):  # 16-bit float results overflow to inf, as NumPy's do
        out = out.astype(res_dt)
    if exclusive and op in ("min", "max"):  # the identity of the narrower dtype
        out[:1] = identity(op, res_dt)
    return out


# ---- hierarchical (classic) scans ------------------------------------------------------------


def hierarchical(x, n, in_dt, acc_dt, op, exclusive, variant, backend, m=None):
    """The classic scan ``variant`` of the contiguous device array ``x`` (read through the map
    ``m`` where given): block scans, the block sums scanned (recursively, same variant, no map),
    the prefixes added back."""
    pol = _policy.current(variant)
    xp = backend.xp
    block = pol.block
    tile = block * _TILE_PER_BLOCK[variant]
    nblocks = _launch.cdiv(n, tile)
    out = xp.empty(n, dtype=acc_dt)
    sums = xp.empty(nblocks, dtype=acc_dt)
    k = kernel(
        direct(variant, in_dt, acc_dt, op)[0],
        kernel_name(variant, in_dt, acc_dt, op, exclusive, pol, None, m),
        pol,
        op,
        acc_dt,
        m,
        in_dt,
    )
    if variant == "hillis_steele":
        smem = 2 * block * acc_dt.itemsize
    else:
        smem = (2 * block + 2 * block // 32) * acc_dt.itemsize
    _launch.launch(k, nblocks, block, (x, out, _launch.i64(n), sums), shared_mem=smem)
    if nblocks > 1:
        prefix = hierarchical(sums, nblocks, acc_dt, acc_dt, op, True, variant, backend)
        add = kernel(direct(variant, acc_dt, acc_dt, op)[0], add_name(acc_dt, op), pol, op, acc_dt)
        grid = _launch.cover_grid(n - tile, pol.add_block, pol.add_items, kernel=add)
        _launch.launch(add, grid, pol.add_block, (out, _launch.i64(n), prefix, _launch.i64(tile)))
    return out


def error_depth(variant, n, in_dt, acc_dt):
    """Per-position bound on the depth of the rounding tree of output ``i`` (array of n values):
    used by the tests with Higham's bound on each prefix."""
    idx = np.arange(n, dtype=np.float64)
    pol = _policy.current(variant)
    if variant == "decoupled_lookback":
        per = items(pol, np.dtype(in_dt), np.dtype(acc_dt))
        tile = pol.block * per
        per_tile = per + 2 * int(math.log2(pol.block)) + 8
        return 2 * per_tile + 7 * (np.floor(idx / tile) + 1)
    tile = pol.block * _TILE_PER_BLOCK[variant]
    levels = max(1, math.ceil(math.log(max(n, 2), tile)))
    return np.full(n, levels * (2 * int(math.log2(tile)) + 4) + 2, dtype=np.float64)
