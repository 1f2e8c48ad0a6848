"""CUB through ``cuda.compute`` (the ``cuda-cccl`` package), wrapped for the benchmarks.

The suite keeps its own small wrapper rather than importing ``primitives.testing.peers``: the
same benchmarks run against older commits, which do not have that module, and the peers'
timings must not depend on the commit under test. Each ``cub_*`` returns a callable that runs the
algorithm on the arrays it was built for, with its temporary storage allocated once.
``NotImplementedError`` (asv: skipped) when ``cuda.compute`` cannot be imported, or when
``PRIMITIVES_ASV_NO_CUB`` is set.
"""

import os

import numpy as np


def _cc():
    if os.environ.get("PRIMITIVES_ASV_NO_CUB"):
        raise NotImplementedError("CUB peer: turned off (PRIMITIVES_ASV_NO_CUB)")
    try:
        import cuda.compute as cc
    except Exception as exc:  # not installed, or no usable CUDA
        raise NotImplementedError(f"CUB peer: cuda.compute is not available ({exc})") from exc
    return cc


def _runner(algo, kw):
    """Size the temporary storage once; the runner passes it on every call."""
    import cupy

    tmp = cupy.empty(max(1, int(algo(temp_storage=None, **kw))), cupy.uint8)
    return lambda: algo(temp_storage=tmp, **kw)


def cub_sum(x):
    import cupy

    cc = _cc()
    out = cupy.empty(1, x.dtype)
    kw = dict(d_in=x, d_out=out, op=cc.OpKind.PLUS, h_init=np.zeros(1, x.dtype))
    return _runner(cc.make_reduce_into(**kw), dict(kw, num_items=x.size))


def cub_inclusive_sum(x):
    import cupy

    cc = _cc()
    kw = dict(d_in=x, d_out=cupy.empty_like(x), op=cc.OpKind.PLUS, init_value=None)
    return _runner(cc.make_inclusive_scan(**kw), dict(kw, num_items=x.size))


def cub_segmented_sum(x, offsets):
    import cupy

    cc = _cc()
    nseg = offsets.size - 1
    kw = dict(
        d_in=x,
        d_out=cupy.empty(nseg, x.dtype),
        start_offsets_in=offsets[:-1],
        end_offsets_in=offsets[1:],
        op=cc.OpKind.PLUS,
        h_init=np.zeros(1, x.dtype),
    )
    return _runner(cc.make_segmented_reduce(**kw), dict(kw, num_segments=nseg))


def cub_histogram_even(x, nbins, lo, hi):
    """``nbins`` int32 counters over ``[lo, hi)``; float32 levels for float samples, else int32."""
    import cupy

    cc = _cc()
    level = np.float32 if x.dtype.kind == "f" else np.int32
    kw = dict(
        d_samples=x,
        d_histogram=cupy.zeros(nbins, cupy.int32),
        h_num_output_levels=np.array([nbins + 1], np.int32),
        h_lower_level=np.array([lo], level),
        h_upper_level=np.array([hi], level),
        num_samples=x.size,
    )
    return _runner(cc.make_histogram_even(**kw), kw)


def cub_radix_sort(keys):
    import cupy

    cc = _cc()
    kw = dict(d_in_keys=keys, d_out_keys=cupy.empty_like(keys), d_in_values=None, d_out_values=None)
    algo = cc.make_radix_sort(**kw, order=cc.SortOrder.ASCENDING)
    return _runner(algo, dict(kw, num_items=keys.size))


def _python_op(name):
    """A user's operator as ``cuda.compute`` takes it: a Python function (compiled by Numba)."""
    if name == "sum":
        return lambda a, b: a + b
    return lambda a, b: a if a > b else b


def cub_reduce_op(x, name, init):
    import cupy

    cc = _cc()
    out = cupy.empty(1, x.dtype)
    kw = dict(d_in=x, d_out=out, op=_python_op(name), h_init=np.full(1, init, x.dtype))
    return _runner(cc.make_reduce_into(**kw), dict(kw, num_items=x.size))


def cub_inclusive_scan_op(x, name):
    import cupy

    cc = _cc()
    kw = dict(d_in=x, d_out=cupy.empty_like(x), op=_python_op(name), init_value=None)
    return _runner(cc.make_inclusive_scan(**kw), dict(kw, num_items=x.size))


def cub_linear_recurrence(a, b):
    """The linear recurrence ``x[i] = a[i] * x[i-1] + b[i]``: CUB's ``inclusive_scan`` over a
    ``ZipIterator`` of ``a`` and ``b`` with the affine maps' composition as a Python operator,
    into an array of (product, x) pairs (``cuda.compute``'s output iterators take one field only
    through a typed transform)."""
    import cupy

    cc = _cc()

    def compose(p, q):
        return (p[0] * q[0], q[0] * p[1] + q[1])

    pair = np.dtype([("f0", a.dtype), ("f1", b.dtype)], align=True)
    zin = cc.ZipIterator(a, b)
    kw = dict(d_in=zin, d_out=cupy.empty(a.size, pair), op=compose, init_value=None)
    return _runner(cc.make_inclusive_scan(**kw), dict(kw, num_items=a.size))
