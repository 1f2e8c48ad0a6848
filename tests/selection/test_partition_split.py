"""partition and argpartition by one kth through the split (SplitPlan: the rows split digit by
digit, kernels/selection/quantile.cu's split kernels) against NumPy: the kth holds what a sort
puts there, nothing larger before it, nothing smaller after, every element once (bit for bit:
NaN payloads, -0.0); the split taking the rows it should (the kth's first-digit bin within the
buffer) and leaving the others to the partition by the selected value, in one call; the same
result on a second call (an order fixed by the input)."""

import numpy as np
import pytest

import primitives as prim
from primitives.selection import _partition
from primitives.testing import harness as H

from tests.conftest import race_sample


def _taken(monkeypatch):
    """The S_TAKE flags of each split run (rows), recorded."""
    seen = []
    take = _partition.SplitPlan.take

    def spy(self, *args):
        take(self, *args)
        seen.append(H.to_host(self.state).reshape(self.rows, _partition.SPLIT_FIELDS)[:, 0])

    monkeypatch.setattr(_partition.SplitPlan, "take", spy)
    return seen


def _check(x, kth, idx, part):
    """The partition properties of ``idx`` and ``part`` (the values of ``idx``, bit for bit)."""
    vals = np.take_along_axis(x, idx, -1)
    u = f"u{x.dtype.itemsize}"
    assert part.dtype == x.dtype and np.array_equal(part.view(u), vals.view(u))
    assert np.array_equal(np.sort(idx, -1), np.broadcast_to(np.arange(x.shape[-1]), x.shape))
    want = np.sort(x, axis=-1)
    k = kth % x.shape[-1]
    got = vals[..., k]
    assert np.array_equal(got, want[..., k], equal_nan=True), (got, want[..., k])
    kv = vals[..., k : k + 1]
    below, above = vals[..., :k], vals[..., k + 1 :]
    assert np.all((below <= kv) | np.isnan(kv)), "a larger key before the kth"
    assert np.all((above >= kv) | np.isnan(above)), "a smaller key after the kth"


