"""Property tests of every reduction, scan and selection function against NumPy, over the inputs
the per-family tests do not cross one by one: C-, F-ordered, negative-stride, sliced and
transposed views; every axis form (None, an int, a negative int, a tuple in any order, ``()``);
``keepdims``; ``out=`` of any dtype; ``dtype=``; 0-d arrays, empty arrays and axes of length 1;
every dtype each function takes.

Each example draws one input and one call and runs it through the shared harness
(:func:`~primitives.testing.harness.run_twins`): the same values, dtypes and shapes as NumPy, or
the same exception type where NumPy raises. Values are small integers (held exactly by every
dtype, so sums, means and products agree to the bit whatever the order of the additions),
with NaNs in float and complex inputs, so that every comparison is exact. The examples are
sampled (hypothesis), so that the grid of dtype x layout x axis x keepdims x out fits CI's time.
"""

import os
import warnings

import numpy as np
from hypothesis import HealthCheck, assume, given, settings, strategies as st

from primitives.testing import harness as H

REAL = tuple(np.dtype(c) for c in "?bBhHiIqQefd")  # bool, the integers, the floats
COMPLEX = (np.dtype(np.complex64), np.dtype(np.complex128))
ALL = REAL + COMPLEX
#: lengths of an axis: none, one, a few, across a warp and across a block of threads
LENGTHS = (0, 1, 1, 2, 3, 5, 7, 33, 130)
LAYOUTS = ("C", "F", "reversed", "sliced", "transposed")
#: elements of an array at most; PRIM_PROPERTY_MAX_SIZE raises it for a longer run, whose axes
#: then also take lengths across a tile and across several (many blocks, a decoupled
#: look-back over tiles, a radix pass of many tiles)
MAX_SIZE = int(os.environ.get("PRIM_PROPERTY_MAX_SIZE", 4096))
if MAX_SIZE > 4096:
    LENGTHS += (1000, 4099, 70001)
SETTINGS = settings(
    max_examples=int(os.environ.get("PRIM_PROPERTY_EXAMPLES", 60)),
    deadline=None,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)


def _values(rng, shape, dt, small, nan):
    """Elements of ``dt``: small integers (``small``: only -1, 0 and 1, for products), a share of
    them NaN for floats and complex where ``nan``."""
    n = int(np.prod(shape))
    if dt.kind == "b":
        return (rng.random(n) < 0.5).reshape(shape)
    lo, hi = (-1, 2) if small else (-3, 4)
    if dt.kind == "u":
        lo = 0
    x = rng.integers(lo, hi, n).astype(dt)
    if dt.kind == "c":
        x = (x + 1j * rng.integers(lo, hi, n)).astype(dt)
    if dt.kind in "fc" and nan:
        x[rng.random(n) < 0.1] = np.nan
    return x.reshape(shape)


