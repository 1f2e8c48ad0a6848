"""The reductions' kernel instantiations: the name of every template instance the plans launch,
per source, and the modules they are compiled in.

- ``kernels/reduction/axis.cu``: the reductions over axes (:mod:`._axis`), one module per op and
  accumulator dtype;
- ``kernels/reduction/reduce.cu``: the whole-array variants (one module per variant: a test or
  tour touching one variant compiles only that one), ``reduce_rows`` (complex products,
  minima and maxima over axes) and ``reduce_masked`` (``where=`` over every element, one module
  per policy);
- ``kernels/reduction/finish.cu``: mean's division by the count;
- ``kernels/reduction/arg.cu``: argmin and argmax (:mod:`._arg`), a module of the whole-array
  kernel and one of the rows and columns kernels per input type.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes, loader as _loader, ops as _ops
from . import _policy
from ._choose import LADDER, VARIANTS

#: the ops of the reductions
OPS = ("sum", "prod", "min", "max")
#: the ops with complex kernels: all (min/max in NumPy's lexicographic order, NaN winning:
#: kernels/util/complex.cuh)
COMPLEX_OPS = OPS

#: C++ names of the dtypes kernels read (prim::f16, prim::bf16: float16 and bfloat16 as their bits,
#: util/narrow.cuh;
#: prim::Flag: bool as its byte, any nonzero byte true, util/flag.cuh)
_CNAMES = _dtypes.KERNEL_CTYPES
_BOOL = np.dtype(np.bool_)
_I32, _U32, _I64, _U64 = (np.dtype(t) for t in (np.int32, np.uint32, np.int64, np.uint64))
_F32 = np.dtype(np.float32)


# ---- axis.cu: reductions over axes ------------------------------------------------------------

AXIS_SOURCE = "reduction/axis.cu"
AXIS_OPS = ("sum", "prod", "min", "max")
#: every real dtype the axis reductions take (bfloat16 too)
AXIS_DTYPES = _dtypes.REAL_BF16


def natural(dt, op):
    """(kernel input, accumulator, kernel output) dtypes of ``op`` over ``dt`` with NumPy's
    result dtype: sums and products of bool and integers below 64 bits in int64/uint64, of
    the 16-bit floats in float32 (stored as themselves); min/max of 1- and 2-byte integers in
    32 bits, of the 16-bit floats in float32, stored as the input's dtype. bool is read (and
    stored) as prim::Flag:
    any nonzero byte 1, results 0 or 1. A user operator computes in the input's dtype."""
    if isinstance(op, _ops.Op):
        return dt, dt, dt
    if op in ("sum", "prod"):
        if _dtypes.is_float16(dt):
            return dt, _F32, dt
        if dt.kind in "bi" and dt.itemsize < 8:
            return dt, _I64, _I64
        if dt.kind == "u" and dt.itemsize < 8:
            return dt, _U64, _U64
        return dt, dt, dt
    if _dtypes.is_float16(dt):
        return dt, _F32, dt
    if dt.itemsize < 4:
        return dt, (_I32 if dt.kind == "i" else _U32), dt
    return dt, dt, dt


def _triples(op):
    """(input, accumulator, output) of every launch ``op`` can make: first, middle and last
    passes of every route."""
    out = []
    for dt in AXIS_DTYPES:
        kin, kacc, kout = natural(dt, op)
        for t in ((kin, kacc, kout), (kin, kacc, kacc), (kacc, kacc, kacc), (kacc, kacc, kout)):
            if t not in out:
                out.append(t)
    return out


def axis_kernel_name(kind, kin, kacc, kout, op, pol, block=None, m=None):
    """The instantiation ``kind`` of axis.cu reading ``kin`` (through the map ``m`` where given:
    a :class:`~.._core.ops.Map`) into ``kacc`` and ``kout`` with ``op``."""
    i = _CNAMES[kin] if m is None else m.ctype(kin)
    a, o = _CNAMES[kacc], _CNAMES[kout]
    block = pol.block if block is None else block
    return f"{kind}<{i}, {a}, {_ops.functor(op, a)}, {o}, {block}, {pol.vectors}>"


