"""Properties of the set functions against NumPy, over inputs of every layout: C- and F-ordered,
read backwards (negative strides), every other element, one element in, the other byte
order, 0-d, empty, of one element.

``unique`` against :func:`numpy.unique` (every ``return_*`` combination, axes in and out of
range, 1-D and 2-D, NaNs, signed zeros, every key dtype, both variants); ``run_length_encode``
and ``reduce_by_key`` against oracles made of NumPy here (runs found by comparing neighbours,
reductions by ``ufunc.reduceat`` of values whose sums and products are exact in any order).

Hypothesis draws the dtype and a seed; the seed's generator draws the rest (shapes, values,
layouts, flags, axes), so that every example is as likely to hold NaNs, repeated values or an
axis out of range. Dtypes are drawn, not enumerated: the emulator compiles each kernel
instantiation on first use.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives._core import dtypes as _dtypes
from primitives.sets import OPS
from primitives.sets import _plans as _rp
from primitives.sets._checks import VALUE_DTYPES
from primitives.testing import harness as H

KEY_DTYPES = _rp.KEY_DTYPES
#: every key dtype, the floats twice (their NaNs and signed zeros are where unique's paths part)
UNIQUE_DTYPES = KEY_DTYPES + tuple(d for d in KEY_DTYPES if d.kind == "f")
LAYOUTS = ("C", "F", "reversed", "strided", "offset", "swapped")
_REDUCEAT = {"sum": np.add, "prod": np.multiply, "min": np.minimum, "max": np.maximum}
SEEDS = st.integers(0, 2**32 - 1)


def sampled(n):
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def key_pool(dt):
    """A few values of key dtype ``dt``, drawn again and again: NaN, both zeros and the
    infinities for floats, the extremes for integers."""
    if dt == np.bool_:
        return [False, True]
    if dt.kind == "f":
        return [np.nan, 1.0, -0.0, 0.0, -2.5, np.inf, -np.inf, 3.0]
    info = np.iinfo(dt)
    return [1, 0, 2, int(info.max), int(info.min) if dt.kind == "i" else 5, 3]


def value_pool(dt):
    """Values of ``dt`` whose sums and products are exact in any order (small integers, powers
    of two, the units of the Gaussian integers) or NaN whatever the order (NaN, inf and -inf;
    0 and inf)."""
    if dt == np.bool_:
        return [True, False]
    if dt.kind == "c":
        return [1, 1j, -1, 1 + 1j, 2, 0]
    if dt.kind == "f":
        return [np.nan, 1.0, -1.0, 2.0, 0.5, 0.0, -0.0, np.inf]
    return [1, 2, 3, 0] + ([-1, -3] if dt.kind == "i" else [])


def values(rng, pool, dt, n):
    """n values of one to four of ``pool``'s (its first, NaN for floats, half the time), in
    runs of one to four."""
    chosen = rng.choice(len(pool), size=rng.integers(1, min(4, len(pool)) + 1), replace=False)
    if rng.random() < 0.5:
        chosen[0] = 0
    vals = np.array(pool, dtype=dt)[np.unique(chosen)]
    idx = np.repeat(rng.integers(0, vals.size, n), rng.integers(1, 5, n))[:n]
    return vals[idx]


def laid_out(v, layout):
    """An array of the values of ``v`` (ndim >= 1) in ``layout``: a C-ordered copy, an F-ordered
    one, backwards views (``w[::-1]`` on every axis), every other element of a larger array
    along the first axis (``w[::2]``), a view one element into one (``w[1:]``), or a copy in
    the other byte order."""
    if layout == "swapped":
        return v.astype(v.dtype.newbyteorder())
    if layout == "C":
        return v.copy()
    if layout == "F":
        return np.asfortranarray(v)
    if layout == "reversed":
        return np.flip(np.flip(v).copy())
    n = v.shape[0]
    w = np.zeros((2 * n + 1,) + v.shape[1:], dtype=v.dtype)
    if layout == "strided":
        w[: 2 * n : 2] = v
        return w[: 2 * n : 2]
    w[1 : n + 1] = v
    return w[1 : n + 1]


def length(rng, most=40):
    """0, 1 or up to ``most`` (a third of the time each)."""
    return int(rng.choice([0, 1, rng.integers(2, most + 1)]))


def array(rng, dt, pool, ndim):
    """An array of ``dt`` of values of ``pool`` of ``ndim`` dimensions (0 to 2), in a layout of
    :data:`LAYOUTS`."""
    if ndim == 0:
        return np.array(pool[rng.integers(len(pool))], dtype=dt)
    shape = (length(rng),) if ndim == 1 else (length(rng, 8), int(rng.integers(0, 4)))
    v = values(rng, pool, dt, int(np.prod(shape))).reshape(shape)
    return laid_out(v, LAYOUTS[rng.integers(len(LAYOUTS))])


# ---- unique -----------------------------------------------------------------------------------


@pytest.mark.parametrize("ndim", [0, 1, 2])
@sampled(300)
@given(dt=st.sampled_from(UNIQUE_DTYPES), seed=SEEDS)
def test_unique_as_numpy(ndim, dt, seed):
    rng = np.random.default_rng(seed)
    x = array(rng, dt, key_pool(dt), ndim)
    flags = tuple(bool(f) for f in rng.integers(0, 2, 3))
    within = list(range(-ndim, ndim)) or [0, -1]  # (a 0-d array has none: out of range)
    axis = [None, int(rng.choice(within)), int(rng.choice([ndim, -ndim - 1]))][
        rng.choice(3, p=[0.3, 0.5, 0.2])
    ]
    equal_nan = bool(rng.integers(2))
    variant = str(rng.choice(["auto", "compact", "count"]))

    def body(xp):
        kw = {"variant": variant} if xp is prim else {}
        return xp.unique(x, *flags, axis=axis, equal_nan=equal_nan, **kw)

    rows = axis is not None and ndim == 2
    in_range = axis is None or -ndim <= axis < ndim
    ties = flags[1] and not flags[0] and (rows or not equal_nan) and np.isnan(x).sum() > 1
    if not (in_range and ties):
        H.run_twins(body, name="unique")
        return
    # NaNs that are unique elements (or rows) of their own, and an inverse without the first
    # indices: NumPy's inverse follows the order its unstable sort leaves them in. The rest
    # as NumPy's; the inverse rebuilds x and reaches every unique element (one NaN each).
    got, want = H.to_host(body(prim)), body(np)
    H.assert_same(got[:1] + got[2:], want[:1] + want[2:])
    u, inverse = got[0], got[1]
    assert inverse.dtype == want[1].dtype and inverse.shape == want[1].shape
    H.assert_same(np.take(u, inverse, axis=axis if rows else None), x)
    H.assert_same(np.unique(inverse), np.arange(u.shape[axis if rows else 0]))


# ---- run_length_encode ------------------------------------------------------------------------


def rle_oracle(x):
    """(first element of each run of equal neighbours, run lengths): ``==`` of NumPy, under
    which ``-0.0`` equals ``0.0`` and a NaN equals nothing."""
    starts = np.flatnonzero(np.r_[True, x[1:] != x[:-1]]) if x.size else np.zeros(0, np.intp)
    return x[starts], np.diff(np.r_[starts, x.size]).astype(np.int64)


@sampled(150)
@given(dt=st.sampled_from(KEY_DTYPES), seed=SEEDS)
def test_run_length_encode_as_the_oracle(dt, seed):
    rng = np.random.default_rng(seed)
    x = array(rng, dt, key_pool(dt), int(rng.choice([0, 1, 1, 1, 2])))
    if x.ndim != 1:
        H.raises_like(
            ValueError, "run_length_encode", prim.run_length_encode, x, match="must be 1-D"
        )
        return
    H.assert_same(prim.run_length_encode(x), rle_oracle(x))


# ---- reduce_by_key ----------------------------------------------------------------------------


def rbk_oracle(keys, values, op, sort):
    """(first key of each run, the ``op``-reduction of its values) in NumPy's result dtype of
    ``op`` (``ufunc.reduce``'s, native); float16 and bfloat16 (either byte order) reduced in
    float32 and rounded once, as reduce_by_key documents."""
    if sort:
        order = np.argsort(keys, kind="stable")
        keys, values = keys[order], values[order]
    res = (
        values.dtype.newbyteorder("=")
        if op in ("min", "max")
        else _REDUCEAT[op].reduce(values[:0]).dtype
    )
    uk, counts = rle_oracle(keys)
    if not keys.size:
        return uk, np.zeros(0, res)
    half = _dtypes.is_float16(values.dtype.newbyteorder("="))  # float16 or bfloat16
    work = values.astype(np.float32 if half else res)
    with np.errstate(all="ignore"):  # inf - inf, 0 * inf: NaN, as the kernels make it
        return uk, _REDUCEAT[op].reduceat(work, np.r_[0, np.cumsum(counts)[:-1]]).astype(res)


@sampled(120)
@given(kdt=st.sampled_from(KEY_DTYPES), vdt=st.sampled_from(VALUE_DTYPES), seed=SEEDS)
# a byte-swapped bfloat16 product of 1s and eight 3s: 6560 rounded once from float32, where
# bfloat16 products rounded step by step give 6528
@example(kdt=np.dtype(np.bool_), vdt=_dtypes.BFLOAT16, seed=9899659)
def test_reduce_by_key_as_the_oracle(kdt, vdt, seed):
    rng = np.random.default_rng(seed)
    vdt = np.dtype(vdt)
    op = str(rng.choice(OPS[:2] if vdt.kind == "c" else OPS))
    sort = bool(rng.integers(2))
    keys = array(rng, kdt, key_pool(kdt), int(rng.choice([0, 1, 1, 1, 1, 2])))
    n = keys.shape[0] if keys.ndim else 1
    vals = laid_out(values(rng, value_pool(vdt), vdt, n), LAYOUTS[rng.integers(len(LAYOUTS))])
    if keys.ndim != 1:
        H.raises_like(
            ValueError,
            "reduce_by_key",
            prim.reduce_by_key,
            keys,
            vals,
            op,
            sort=sort,
            match="keys must be 1-D",
        )
        return
    with np.errstate(all="ignore"):  # float16 results beyond its range: inf, as NumPy's
        got = prim.reduce_by_key(keys, vals, op, sort=sort)
    H.assert_same(got, rbk_oracle(keys, vals, op, sort))