@st.composite
def arrays(draw, dtypes=ALL, small=False, min_ndim=0):
    """A NumPy array of a drawn dtype, shape and layout (the elements a view of a larger or
    reordered base where the layout says so)."""
    dt = draw(st.sampled_from(dtypes))
    ndim = draw(st.integers(min_ndim, 3))
    shape = []
    for _ in range(ndim):
        shape.append(draw(st.sampled_from(LENGTHS)))
        # the extents past an empty axis count too: a sliced view's base has one row then
        while int(np.prod([max(n, 1) for n in shape])) > MAX_SIZE:
            shape[-1] = max(1, shape[-1] // 4)
    shape = tuple(shape)
    layout = draw(st.sampled_from(LAYOUTS)) if ndim else "C"
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    nan = draw(st.booleans())
    if layout == "F":
        return np.asfortranarray(_values(rng, shape, dt, small, nan))
    if layout == "reversed":  # negative strides along every axis
        return _values(rng, shape, dt, small, nan)[(slice(None, None, -1),) * ndim]
    if layout == "sliced":  # every other element along the first axis, from an offset
        base = _values(rng, (2 * shape[0] + 1,) + shape[1:], dt, small, nan)
        return base[1::2]
    if layout == "transposed":  # axes permuted: neither C- nor F-ordered for ndim 3
        perm = draw(st.permutations(range(ndim)))
        inv = np.argsort(perm)
        return _values(rng, tuple(shape[i] for i in inv), dt, small, nan).transpose(perm)
    return _values(rng, shape, dt, small, nan)


@st.composite
def axes(draw, ndim, tuples=True):
    """An ``axis`` argument: None, an int (maybe negative), or a tuple of distinct axes in any
    order (``()`` included); now and then one out of range (NumPy's AxisError)."""
    kind = draw(st.sampled_from(("none", "int", "tuple") if tuples else ("none", "int")))
    if kind == "none":
        return None
    if kind == "int" or ndim == 0:
        if kind == "tuple":
            return draw(st.sampled_from(((), (0,))))
        return draw(st.integers(-ndim - 1, ndim))  # ndim and -ndim - 1: out of range
    picked = draw(st.lists(st.integers(0, ndim - 1), unique=True, max_size=ndim))
    return tuple(a - ndim if draw(st.booleans()) else a for a in picked)


def _exports(x):
    """Whether NumPy exports ``x`` through DLPack (not every layout: no negative strides)."""
    try:
        np.from_dlpack(x)
    except (BufferError, TypeError, ValueError):
        return False
    return True


def as_sequence(a):
    """``a`` as nested Python lists (a Python scalar when 0-d): how a sequence is handed over."""
    return a.tolist()


@st.composite
def producers(draw, x, sequences=False):
    """How the library is handed ``x``: the NumPy array itself, (where NumPy exports it) an
    object that speaks DLPack and nothing else (:class:`~primitives.testing.harness.DLPackOnly`),
    as another library's array is met, or with ``sequences`` nested lists (:func:`as_sequence`:
    the caller then compares with NumPy's reading of the same lists, of NumPy's dtype for them)."""
    choices = (
        [None] + ([H.DLPackOnly] if _exports(x) else []) + ([as_sequence] if sequences else [])
    )
    return draw(st.sampled_from(choices))


def _call(xp, name, x, kwargs, out_dt, args=(), wrap=None):
    """``xp.name(x, *args, **kwargs)``; with ``out_dt`` into a new ``out`` of that dtype and of
    the result's shape (NumPy's), which must be what the call returns. ``wrap``: how the library
    (not NumPy) is handed ``x`` (:func:`producers`)."""
    try:
        shape = np.shape(getattr(np, name)(x, *args, **kwargs))
    except Exception:  # the call's own error, without out  # noqa: BLE001
        out_dt = None
    if wrap is not None and xp is not np:
        x = wrap(x)
    if out_dt is None:
        return getattr(xp, name)(x, *args, **kwargs)
    out = np.full(shape, 7, dtype=out_dt)  # never the answer's zeros: every element written
    got = getattr(xp, name)(x, *args, out=out, **kwargs)
    assert got is out, f"{name} returned {type(got).__name__}, not out"
    return out


def _defined(body):
    """Skip an example whose NumPy result holds a value out of range of its dtype (NumPy's
    "invalid value encountered in cast": a negative or NaN float into an unsigned ``out``, say),
    which C leaves undefined and NumPy's own loops give differently."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            body(np)
        except RuntimeWarning as w:
            assume("encountered in cast" not in str(w))
        except Exception:  # compared by the harness  # noqa: BLE001
            pass


def _undefined_cast(name, x, kwargs, out_dt):
    """Whether floats may be cast into an unsigned ``out`` or ``dtype``: C leaves a negative float
    into an unsigned integer undefined, and NumPy's own loops differ there (its reduction loop
    gives 0 where its ``copyto`` gives 2**64 - 2 for -2.0 into uint64)."""
    dt = kwargs.get("dtype")
    if dt is not None and np.dtype(dt).kind == "u" and x.dtype.kind in "fc":
        return True  # the elements cast first (float16 -1.0 into uint8: 255 on the host, 0 on
        # a GPU, which saturates)
    if out_dt is None or np.dtype(out_dt).kind != "u":
        return False
    kinds = {
        np.result_type(out_dt, x.dtype).kind,
        x.dtype.kind,
        np.dtype(dt).kind if dt is not None else "u",
    }
    return bool(kinds & set("fc")) or name == "mean"


#: elements NumPy's buffered iterator takes at a time (its default buffer size)
NUMPY_BUFFER = 8192


def _buffered_out(name, x, kwargs, out_dt, args=()):
    """Whether NumPy may cast partial results into ``out`` of another dtype than its result's:
    past one buffer of elements its reductions and scans are buffered (an F-ordered input
    reduced along its rows, say) and write each buffer's partial results into ``out``, then
    go on from them, so that ``sum(int8, out=bool)`` is ``bool(bool(a) + b)``, not
    ``bool(a + b)``, for some layouts only. The library casts the finished result once."""
    if out_dt is None or x.size <= NUMPY_BUFFER:
        return False
    res = numpy_quietly(name, x, kwargs, args)
    return res is not None and res.dtype != np.dtype(out_dt)


def numpy_quietly(name, x, kwargs, args=()):
    """NumPy's ``name(x, *args, **kwargs)`` as an array, without its warnings; None where it
    raises (the call's own error, which the harness compares)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(getattr(np, name)(x, *args, **kwargs))
    except Exception:  # noqa: BLE001
        return None


_SCANS = {"cumsum": np.nancumsum, "nancumsum": np.nancumsum}
_SCANS.update(cumprod=np.nancumprod, nancumprod=np.nancumprod)


def _float16_rounding(name, x, kwargs, out_dt):
    """Whether a scan accumulates in float16 past 2048, where float16 stops holding every
    integer: NumPy rounds each partial sum (or product) to float16, the library accumulates in
    float32 and rounds each output once (docs/scan.rst), and the two differ there by design."""
    if name not in _SCANS or x.dtype.kind == "c":
        return False
    # dtype= is the accumulation's dtype; without it, the promotion of the scan's and out's
    acc = np.cumsum(np.zeros(1, x.dtype), dtype=kwargs.get("dtype")).dtype
    if out_dt is not None and kwargs.get("dtype") is None:
        acc = np.result_type(acc, out_dt)
    if acc != np.float16 or x.size == 0:
        return False
    try:
        with np.errstate(all="ignore"):
            run = _SCANS[name](x.astype(np.float64), axis=kwargs.get("axis"))
    except np.exceptions.AxisError:  # the call's own error, compared by the harness
        return False
    return bool(np.nanmax(np.abs(run)) > 2048)


def oracle_input(x, wrap):
    """What NumPy, the oracle, is handed for ``x`` handed over by ``wrap`` (:func:`producers`):
    ``x`` itself, or for lists NumPy's array of them (of NumPy's dtype for them)."""
    return np.asarray(as_sequence(x)) if wrap is as_sequence else x


def _twins(name, x, kwargs, out_dt=None, args=(), wrap=None):
    x = oracle_input(x, wrap)

    def body(xp):
        return _call(xp, name, x, kwargs, out_dt, args, wrap)

    via = {None: "", as_sequence: ", as lists"}.get(wrap, ", via DLPack")
    body.__name__ = f"{name}({x.dtype}{x.shape}, {kwargs}, out={out_dt}{via})"
    assume(not _undefined_cast(name, x, kwargs, out_dt))
    assume(not _float16_rounding(name, x, kwargs, out_dt))
    assume(not _buffered_out(name, x, kwargs, out_dt, args))
    _defined(body)
    before = x.copy()
    H.run_twins(body, name=name)
    H.assert_same(x, before, what=f"{name} left its input unchanged")


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("sum", "prod", "mean")))
def test_sum_prod_mean(data, name):
    x = data.draw(arrays(small=name == "prod"), "x")
    kwargs = {"axis": data.draw(axes(x.ndim), "axis"), "keepdims": data.draw(st.booleans())}
    if data.draw(st.booleans(), "with dtype"):
        kwargs["dtype"] = data.draw(st.sampled_from(ALL), "dtype")
    out_dt = data.draw(st.sampled_from((None,) + ALL), "out dtype")
    _twins(name, x, kwargs, out_dt, wrap=data.draw(producers(x, sequences=True), "producer"))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("min", "max", "any", "all")))