def packed_rows(dt):
    """The row lengths R that axis_rows_packed takes for elements of ``dt``: several whole rows
    per 16-byte packet (R * itemsize of 2, 4 or 8 bytes, R >= 2)."""
    return tuple(r for r in (2, 4, 8) if r * dt.itemsize < 16)


def packed_layout(kin, kout, R, pol):
    """``(per, packets, exchange)`` of axis_rows_packed over rows of ``R`` elements of ``kin``
    into ``kout``: rows per 16-byte packet; consecutive packets per thread (the policy's
    ``packed_packets``, or where 0 the fewest of 1, 2, 4 whose results fill a 16-byte store); and
    whether a warp loads its packets coalesced and exchanges the results by shuffles (only with
    several packets per thread)."""
    per = 16 // kin.itemsize // R
    if pol.packed_packets not in (0, 1, 2, 4):
        raise ValueError(
            f"reduction 'axis' policy: packed_packets is 0, 1, 2 or 4, not {pol.packed_packets}"
        )
    packets = pol.packed_packets or next((p for p in (1, 2, 4) if p * per * kout.itemsize >= 16), 4)
    return per, packets, int(bool(pol.packed_exchange) and packets > 1)


def packed_name(kin, kacc, kout, op, R, pol, m=None):
    per, packets, exchange = packed_layout(kin, kout, R, pol)
    return axis_kernel_name("axis_rows_packed", kin, kacc, kout, op, pol, None, m)[:-1] + (
        f", {per}, {packets}, {exchange}>"
    )


_KINDS = ("axis_rows", "axis_slab", "axis_cols")


def axis_names(key, pol):
    """The instantiations of the module ``key`` = (op, accumulator dtype): one module per
    accumulator keeps each small (a call compiles only its own)."""
    op, acc = key
    out = []
    for t in _triples(op):
        if t[1] == acc:
            out += [packed_name(*t, op, R, pol) for R in packed_rows(t[0])]
            out += [axis_kernel_name(kind, *t, op, pol) for kind in _KINDS]
    if pol.slab_block and pol.slab_block != pol.block:  # medium rows, a block each
        out += _first_launches("axis_slab", key, pol, pol.slab_block)
    if pol.slab_wide > 1:  # rows of a few packets as slabs
        out += _first_launches("axis_slab_wide", key, pol)
    if pol.slab_finish:  # split slabs finished by their last block
        out += _first_launches("axis_slab_finish", key, pol)
    return list(dict.fromkeys(out))


def _first_launches(kind, key, pol, block=None):
    """``kind``'s instantiations of the first launch over an input of each dtype whose
    accumulator is ``key``'s (its own dtype into the result or the accumulator); launches over
    partials that take the path (rare) compile theirs on demand."""
    op, acc = key
    out = []
    for dt in AXIS_DTYPES:
        kin, kacc, kout = natural(dt, op)
        if kacc == acc:
            out += [
                axis_kernel_name(kind, kin, kacc, o, op, pol, block)
                for o in dict.fromkeys((kout, kacc))
            ]
    return out


def axis_candidates(key, pol):
    """The wide slabs' and the finished slabs' first launches where ``pol`` leaves them off
    (slab_wide 1, slab_finish 0): what an override of it launches."""
    out = [] if pol.slab_wide > 1 else _first_launches("axis_slab_wide", key, pol)
    return out + ([] if pol.slab_finish else _first_launches("axis_slab_finish", key, pol))


AXIS_MODULE_KEYS = tuple(dict.fromkeys((op, t[1]) for op in AXIS_OPS for t in _triples(op)))
_AXIS_MODULES = _loader.PolicyModules(
    AXIS_SOURCE, axis_names, _policy.TABLE, AXIS_MODULE_KEYS, lambda key: "axis", axis_candidates
)


def axis_kernel(kind, kin, kacc, kout, op, pol, R=None, block=None, m=None):
    """The axis kernel ``kind`` (``axis_rows_packed`` takes ``R``) under the policy ``pol``,
    reading ``kin`` through the map ``m`` where given (a user operator's or a map's: a source of
    its own)."""
    name = (
        packed_name(kin, kacc, kout, op, R, pol, m)
        if kind == "axis_rows_packed"
        else axis_kernel_name(kind, kin, kacc, kout, op, pol, block, m)
    )
    if isinstance(op, _ops.Op) or m is not None:
        return _ops.kernel(AXIS_SOURCE, op, kacc, name, m, kin)
    return _AXIS_MODULES.kernel((op, kacc), name, pol)


