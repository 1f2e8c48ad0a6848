"""Kernel names: every instantiation of ``kernels/sparse/`` (csr.cu, ell.cu, coo.cu and
convert.cu), and their modules.

Kernels are templated on the value type (float32, float64, complex64, complex128: the complex
ones as prim::c64/c128) and the index type (int32, int64); csr_vector on its lanes per row, ell
on its width, merge_path, coo and the fix-up on their policy's tile. One module per source and
policy; every policy of the table is registered for the NVRTC check, and a tile of any other
policy (an override, :mod:`primitives.tuning`) compiles a module of its own on demand.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes, loader as _loader
from . import _policy
from ._base import INDEX_DTYPES, VALUE_DTYPES

CSR_SOURCE, ELL_SOURCE, COO_SOURCE = "sparse/csr.cu", "sparse/ell.cu", "sparse/coo.cu"
CONVERT_SOURCE = "sparse/convert.cu"
LANES = _policy.LANES
#: the C++ value types of the complex kernels (prim::c64/c128 of kernels/util/complex.cuh)
_COMPLEX_CTYPES = {np.dtype(np.complex64): "prim::c64", np.dtype(np.complex128): "prim::c128"}


def cname(dt):
    """The C++ type of a value or index dtype in the kernels' name expressions."""
    dt = np.dtype(dt)
    return _COMPLEX_CTYPES.get(dt) or _dtypes.cname(dt)


_ct = cname


def _pairs():
    return [(v, i) for v in VALUE_DTYPES for i in INDEX_DTYPES]


# ---- the products: one module per variant and policy -------------------------------------------


def scalar_name(vt, it):
    return f"spmv_csr_scalar<{_ct(vt)}, {_ct(it)}>"


def scalar_names():
    return [scalar_name(v, i) for v, i in _pairs()]


def vector_name(vt, it, lanes):
    return f"spmv_csr_vector<{_ct(vt)}, {_ct(it)}, {lanes}>"


def vector_names():
    return [vector_name(v, i, L) for v, i in _pairs() for L in LANES]


def merge_name(vt, it, pol):
    return f"spmv_merge_path<{_ct(vt)}, {_ct(it)}, {pol.block}, {pol.items}>"


def partition_name(it):
    return f"spmv_merge_partition<{_ct(it)}>"


def merge_names(vt, pol):
    """The partition and the tile kernel of value type ``vt`` under its policy (a tile shape a
    tool tries for float32 need not fit float64's shared memory)."""
    return [partition_name(i) for i in INDEX_DTYPES] + [
        merge_name(vt, i, pol) for i in INDEX_DTYPES
    ]


#: the ELL widths with a kernel of their own (all slots loaded at once); other widths run the
#: kernel of any width (WIDTH 0), see kernels/sparse/ell.cu
ELL_WIDTHS = tuple(range(1, 9))


def ell_width_param(width):
    """The WIDTH template parameter of spmv_ell for a matrix of ``width`` slots a row."""
    return width if width in ELL_WIDTHS else 0


def ell_name(vt, it, width, rows=False):
    """spmv_ell (every row stored) or spmv_ell_rows (``rows``: the stored rows listed) for a
    matrix of ``width`` slots a row."""
    k = "spmv_ell_rows" if rows else "spmv_ell"
    return f"{k}<{_ct(vt)}, {_ct(it)}, {ell_width_param(width)}>"


def ell_names():
    return [
        f"{k}<{_ct(v)}, {_ct(i)}, {w}>"
        for k in ("spmv_ell", "spmv_ell_rows")
        for v, i in _pairs()
        for w in (0,) + ELL_WIDTHS
    ]


def coo_name(vt, it, pol):
    return f"spmv_coo<{_ct(vt)}, {_ct(it)}, {pol.block}, {pol.items}>"


def fixup_name(vt, it, pol):
    return f"spmv_carry_fixup<{_ct(vt)}, {_ct(it)}, {pol.block}, {pol.items}>"


def scale_name(vt):
    return f"spmv_scale<{_ct(vt)}>"


def coo_names(coo_pol, fix_pol):
    """The reduction by key, its fix-up and the beta scaling."""
    return (
        [coo_name(v, i, coo_pol) for v, i in _pairs()]
        + [fixup_name(v, i, fix_pol) for v, i in _pairs()]
        + [scale_name(v) for v in VALUE_DTYPES]
    )


# ---- the conversions between formats ------------------------------------------------------------


def convert_names():
    out = []
    for i in INDEX_DTYPES:
        ic = _ct(i)
        out += [
            f"sparse_expand_rows<{ic}>",
            f"sparse_rowptr_from_rows<{ic}>",
            f"sparse_ell_lengths<{ic}>",
        ]
        for v in VALUE_DTYPES:
            vc = _ct(v)
            out += [
                f"sparse_csr_to_ell<{vc}, {ic}>",
                f"sparse_ell_to_csr<{vc}, {ic}>",
                f"sparse_hyb_overflow<{vc}, {ic}>",
                f"sparse_coo_to_csr_part<{vc}, {ic}>",
            ]
    return out


# every policy of the table, for the NVRTC check
_loader.register(CSR_SOURCE, scalar_names() + vector_names())
for _vt in VALUE_DTYPES:
    for _pol in _policy.policies(("merge_path", _vt.name)):
        _loader.register(CSR_SOURCE, merge_names(_vt, _pol))
_loader.register(ELL_SOURCE, ell_names())
for _cp in _policy.policies("coo"):
    for _fp in _policy.policies("fixup"):
        _loader.register(COO_SOURCE, coo_names(_cp, _fp))
_loader.register(CONVERT_SOURCE, convert_names())


def csr_module(names):
    return _loader.load(CSR_SOURCE, names)


def scalar_module():
    return _loader.load(CSR_SOURCE, scalar_names())


def vector_module():
    return _loader.load(CSR_SOURCE, vector_names())


def ell_module():
    return _loader.load(ELL_SOURCE, ell_names())


def coo_module():
    """The COO module under the policies in force (the reduction by key, its fix-up, the
    scaling of y)."""
    return _loader.load(COO_SOURCE, coo_names(_policy.coo(), _policy.fixup()))


def convert_module():
    return _loader.load(CONVERT_SOURCE, convert_names())