def test_min_max_any_all(data, name):
    x = data.draw(arrays(), "x")  # complex too: NumPy's lexicographic order, NaN first
    kwargs = {"axis": data.draw(axes(x.ndim), "axis"), "keepdims": data.draw(st.booleans())}
    outs = ALL if x.dtype.kind == "c" else REAL
    out_dt = data.draw(st.sampled_from((None,) + outs), "out dtype")
    if name in ("min", "max") and x.dtype.kind != "c" and data.draw(st.booleans(), "initial"):
        # the start of the reduction in place of the first element (into an out of another
        # dtype: each element combined as it is); one out's dtype holds
        kwargs["initial"] = data.draw(st.sampled_from((0, 1, 3)), "initial")
        assume(out_dt is None or out_dt.kind != "b")
    _twins(name, x, kwargs, out_dt, wrap=data.draw(producers(x, sequences=True), "producer"))


@SETTINGS
@given(data=st.data(), op=st.sampled_from(("sum", "prod", "min", "max")))
def test_reduce(data, op):
    """prim.reduce(x, op, ...) against the NumPy reduction of that name."""
    import primitives as prim

    x = data.draw(arrays(dtypes=REAL, small=op == "prod"), "x")
    kwargs = {"axis": data.draw(axes(x.ndim), "axis"), "keepdims": data.draw(st.booleans())}
    out_dt = data.draw(st.sampled_from((None,) + REAL), "out dtype")

    def body(xp):
        if xp is np:
            return _call(np, op, x, kwargs, out_dt)
        try:
            out = np.full(np.shape(getattr(np, op)(x, **kwargs)), 7, dtype=out_dt)
        except Exception:  # reduce's own error, without out  # noqa: BLE001
            out = None
        if out_dt is None or out is None:
            return prim.reduce(x, op, **kwargs)
        got = prim.reduce(x, op, out=out, **kwargs)
        assert got is out, f"reduce returned {type(got).__name__}, not out"
        return out

    body.__name__ = f"reduce({x.dtype}{x.shape}, {op}, {kwargs}, out={out_dt})"
    assume(not _undefined_cast(op, x, kwargs, out_dt))
    _defined(body)
    H.run_twins(body, name="reduce")


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("argmin", "argmax")))
def test_argmin_argmax(data, name):
    x = data.draw(arrays(), "x")
    kwargs = {
        "axis": data.draw(axes(x.ndim, tuples=False), "axis"),
        "keepdims": data.draw(st.booleans()),
    }
    out_dt = data.draw(st.sampled_from((None, np.dtype(np.int64))), "out dtype")
    _twins(name, x, kwargs, out_dt, wrap=data.draw(producers(x, sequences=True), "producer"))


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("cumsum", "cumprod")))
def test_cumsum_cumprod(data, name):
    x = data.draw(arrays(small=name == "cumprod"), "x")
    kwargs = {"axis": data.draw(axes(x.ndim, tuples=False), "axis")}
    if data.draw(st.booleans(), "with dtype"):
        # complex input into a real dtype= is refused by the scans (a TypeError where NumPy
        # keeps the real part): not drawn
        kwargs["dtype"] = data.draw(
            st.sampled_from(COMPLEX if x.dtype.kind == "c" else ALL), "dtype"
        )
    out_dt = data.draw(st.sampled_from((None,) + ALL), "out dtype")
    _twins(name, x, kwargs, out_dt, wrap=data.draw(producers(x, sequences=True), "producer"))


