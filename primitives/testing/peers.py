"""The peers every measurement compares against, wrapped once: CUB through ``cuda.compute``
(built once per call site, temporary storage sized and allocated once, as its documentation
advises) and CuPy. Used by ``tools/figures``, the tuning tools and the asv suite.

Each ``cub_*`` function returns a callable that runs the peer on the arrays it was made for and
returns its output array; :func:`cub` returns the ``cuda.compute`` module or None when it is not
installed (``pip install cuda-cccl``).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "cub",
    "cub_reduce",
    "cub_inclusive_scan",
    "cub_linear_recurrence",
    "cub_segmented_reduce",
    "cub_histogram_even",
    "cub_radix_sort",
    "cub_segmented_sort",
    "cupy_peer",
]

_cc = None


def cub():
    """The ``cuda.compute`` module, or None (the import error is kept in :data:`cub_error`)."""
    global _cc, cub_error
    if _cc is None:
        try:
            import cuda.compute as cc
        except Exception as exc:  # not installed, or no usable CUDA  # noqa: BLE001
            cub_error = exc
            return None
        _cc = cc
    return _cc


cub_error = None


def _tmp(nbytes):
    import cupy

    return cupy.empty(max(1, int(nbytes)), cupy.uint8)


def _op(cc, op):
    return {"sum": cc.OpKind.PLUS, "min": cc.OpKind.MINIMUM, "max": cc.OpKind.MAXIMUM}[op]


def cub_reduce(x, op="sum", out=None):
    """``reduce_into`` of the whole of ``x`` with ``op``; the init value is the identity."""
    import cupy

    cc = cub()
    out = cupy.empty(1, x.dtype) if out is None else out
    if op == "sum":
        init = np.zeros(1, out.dtype)
    else:
        if out.dtype.kind == "f":
            init = np.array([np.inf if op == "min" else -np.inf], out.dtype)
        else:
            info = np.iinfo(out.dtype)
            init = np.array([info.max if op == "min" else info.min], out.dtype)
    kind = _op(cc, op)
    red = cc.make_reduce_into(d_in=x, d_out=out, op=kind, h_init=init)
    kw = dict(d_in=x, d_out=out, num_items=x.size, op=kind, h_init=init)
    tmp = _tmp(red(temp_storage=None, **kw))

    def run():
        red(temp_storage=tmp, **kw)
        return out

    return run


def cub_inclusive_scan(x, out=None, op="sum"):
    import cupy

    cc = cub()
    out = cupy.empty_like(x) if out is None else out
    kind = _op(cc, op)
    s = cc.make_inclusive_scan(d_in=x, d_out=out, op=kind, init_value=None)
    kw = dict(d_in=x, d_out=out, op=kind, num_items=x.size, init_value=None)
    tmp = _tmp(s(temp_storage=None, **kw))

    def run():
        s(temp_storage=tmp, **kw)
        return out

    return run


def cub_linear_recurrence(a, b):
    """The linear recurrence ``x[i] = a[i] * x[i-1] + b[i]``: ``inclusive_scan`` over a
    ``ZipIterator`` of ``a`` and ``b`` with the affine maps' composition as a Python operator
    (compiled by ``numba-cuda``: building it raises where that is missing), into (product, x)
    pairs; the run returns the x field (a strided view)."""
    import cupy

    cc = cub()

    def compose(p, q):
        return (p[0] * q[0], q[0] * p[1] + q[1])

    pair = np.dtype([("f0", a.dtype), ("f1", b.dtype)], align=True)
    zin, out = cc.ZipIterator(a, b), cupy.empty(a.size, pair)
    s = cc.make_inclusive_scan(d_in=zin, d_out=out, op=compose, init_value=None)
    kw = dict(d_in=zin, d_out=out, op=compose, num_items=a.size, init_value=None)
    tmp = _tmp(s(temp_storage=None, **kw))
    x = out.view(b.dtype).reshape(a.size, 2)[:, 1]

    def run():
        s(temp_storage=tmp, **kw)
        return x

    return run


def cub_segmented_reduce(x, offsets, op="sum", out=None):
    """Per segment ``[offsets[i], offsets[i+1])`` of ``x``."""
    import cupy

    cc = cub()
    nseg = offsets.size - 1
    out = cupy.empty(nseg, x.dtype) if out is None else out
    starts, ends = offsets[:-1], offsets[1:]
    init = np.zeros(1, out.dtype)
    kind = _op(cc, op)
    sr = cc.make_segmented_reduce(
        d_in=x, d_out=out, start_offsets_in=starts, end_offsets_in=ends, op=kind, h_init=init
    )
    kw = dict(
        d_in=x,
        d_out=out,
        num_segments=nseg,
        start_offsets_in=starts,
        end_offsets_in=ends,
        op=kind,
        h_init=init,
    )
    tmp = _tmp(sr(temp_storage=None, **kw))

    def run():
        sr(temp_storage=tmp, **kw)
        return out

    return run


def cub_histogram_even(x, nbins, lo, hi, level_dtype=None):
    """``histogram_even`` into ``nbins`` int32 counters over ``[lo, hi)``; ``level_dtype`` (the
    levels' dtype) defaults to float32 for float samples and int32 otherwise."""
    import cupy

    cc = cub()
    if level_dtype is None:
        level_dtype = np.float32 if x.dtype.kind == "f" else np.int32
    out = cupy.zeros(nbins, dtype=cupy.int32)
    lv = np.array([nbins + 1], np.int32)
    lo_a, hi_a = np.array([lo], level_dtype), np.array([hi], level_dtype)
    h = cc.make_histogram_even(
        d_samples=x,
        d_histogram=out,
        h_num_output_levels=lv,
        h_lower_level=lo_a,
        h_upper_level=hi_a,
        num_samples=x.size,
    )
    kw = dict(
        d_samples=x,
        d_histogram=out,
        h_num_output_levels=lv,
        h_lower_level=lo_a,
        h_upper_level=hi_a,
        num_samples=x.size,
    )
    tmp = _tmp(h(temp_storage=None, **kw))

    def run():
        h(temp_storage=tmp, **kw)
        return out

    return run


def cub_radix_sort(keys, values=None, descending=False):
    """Keys (and values) sorted into new arrays; the run returns the keys, or (keys, values)."""
    import cupy

    cc = cub()
    out_k = cupy.empty_like(keys)
    out_v = None if values is None else cupy.empty_like(values)
    order = cc.SortOrder.DESCENDING if descending else cc.SortOrder.ASCENDING
    s = cc.make_radix_sort(
        d_in_keys=keys, d_out_keys=out_k, d_in_values=values, d_out_values=out_v, order=order
    )
    kw = dict(
        d_in_keys=keys,
        d_out_keys=out_k,
        d_in_values=values,
        d_out_values=out_v,
        num_items=keys.size,
    )
    tmp = _tmp(s(temp_storage=None, **kw))

    def run():
        s(temp_storage=tmp, **kw)
        return out_k if values is None else (out_k, out_v)

    return run


def cub_segmented_sort(keys, offsets):
    """Keys sorted within each segment ``[offsets[i], offsets[i+1])``."""
    import cupy

    cc = cub()
    out_k = cupy.empty_like(keys)
    starts, ends = offsets[:-1], offsets[1:]
    s = cc.make_segmented_sort(
        d_in_keys=keys,
        d_out_keys=out_k,
        d_in_values=None,
        d_out_values=None,
        start_offsets_in=starts,
        end_offsets_in=ends,
        order=cc.SortOrder.ASCENDING,
    )
    kw = dict(
        d_in_keys=keys,
        d_out_keys=out_k,
        d_in_values=None,
        d_out_values=None,
        num_items=keys.size,
        num_segments=starts.size,
        start_offsets_in=starts,
        end_offsets_in=ends,
    )
    tmp = _tmp(s(temp_storage=None, **kw))

    def run():
        s(temp_storage=tmp, **kw)
        return out_k

    return run


def cupy_peer(name, *args, **kwargs):
    """``lambda: cupy.<name>(*args, **kwargs)`` (``name`` may be dotted: ``"cupy.sort"``,
    ``"sort"``)."""
    import cupy

    fn = cupy
    for part in name.removeprefix("cupy.").split("."):
        fn = getattr(fn, part)
    return lambda: fn(*args, **kwargs)


def cupy_reduce_by_key(keys, values):
    """Reduce-by-key (sums) in CuPy, which has no such function: head flags from a comparison of
    neighbours, the runs' starts by ``cupy.flatnonzero``, then ``cupy.add.reduceat`` over them
    (or, in a CuPy without ``reduceat``, ``cupyx.scatter_add`` of the values into their run)."""
    import cupy

    heads = cupy.empty(keys.size, dtype=cupy.bool_)
    heads[:1] = True
    cupy.not_equal(keys[1:], keys[:-1], out=heads[1:])
    starts = cupy.flatnonzero(heads)
    if hasattr(cupy.add, "reduceat"):
        return keys[starts], cupy.add.reduceat(values, starts)
    import cupyx

    sums = cupy.zeros(starts.size, dtype=values.dtype)
    cupyx.scatter_add(sums, cupy.cumsum(heads) - 1, values)
    return keys[starts], sums