# ---- reduce.cu: the whole-array variants ------------------------------------------------------

SOURCE = "reduction/reduce.cu"
#: the production kernel's instantiations for bool (read as prim::Flag, folded a 16-byte packet
#: at a time: a sum counts its nonzero bytes, a product or min/max tests all or any of them):
#: (input, accumulator, result, ops) as :data:`~primitives._core.dtypes.REDUCE_NARROW_KERNELS`
BOOL_KERNELS = ((_BOOL, _I64, _I64, ("sum", "prod")), (_BOOL, _U32, _BOOL, ("min", "max")))
#: the production kernel's narrow-input instantiations: sums, min/max, products, then bool
NARROW_KERNELS = _dtypes.REDUCE_NARROW_KERNELS + _dtypes.REDUCE_NARROW_PROD_KERNELS + BOOL_KERNELS
#: the complex (input, accumulator) pairs, production kernel only
_COMPLEX_PAIRS = tuple((d, d) for d in _dtypes.COMPLEX)


def kernel_name(variant, in_dt, acc_dt, op, pol, out_dt=None, m=None):
    """The instantiation of ``variant`` reading ``in_dt`` (through the map ``m`` when given: a
    :class:`~.._core.ops.Map`) into ``acc_dt`` with ``op``."""
    in_c, acc_c = (_CNAMES[in_dt] if m is None else m.ctype(in_dt)), _CNAMES[acc_dt]
    tail = ""
    if variant == "zeta":
        tail = f", {pol.block}"
    elif variant == "production":
        tail = f", {pol.block}, {pol.vectors}"
        if out_dt is not None and out_dt != acc_dt:
            tail += f", {_CNAMES[out_dt]}"
    return f"reduce_{variant}<{in_c}, {acc_c}, {_ops.functor(op, acc_c)}{tail}>"


def _selector(variant):
    return "ladder" if variant in LADDER else variant


def names(variant, pol):
    out = [kernel_name(variant, i, a, op, pol) for i, a in _dtypes.ACC_PAIRS for op in OPS]
    if variant == "production":  # narrow and complex inputs: production only (the others
        # convert narrow input and refuse complex input)
        out += [
            kernel_name(variant, i, a, op, pol, r) for i, a, r, ops in NARROW_KERNELS for op in ops
        ]
        out += [
            kernel_name(variant, i, a, op, pol) for i, a in _COMPLEX_PAIRS for op in COMPLEX_OPS
        ]
    return out


_MODULES = _loader.PolicyModules(SOURCE, names, _policy.TABLE, VARIANTS, _selector)


def kernel(variant, in_dt, acc_dt, op, pol, out_dt=None, m=None):
    """The kernel of ``variant`` under policy ``pol`` (one module per variant and policy; a
    user operator's or a map's of its own source)."""
    name = kernel_name(variant, in_dt, acc_dt, op, pol, out_dt, m)
    if isinstance(op, _ops.Op) or m is not None:
        return _ops.kernel(SOURCE, op, acc_dt, name, m, in_dt)
    return _MODULES.kernel(variant, name, pol)


def masked_name(in_dt, acc_dt, op, pol, out_dt=None):
    """reduce_masked's instantiation: the production kernel's types (its :class:`~._plans.Route`)
    and block."""
    in_c, acc_c = _CNAMES[in_dt], _CNAMES[acc_dt]
    tail = f", {_CNAMES[out_dt]}" if out_dt is not None and out_dt != acc_dt else ""
    return f"reduce_masked<{in_c}, {acc_c}, {_ops.functor(op, acc_c)}, {pol.block}{tail}>"


def _masked_names(key, pol):
    out = [masked_name(i, a, op, pol) for i, a in _dtypes.ACC_PAIRS for op in OPS]
    # narrow min/max store the accumulator (the identity of an all-masked array, INT_MIN say,
    # does not fit the input's dtype; initial, which every masked min/max has, then decides)
    out += [
        masked_name(i, a, op, pol, None if op in ("min", "max") else r)
        for i, a, r, ops in NARROW_KERNELS
        for op in ops
    ]
    return out + [masked_name(i, a, op, pol) for i, a in _COMPLEX_PAIRS for op in COMPLEX_OPS]