def _sorted_along(a, axis):
    return np.sort(a, axis=axis) if a.ndim else a


@SETTINGS
@given(data=st.data(), name=st.sampled_from(("partition", "argpartition")))
def test_partition(data, name):
    """partition/argpartition: the same exception as NumPy, or a result with NumPy's dtype and
    shape holding the kth element in place, no larger one before it and no smaller after it
    (NumPy leaves the rest in any order), the same multiset of elements on each line."""
    import primitives as prim

    x = data.draw(arrays(dtypes=tuple(d for d in REAL if d.kind != "b")), "x")
    axis = data.draw(st.sampled_from((-1, 0, None) if x.ndim else (-1, None)), "axis")
    length = x.size if axis is None or x.ndim == 0 else x.shape[axis]
    kth = data.draw(st.integers(-length - 1, length), "kth")  # one out of range each way

    def body(xp):
        return getattr(xp, name)(x, kth, axis=axis)

    body.__name__ = f"{name}({x.dtype}{x.shape}, {kth}, axis={axis})"
    try:
        want = body(np)
    except Exception as exc:  # prim raises the same type, naming the function  # noqa: BLE001
        H.raises_like(type(exc), name, body, prim)
        return
    got = H.to_host(body(prim))
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape)
    if length == 0:
        return
    ax = -1 if axis is None else axis
    flat = x.reshape(-1) if axis is None or x.ndim == 0 else x
    vals = np.take_along_axis(flat, got, axis=ax) if name == "argpartition" else got
    wvals = np.take_along_axis(flat, want, axis=ax) if name == "argpartition" else want
    H.assert_same(_sorted_along(vals, ax), _sorted_along(wvals, ax), what="same elements")
    k = kth % length
    kv = np.take(vals, [k], axis=ax)
    H.assert_same(kv, np.take(wvals, [k], axis=ax), what="kth element")
    before, after = np.take(vals, range(k), axis=ax), np.take(vals, range(k + 1, length), axis=ax)
    with np.errstate(invalid="ignore"):
        assert not np.any(before > kv) and not np.any(after < kv), "not partitioned"
