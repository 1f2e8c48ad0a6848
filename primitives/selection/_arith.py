"""NumPy's quantile arithmetic, written once over the array module (NumPy or CuPy) so that it
runs on the device for device rows: the virtual indexes of its thirteen methods, their gammas,
the ranks a quantile needs (the neighbours of its virtual index) and its interpolation; and the
NaNs of the results as the host makes them (:func:`nan_as`, :func:`settle_nans`): a device's
arithmetic returns its own canonical NaN where the host keeps an operand's bits, so a result's
NaN is selected, never computed."""

from __future__ import annotations

import functools

import numpy as np


def _floor(xp, a):
    return xp.floor(a)


def _mask(xp, default, conditioned, where):
    """NumPy's _get_gamma_mask: ``default`` (an array or a float), ``conditioned`` where."""
    shape = where.shape
    out = xp.full(shape, default) if np.ndim(default) == 0 else xp.array(default, copy=True)
    out = xp.broadcast_to(out, shape).copy()
    out[where] = conditioned if np.ndim(conditioned) == 0 else conditioned[where]
    return out


def _to_boundaries(xp, index, cond):
    previous = xp.floor(index)
    nxt = previous + 1
    gamma = index - previous
    res = _mask(xp, nxt, previous, cond(gamma, index)).astype(np.intp)
    res[res < 0] = 0
    return res


def _virtual(xp, n, q, alpha, beta):
    return n * q + (alpha + q * (1 - alpha - beta)) - 1


def virtual_index(xp, n, q, method):
    """NumPy's virtual index of each quantile ``q`` in ``n`` values (``n``: a Python int, or an
    array broadcasting against ``q`` in q's dtype)."""
    if method == "inverted_cdf":
        return _to_boundaries(xp, n * q - 1, lambda g, _: g == 0)
    if method == "closest_observation":
        return _to_boundaries(xp, n * q - 1 - 0.5, lambda g, i: (g == 0) & (xp.floor(i) % 2 == 1))
    if method == "averaged_inverted_cdf":
        return n * q - 1
    if method == "linear":
        return (n - 1) * q
    if method == "lower":
        return xp.floor((n - 1) * q).astype(np.intp)
    if method == "higher":
        return xp.ceil((n - 1) * q).astype(np.intp)
    if method == "midpoint":
        return 0.5 * (xp.floor((n - 1) * q) + xp.ceil((n - 1) * q))
    if method == "nearest":
        return xp.around((n - 1) * q).astype(np.intp)
    alpha = {
        "interpolated_inverted_cdf": (0, 1),
        "hazen": (0.5, 0.5),
        "weibull": (0, 0),
        "median_unbiased": (1 / 3.0, 1 / 3.0),
        "normal_unbiased": (3 / 8.0, 3 / 8.0),
    }[method]
    return _virtual(xp, n, q, *alpha)


def _fix_gamma(xp, method, gamma, index):
    if method == "averaged_inverted_cdf":
        return _mask(xp, 1.0, 0.5, gamma == 0)
    if method == "midpoint":
        return _mask(xp, 0.5, 0.0, index % 1 == 0)
    return gamma


def interpolates(method, vi):
    """Whether NumPy interpolates (else it takes the values at the indexes ``vi``)."""
    return method not in ("inverted_cdf", "closest_observation", "lower", "higher", "nearest") and (
        method != "linear" or vi.dtype.kind not in "iu"
    )


def quantile_ranks(xp, n, q, method, inexact):
    """(previous, next, gamma, vi) of NumPy's _quantile for ``n`` values (a Python int, or an
    array (R, 1)) and quantiles ``q`` (1-D): previous/next indexes (-1: the last value), gamma
    (None where NumPy takes values), ``vi`` the virtual indexes."""
    vi = xp.asarray(virtual_index(xp, n, q, method))
    if not interpolates(method, vi):
        return vi, vi, None, vi
    previous = xp.floor(vi)
    nxt = previous + 1
    above = vi >= n - 1
    previous, nxt = xp.where(above, -1, previous), xp.where(above, -1, nxt)
    below = vi < 0
    previous, nxt = xp.where(below, 0, previous), xp.where(below, 0, nxt)
    if inexact:
        isnan = xp.isnan(vi)
        previous, nxt = xp.where(isnan, -1, previous), xp.where(isnan, -1, nxt)
    previous, nxt = previous.astype(np.intp), nxt.astype(np.intp)
    gamma = xp.asarray(vi - previous)
    gamma = xp.asarray(_fix_gamma(xp, method, gamma, vi), dtype=vi.dtype)
    return previous, nxt, gamma, vi


def lerp(xp, a, b, t, weak=False):
    """NumPy's _lerp of ``a`` and ``b`` by ``t``. ``weak``: the quantile was a Python number,
    whose gamma NumPy passes as a Python float: it takes the dtype of float values (their
    arithmetic), its complement computed first in float64."""
    diff = b - a
    u, upper = 1 - t, t >= 0.5
    if weak and a.dtype.kind == "f":
        t, u = t.astype(a.dtype), u.astype(a.dtype)
    res = xp.asarray(a + diff * t)
    alt = xp.asarray(b - diff * u).astype(res.dtype)
    return xp.where(upper, alt, res).astype(res.dtype, copy=False)


def nan_as(xp, v, dt):
    """``v`` (floats) cast to the float dtype ``dt`` (as wide or wider), its NaNs by their bits
    as the host's casts make them (the sign and the payload kept, the payload moved up, the quiet
    bit set), selected: a device's conversion may give its canonical NaN instead. Any other
    ``dt`` (objects): a plain cast."""
    dt = np.dtype(dt)
    if v.dtype == dt or dt.kind != "f" or v.dtype.kind != "f":
        return v.astype(dt, copy=False)
    ws, wd = 8 * v.dtype.itemsize, 8 * dt.itemsize
    ms, md = np.finfo(v.dtype).nmant, np.finfo(dt).nmant
    ut = np.dtype(f"u{dt.itemsize}").type
    u = v.view(f"u{v.dtype.itemsize}").astype(ut)
    sign = (u >> ut(ws - 1)) << ut(wd - 1)
    payload = (u & ut((1 << ms) - 1)) << ut(md - ms)
    exp_quiet = ut(((1 << (wd - md)) - 1) << (md - 1))  # all-ones exponent and the quiet bit
    bits = sign | exp_quiet | payload
    return xp.where(xp.isnan(v), bits.view(dt), v.astype(dt))


@functools.cache
def made_nan(dt):
    """The NaN the host's arithmetic makes of numbers (``inf - inf``) in the float dtype ``dt``:
    NumPy's bits for it (x86's default NaN is negative), where a device gives its own."""
    inf = np.array(np.inf, dt)
    with np.errstate(invalid="ignore"):
        return np.subtract(inf, inf)


def settle_nans(xp, res):
    """``res``, the arithmetic's results from values without NaN (float or complex), with each
    NaN made there (``inf - inf``, ``inf * 0``) set to the host's (:func:`made_nan`), by
    selection: a device's arithmetic gives its canonical NaN, the host its default one."""
    if res.dtype.kind == "c":
        parts = res.view(f"f{res.dtype.itemsize // 2}")
        return settle_nans(xp, parts).view(res.dtype)
    if res.dtype.kind != "f":
        return res
    return xp.where(xp.isnan(res), xp.asarray(made_nan(res.dtype)), res)