_MASKED = _loader.PolicyModules(
    SOURCE, _masked_names, _policy.TABLE, ("masked",), lambda k: "production"
)


def masked_kernel(in_dt, acc_dt, op, pol, out_dt=None):
    """reduce_masked for the production kernel's types under the production policy ``pol`` (one
    module of every instantiation per policy; a user operator's of its own source)."""
    name = masked_name(in_dt, acc_dt, op, pol, out_dt)
    if isinstance(op, _ops.Op):
        return _ops.kernel(SOURCE, op, acc_dt, name)
    return _MASKED.kernel("masked", name, pol)


#: the (dtype, op) pairs reduce_rows is instantiated for: complex products, minima and maxima
#: (the axis kernels have no complex instantiation; complex sums over axes are float sums of the
#: parts)
ROWS_CASES = tuple((d, op) for d in _dtypes.COMPLEX for op in ("prod", "min", "max"))


def rows_name(dt, op, pol):
    c = _CNAMES[dt]
    return f"reduce_rows<{c}, {c}, {_ops.functor(op, c)}, {pol.block}>"


_ROWS = _loader.PolicyModules(
    SOURCE,
    lambda key, pol: [rows_name(d, op, pol) for d, op in ROWS_CASES],
    _policy.TABLE,
    ("rows",),
)


def rows_kernel(dt, op, pol):
    """reduce_rows of ``dt`` and ``op`` (a case of :data:`ROWS_CASES`) under ``pol``."""
    return _ROWS.kernel("rows", rows_name(dt, op, pol), pol)


# ---- finish.cu: mean's last step, the sums divided by the count -------------------------------

FINISH = "reduction/finish.cu"
#: (accumulator, result) dtypes of mean: the accumulator's own, and the 16-bit floats from float32
#: sums
MEAN_PAIRS = tuple((d, d) for d in _dtypes.REDUCE_COMPLEX_DTYPES) + tuple(
    (_F32, d) for d in _dtypes.FLOAT16S
)


def _finish_cname(dt):
    return "bool" if dt == np.bool_ else _CNAMES[dt]  # C++ bool: a count casts to it as NumPy's


def mean_divide_name(acc, res):
    return f"mean_divide<{_finish_cname(acc)}, {_finish_cname(res)}>"


_FINISH_NAMES = [mean_divide_name(a, r) for a, r in MEAN_PAIRS]
_loader.register(FINISH, _FINISH_NAMES)


def prefetch_mean_divide(acc, res):
    """Start compiling mean_divide from ``acc`` into ``res`` where kernels compile on first use
    (mean asks before its sum's kernel, so that the two compile side by side)."""
    if (np.dtype(acc), np.dtype(res)) in MEAN_PAIRS:
        _loader.prefetch(FINISH, [mean_divide_name(acc, res)])


def mean_divide_kernel(acc, res):
    """mean_divide from sums of ``acc`` into ``res`` (a pair of :data:`MEAN_PAIRS`)."""
    return _loader.load(FINISH, _FINISH_NAMES)(mean_divide_name(acc, res))


# ---- arg.cu: argmin and argmax ----------------------------------------------------------------

ARG_SOURCE = "reduction/arg.cu"
#: the real dtypes argmin/argmax take (:func:`._checks.check_arg_dtype`, the Dask layer's too);
#: complex ones are ordered as NumPy's by the kernels here (:data:`ARG_KERNEL_DTYPES`)
ARG_DTYPES = _dtypes.REAL_BF16
#: the dtypes of arg.cu's instantiations, and the C++ type each is read as: the one table's
#: (dtypes.KERNEL_CTYPES), but float16 and bfloat16 as arg.cu's prim::half_bits and
#: prim::bf16_bits (their bits, ordered there)
ARG_KERNEL_DTYPES = _dtypes.REAL_BF16 + _dtypes.COMPLEX
_ARG_BITS = {np.dtype(np.float16): "prim::half_bits", _dtypes.BFLOAT16: "prim::bf16_bits"}
_ARG_CNAMES = {dt: _ARG_BITS.get(dt) or _dtypes.KERNEL_CTYPES[dt] for dt in ARG_KERNEL_DTYPES}


