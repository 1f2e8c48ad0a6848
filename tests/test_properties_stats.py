"""Property tests of the statistics and NaN-skipping functions against NumPy, over the inputs
their per-family tests do not cross one by one (the layouts, axis forms, ``keepdims``, ``out=``
and ``dtype=`` of :mod:`tests.test_properties`, with each function's own keywords: ``ddof``,
``q`` and ``method``, ``weights``, ``where``, ``initial``).

Values are small integers with NaNs (:func:`tests.test_properties.arrays`), so sums, counts,
extrema, medians and order statistics agree with NumPy exactly; the functions that divide or
take roots (means, variances, interpolated quantiles) are compared within a few units in the
last place of their result dtype.
"""

import numpy as np
from hypothesis import assume, given, strategies as st

from primitives.selection import _quantile
from primitives.testing import harness as H

from tests.test_properties import (
    ALL,
    COMPLEX,
    REAL,
    SETTINGS,
    _call,
    _buffered_out,
    _defined,
    _float16_rounding,
    _undefined_cast,
    arrays,
    axes,
    numpy_quietly,
    oracle_input,
    producers,
)

FLOATS = tuple(d for d in REAL if d.kind == "f")
NUMERIC = tuple(d for d in REAL if d.kind != "b")
#: quantile methods: the interpolating ones and the discontinuous ones
METHODS = _quantile.METHODS


def _rtol(*dts):
    """A few units in the last place of the least precise float of ``dts`` (float64 where none
    is a float: integer inputs give float64 statistics)."""
    eps = min(
        (np.finfo(d).eps for d in map(np.dtype, dts) if d.kind in "fc"),
        key=lambda e: -e,
        default=np.finfo(np.float64).eps,
    )
    return float(64 * eps)


def _check(name, x, kwargs, out_dt=None, args=(), rtol=0.0, wrap=None):
    x = oracle_input(x, wrap)

    def body(xp):
        return _call(xp, name, x, kwargs, out_dt, args, wrap)

    body.__name__ = f"{name}({x.dtype}{x.shape}, {args}, {kwargs}, out={out_dt})"
    assume(not _undefined_cast(name, x, kwargs, out_dt))
    assume(not _float16_rounding(name, x, kwargs, out_dt))
    assume(not _buffered_out(name, x, kwargs, out_dt, args))
    _defined(body)
    if x.size > 4096:  # a longer run's (PRIM_PROPERTY_MAX_SIZE): NumPy adds along a strided
        # axis one element after another, some hundreds of units in the last place off the
        # exact variance of 20,000 elements (the library's within a few)
        rtol *= x.size / 1024
    before = x.copy()
    H.run_twins(body, name=name, rtol=rtol, atol=rtol)
    H.assert_same(x, before, what=f"{name} left its input unchanged")


def _float16_overflow(name, x, kwargs):
    """Whether NumPy's float16 variance overflows: it sums the squared deviations in float16
    (a float16 input, or ``dtype=float16``), inf past 65504 (4096 elements and more of the
    longer runs), where the library sums them in float64 (docs/statistics.rst)."""
    if x.size <= 4096:
        return False
    res = numpy_quietly(name, x, kwargs)
    return res is not None and res.dtype == np.float16 and bool(np.isinf(res).any())


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("var", "std", "nanvar", "nanstd")))
def test_var_std(data, name):
    x = data.draw(arrays(dtypes=NUMERIC + COMPLEX), "x")
    kwargs = {
        "axis": data.draw(axes(x.ndim), "axis"),
        "keepdims": data.draw(st.booleans(), "keepdims"),
        "ddof": data.draw(st.sampled_from((0, 1, 2)), "ddof"),
    }
    if data.draw(st.booleans(), "with dtype"):
        kwargs["dtype"] = data.draw(st.sampled_from(FLOATS + COMPLEX), "dtype")
    out_dt = data.draw(st.sampled_from((None,) + FLOATS), "out dtype")
    assume(not (out_dt is not None and x.dtype.kind == "c"))  # NumPy's ComplexWarning cast
    res = [x.dtype, kwargs.get("dtype", np.float64), out_dt or np.float64]
    assume(not _float16_overflow(name, x, kwargs))
    _check(
        name,
        x,
        kwargs,
        out_dt,
        rtol=_rtol(*res),
        wrap=data.draw(producers(x, sequences=True), "producer"),
    )


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("mean", "nanmean", "average")))
def test_means(data, name):
    x = data.draw(arrays(dtypes=NUMERIC + COMPLEX), "x")
    kwargs = {"axis": data.draw(axes(x.ndim), "axis"), "keepdims": data.draw(st.booleans())}
    args, out_dt = (), None
    if name == "average":
        axis = kwargs["axis"]
        if data.draw(st.booleans(), "weighted") and (axis is None or isinstance(axis, int)):
            # weights of the whole shape, or of the one axis's length
            whole = axis is None or data.draw(st.booleans(), "weights of x's shape")
            shape = x.shape if whole else (x.shape[axis],) if -x.ndim <= axis < x.ndim else ()
            rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1), "seed"))
            kwargs["weights"] = rng.integers(0, 4, shape).astype(
                data.draw(st.sampled_from((np.float64, np.float32, np.int64)), "weights dtype")
            )
        kwargs["returned"] = data.draw(st.booleans(), "returned")
    else:
        if data.draw(st.booleans(), "with dtype"):
            kwargs["dtype"] = data.draw(st.sampled_from(FLOATS + COMPLEX), "dtype")
        out_dt = data.draw(st.sampled_from((None,) + FLOATS + COMPLEX), "out dtype")
    with np.errstate(all="ignore"):
        rtol = _rtol(x.dtype, kwargs.get("dtype", x.dtype))
        _check(
            name,
            x,
            kwargs,
            out_dt,
            args,
            rtol=rtol,
            wrap=data.draw(producers(x, sequences=True), "producer"),
        )