def _floats(rng, shape, dt):
    """Floats over many binades (the first digit spreads them), both signs, a few zeros of
    either sign, NaNs of several payloads and signs, infinities."""
    sigma = 8.0 if np.dtype(dt).itemsize >= 4 else 2.0  # float16 within its range
    x = (np.exp(rng.normal(0.0, sigma, shape)) * rng.choice([-1.0, 1.0], shape)).astype(dt)
    flat = x.reshape(-1)
    n = flat.size
    u = f"u{np.dtype(dt).itemsize}"
    top = np.array(1, u) << np.array(8 * np.dtype(dt).itemsize - 1, u)
    qnan = np.array(np.nan, dt).view(u)
    for i, payload in enumerate([0, 1, 5, 77]):
        at = rng.choice(n, max(1, n // 200), replace=False)
        bits = (qnan | np.array(payload, u)) ^ (top if i % 2 else np.array(0, u))
        flat.view(u)[at] = bits
    flat[rng.choice(n, 5, replace=False)] = 0.0
    flat[rng.choice(n, 5, replace=False)] = -0.0
    flat[rng.choice(n, 3, replace=False)] = np.inf
    flat[rng.choice(n, 3, replace=False)] = -np.inf
    return x


def _keys(rng, shape, dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return _floats(rng, shape, dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)


SMALL = dict(min_len=1, block=64, items=4)  # many tiles and blocks at small sizes
DEFAULT = dict(min_len=1)

#: dtype x tile policy x (shape, kth): misaligned rows (odd lengths), the first and last kth,
#: 8-bit keys (one digit: the first level is the last), 64-bit keys (seven levels)
GRID = race_sample(
    [np.float32, np.float64, np.int64, np.uint32, np.int8, np.float16],
    [SMALL, DEFAULT],
    [((3, 20001), 10000), ((1, 40003), 0), ((2, 9999), -1), ((5000,), 2500)],
)


def _run(x, kth, pol):
    with (
        prim.tuning.override("selection", selector="quantile", **pol),
        prim.tuning.override("selection", selector="partition", sort_max_len=1),
    ):
        return H.to_host(prim.argpartition(x, kth)), H.to_host(prim.partition(x, kth))


@pytest.mark.parametrize("dt,pol,case", GRID)
def test_split(rng, monkeypatch, dt, pol, case):
    """Every row taken (keys over the whole range, NaNs of several payloads among floats): the
    partition properties, bit for bit, and the same result twice."""
    shape, kth = case
    seen = _taken(monkeypatch)
    x = _keys(rng, shape, dt)
    idx, part = _run(x, kth, pol)
    _check(x, kth, idx, part)
    assert len(seen) == 2 and all(np.all(s == 1) for s in seen), seen
    idx2, part2 = _run(x, kth, pol)
    assert np.array_equal(idx, idx2) and np.array_equal(part.view(np.uint8), part2.view(np.uint8))


def test_split_race(race, rng, monkeypatch):
    """The split's barriers and warp votes in race-exposing mode (tiles of several warps, the
    warps' counts double-buffered across tiles)."""
    seen = _taken(monkeypatch)
    for dt, shape, kth in ((np.float32, (2, 5003), 2000), (np.int64, (3001,), 17)):
        x = _keys(rng, shape, dt)
        idx, part = _run(x, kth, SMALL)
        _check(x, kth, idx, part)
    assert all(np.all(s == 1) for s in seen)


def test_split_kth_nan(rng, monkeypatch):
    """A kth among the NaNs (which sort last): the kth's bins are the NaNs' (one image), every
    NaN kept with its own bits."""
    seen = _taken(monkeypatch)
    x = _floats(rng, (2, 12001), np.float32)
    nans = int(np.isnan(x).sum(axis=1).min())
    kth = x.shape[1] - nans // 2
    idx, part = _run(x, kth, SMALL)
    _check(x, kth, idx, part)
    assert all(np.all(s == 1) for s in seen)


def test_split_mixed_rows(rng, monkeypatch):
    """Rows the split takes beside rows it leaves to the partition by the selected value (a row
    whose first digit is one bin: a constant row, a few integers of one binade) in one call; the rows left
    keep each part in index order."""
    seen = _taken(monkeypatch)
    x = _floats(rng, (4, 6001), np.float32)
    x[1] = 3.0
    x[3] = (1000 + rng.integers(0, 8, 6001)).astype(np.float32)
    idx, part = _run(x, 2999, SMALL)
    _check(x, 2999, idx, part)
    assert [s.tolist() for s in seen] == [[1, 0, 1, 0]] * 2
    assert np.array_equal(idx[1], np.arange(6001))  # equal keys: the whole row, in order
    for r in (3,):
        kv = np.sort(x[r])[2999]
        for part_of in (x[r][idx[r]] < kv, x[r][idx[r]] == kv, x[r][idx[r]] > kv):
            assert np.all(np.diff(idx[r][part_of]) > 0)


@pytest.mark.parametrize("bound", [1, 4])
@pytest.mark.parametrize("dt", [np.float32, np.int64])
def test_split_row_min_blocks(rng, monkeypatch, dt, bound):
    """The first level's scatter with or without a bound on its resident blocks (its own
    instantiation; the later levels' unchanged): the same partition either way."""
    seen = _taken(monkeypatch)
    named = []
    scatter_name = _partition.scatter_name

    def spy(*args):
        named.append(scatter_name(*args))
        return named[-1]

    monkeypatch.setattr(_partition, "scatter_name", spy)
    x = _keys(rng, (2, 20001), dt)
    with prim.tuning.override("selection", selector="partition", split_row_min_blocks=bound):
        idx, part = _run(x, 7000, DEFAULT)
    _check(x, 7000, idx, part)
    assert len(seen) == 2 and all(np.all(s == 1) for s in seen), seen
    assert any(n.endswith(f", true, false, {bound}>") for n in named), named  # the rows' scatter
    assert any(n.endswith(", false, false, 1>") for n in named), named  # the buffers'