def arg_key_words(dt):
    """The 64-bit words of arg.cu's key of ``dt`` (ArgOp::KEY_WORDS): 2 for complex128, else 1;
    arg_flat's partials hold ``2 * arg_key_words(dt)`` words per block and line."""
    return 2 if np.dtype(dt).itemsize > 8 else 1


def arg_pair_bytes(dt):
    """The bytes of arg.cu's (key, index) pair of ``dt`` (ArgPair<K>, K the key, padded to its
    alignment): 32 for complex128 (a 16-byte aligned key), else 16 (arg_cols' static_assert)."""
    return 32 if np.dtype(dt).itemsize > 8 else 16


def arg_ctype(dt):
    """The C++ type arg.cu reads ``dt`` as."""
    return _ARG_CNAMES[np.dtype(dt)]


#: module keys: (kind, C++ input type); "flat" holds arg_flat, "axis" arg_rows and arg_cols
_ARG_KEYS = tuple(
    (kind, c) for kind in ("flat", "axis") for c in dict.fromkeys(_ARG_CNAMES.values())
)


def _flag(is_max):
    return "true" if is_max else "false"


def arg_flat_name(c, is_max, pol):
    """arg_flat of the C++ type ``c`` (:func:`arg_ctype`)."""
    return f"arg_flat<{c}, {_flag(is_max)}, {pol.block}, {pol.vectors}>"


def arg_rows_name(c, is_max, pol, per_warp):
    return f"arg_rows<{c}, {_flag(is_max)}, {pol.rows_block}, {pol.vectors}, {_flag(per_warp)}>"


def arg_rows_pipe_name(c, is_max, pol):
    """arg_rows_pipe: a warp per row of whole packets, the next row's loads in flight."""
    return f"arg_rows_pipe<{c}, {_flag(is_max)}, {pol.rows_block}, {pol.vectors}>"


def arg_cols_name(c, is_max, pol, stacked=False):
    """arg_cols, a thread per part (``stacked`` False) or a part's sub-parts a block."""
    return f"arg_cols<{c}, {_flag(is_max)}, {pol.cols_block}, {pol.vectors}, {_flag(stacked)}>"


def arg_cols_merge_name(c, is_max, pol):
    return f"arg_cols_merge<{c}, {_flag(is_max)}, {pol.cols_block}, {pol.vectors}>"


def _arg_names(key, pol):
    kind, c = key
    out = []
    for is_max in (False, True):
        if kind == "flat":
            out.append(arg_flat_name(c, is_max, pol))
        else:
            out += [
                arg_rows_name(c, is_max, pol, True),
                arg_rows_name(c, is_max, pol, False),
                arg_cols_name(c, is_max, pol),
                arg_cols_merge_name(c, is_max, pol),
            ]
            out += [n for n, on in _arg_options(c, is_max, pol) if on]
    return out


def _arg_options(c, is_max, pol):
    """(name, taken by ``pol``) of the kernels of the arg policy's optional paths: the
    pipelined rows (rows_pipeline) and the stacked column parts (cols_stack > 1)."""
    return [
        (arg_rows_pipe_name(c, is_max, pol), bool(pol.rows_pipeline)),
        (arg_cols_name(c, is_max, pol, True), pol.cols_stack > 1),
    ]


def _arg_candidates(key, pol):
    """The optional paths' kernels ``pol`` leaves off: what an override of it launches."""
    kind, c = key
    if kind == "flat":
        return []
    return [n for is_max in (False, True) for n, on in _arg_options(c, is_max, pol) if not on]


_ARG_MODULES = _loader.PolicyModules(
    ARG_SOURCE, _arg_names, _policy.TABLE, _ARG_KEYS, lambda key: "arg", _arg_candidates
)


def arg_kernel(kind, dt, name, pol):
    """The kernel ``name`` of the ``kind`` ("flat" or "axis") module of ``dt``'s C++ type."""
    return _ARG_MODULES.kernel((kind, _ARG_CNAMES[dt]), name, pol)