@SETTINGS
@given(
    data=st.data(),
    name=st.sampled_from(("nansum", "nanprod", "nanmin", "nanmax", "nancumsum", "nancumprod")),
)
def test_nan_reductions_and_scans(data, name):
    scan = name.startswith("nancum")
    x = data.draw(arrays(dtypes=NUMERIC + COMPLEX, small=name.endswith("prod")), "x")
    kwargs = {"axis": data.draw(axes(x.ndim, tuples=not scan), "axis")}
    if not scan:
        kwargs["keepdims"] = data.draw(st.booleans(), "keepdims")
    if name in ("nansum", "nanprod", "nancumsum", "nancumprod") and data.draw(st.booleans()):
        kwargs["dtype"] = data.draw(
            st.sampled_from(COMPLEX if x.dtype.kind == "c" else NUMERIC + COMPLEX), "dtype"
        )
    if not scan and data.draw(st.booleans(), "with initial"):
        kwargs["initial"] = data.draw(st.sampled_from((-2, 0, 3)), "initial")
    outs = ALL if x.dtype.kind == "c" else REAL
    out_dt = data.draw(st.sampled_from((None,) + outs), "out dtype")
    if out_dt is not None and "initial" in kwargs:
        # an initial out of out's range: NumPy converts it to out's dtype first, wrapping
        # (C's conversion), then reduces in the promoted dtype; not a defined answer
        assume(out_dt.kind in "ifc" or (out_dt.kind == "u" and kwargs["initial"] >= 0))
    with np.errstate(all="ignore"):
        _check(name, x, kwargs, out_dt, wrap=data.draw(producers(x, sequences=True), "producer"))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("nanargmin", "nanargmax", "ptp", "count_nonzero")))
def test_arg_ptp_count(data, name):
    x = data.draw(arrays(dtypes=REAL if name == "ptp" else ALL), "x")
    kwargs = {
        "axis": data.draw(axes(x.ndim, tuples=name == "count_nonzero"), "axis"),
        "keepdims": data.draw(st.booleans(), "keepdims"),
    }
    assume(not (name == "ptp" and x.dtype.kind == "b"))  # NumPy: subtract of booleans
    _check(name, x, kwargs, wrap=data.draw(producers(x, sequences=True), "producer"))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("median", "nanmedian")))
def test_median(data, name):
    x = data.draw(arrays(dtypes=NUMERIC), "x")
    kwargs = {"axis": data.draw(axes(x.ndim), "axis"), "keepdims": data.draw(st.booleans())}
    out_dt = data.draw(st.sampled_from((None,) + FLOATS), "out dtype")
    with np.errstate(all="ignore"):
        wrap = data.draw(producers(x, sequences=True), "producer")
        _check(name, x, kwargs, out_dt, rtol=_rtol(x.dtype, out_dt or x.dtype), wrap=wrap)


@SETTINGS
@given(
    data=st.data(), name=st.sampled_from(("quantile", "percentile", "nanquantile", "nanpercentile"))
)
def test_quantiles(data, name):
    x = data.draw(arrays(dtypes=NUMERIC), "x")
    scale = 100 if "percentile" in name else 1
    qs = data.draw(
        st.lists(st.sampled_from((0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 1.0)), max_size=3), "q"
    )
    q = data.draw(st.sampled_from(("scalar", "list", "array")), "q form")
    qv = (
        (qs[0] if qs else 0.5) * scale
        if q == "scalar"
        else [v * scale for v in qs]
        if q == "list"
        else np.asarray(qs, np.float64) * scale
    )
    kwargs = {
        "axis": data.draw(axes(x.ndim), "axis"),
        "keepdims": data.draw(st.booleans(), "keepdims"),
        "method": data.draw(st.sampled_from(METHODS), "method"),
    }
    with np.errstate(all="ignore"):
        wrap = data.draw(producers(x, sequences=True), "producer")
        _check(name, x, kwargs, None, (qv,), rtol=_rtol(x.dtype), wrap=wrap)
