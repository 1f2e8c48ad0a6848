"""The order of complex numbers, as NumPy's: ``min``, ``max``, ``argmin`` and ``argmax`` of
complex64/complex128 compare lexicographically (the real parts, then the imaginary ones), and a
number with a NaN in either part is NaN and wins (the first one, as ``numpy.maximum`` propagates
it and ``numpy.argmax`` returns its index).

No kernel orders complex numbers: each is a composition of the real reductions along the last
axis (the reduced axes moved there, one copy unless they are already last), with elementwise
steps of the backend's array module between them (temporaries, a few passes over the data):

1. ``nan``: the elements with a NaN part; ``re``: the real parts, NaN elements made the losing
   value (-inf for max, +inf for min);
2. ``best_re``: the max (min) of ``re``; ``cand``: the elements whose real part is that;
3. ``im``: the imaginary parts of ``cand``, the others the losing value; ``best_im``: its max;
4. the hits: the NaN elements where a line has one, else ``cand`` with ``im == best_im``; the
   index is the argmax of the hits (the first one), the value the element there.
"""

from __future__ import annotations

import numpy as np

__all__ = ["arg_last", "extreme"]


def _reduce_last(a, op, backend):
    """``op`` of the backend array ``a`` along its last axis, the axis kept (length 1)."""
    from . import _api

    a = backend.xp.ascontiguousarray(a)
    r = _api._prepare(a, op, (a.ndim - 1,), None, None, True, "auto", op)()
    return backend.xp.asarray(r)


def arg_last(z, is_max, backend):
    """The index of the first maximum (``is_max``) or minimum of each line of the complex
    backend array ``z`` along its last axis (of length 1 or more): an int64 array of
    ``z.shape[:-1]``."""
    from . import _api

    xp = backend.xp
    op = "max" if is_max else "min"
    lose = -np.inf if is_max else np.inf
    nan = xp.isnan(z)
    re = xp.where(nan, lose, z.real)
    cand = (re == _reduce_last(re, op, backend)) & ~nan
    im = xp.where(cand, z.imag, lose)
    hits = cand & (im == _reduce_last(im, op, backend))
    hits = xp.where(_reduce_last(nan, "max", backend), nan, hits)
    hits = xp.ascontiguousarray(hits)
    return xp.asarray(_api._prepare_arg(hits, hits.ndim - 1, None, False, True)())


def extreme(arr, axes, is_max, backend):
    """The max (``is_max``) or min of the complex backend array ``arr`` over ``axes`` (a
    sorted tuple, none of length 0), shaped as the kept axes: the elements at
    :func:`arg_last` of the reduced axes moved last."""
    xp = backend.xp
    kept = [a for a in range(arr.ndim) if a not in axes]
    shape = tuple(arr.shape[a] for a in kept)
    width = int(np.prod([arr.shape[a] for a in axes], dtype=np.int64))
    if int(np.prod(shape, dtype=np.int64)) == 0:
        return xp.empty(shape, dtype=arr.dtype)
    z = xp.transpose(arr, kept + list(axes)).reshape(shape + (width,))
    idx = arg_last(z, is_max, backend)
    return xp.take_along_axis(z, idx[..., None], axis=-1)[..., 0]
