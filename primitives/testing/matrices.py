"""The SpMV matrix suite: well-known sparsity structures, generated as canonical CSR arrays.

Each generator runs on NumPy or CuPy (``xp``) with vectorized array operations, so the same code
builds the small matrices of the tests on the host and the full-size ones of the benchmarks on
the device. Rows are sorted, columns sorted within each row and unique. Values are random, never
zero: magnitudes in [0.5, 1.5) with random signs.

=============  ================================================================================
poisson2d      2-D Poisson, 5-point stencil on a k x k grid (k^2 rows, <= 5 per row)
stencil27      3-D 27-point stencil on a k x k x k grid (k^3 rows, <= 27 per row)
banded         band of half-width h around the diagonal (2h+1 per row)
uniform        the same number of entries in every row, at uniformly random columns
powerlaw       R-MAT graph (Chakrabarti et al. 2004; a, b, c = 0.57, 0.19, 0.19, as Graph500):
               power-law row lengths, a few rows thousands of times longer than the mean
dense_rows     a few completely dense rows over a sparse uniform background
empty_rows     most rows empty (7 in 8, chosen at random), the others long
=============  ================================================================================

The widened suite (:data:`WIDE`, :func:`generate_wide`), where SpMV's ``auto`` rule is fitted
(``python -m tools.tune.spmv_auto``): log-normal row lengths (spread 0.5, 1, 2), power-law row
lengths (exponent 2.5, 3), row lengths uniform over ranges whose longest row is 1.3, 1.7 and 1.9
times the mean, dense 4/8/16 blocks on the diagonal, a band of half-width 64, rows of 1 and 2
entries, a few very long rows, long rows over 2^15 rows, and wide and tall rectangles.

``generate(name, scale)``: ``scale="test"`` gives a few thousand rows (the emulator's sizes);
``"full"`` gives at least 2^22 rows and, where the structure allows, at least 5e7 nonzeros; an
integer gives about that many rows.
"""

from __future__ import annotations

import numpy as np

SUITE = ("poisson2d", "stencil27", "banded", "uniform", "powerlaw", "dense_rows", "empty_rows")

# per structure: parameters at test scale and at full scale
_PARAMS = {
    "poisson2d": {"test": {"k": 37}, "full": {"k": 3200}},  # 10.2M rows, 51M nnz
    "stencil27": {"test": {"k": 11}, "full": {"k": 162}},  # 4.25M rows, 113M nnz
    "banded": {"test": {"m": 1500, "h": 6}, "full": {"m": 1 << 22, "h": 6}},  # 54.5M nnz
    "uniform": {"test": {"m": 1200, "per_row": 12}, "full": {"m": 1 << 22, "per_row": 12}},
    "powerlaw": {"test": {"scale": 11, "edge_factor": 8}, "full": {"scale": 22, "edge_factor": 16}},
    "dense_rows": {
        "test": {"m": 1500, "per_row": 4, "dense": 3},
        "full": {"m": 1 << 22, "per_row": 4, "dense": 8},
    },
    "empty_rows": {"test": {"m": 2500, "per_row": 40}, "full": {"m": 1 << 22, "per_row": 96}},
}


def _rng(xp, seed):
    return xp.random.RandomState(seed)


def _from_rows_cols(xp, rows2d_valid, cols2d, m):
    """CSR arrays from a (m, w) table of candidate columns (sorted along each row) and a mask."""
    counts = rows2d_valid.sum(axis=1)
    indptr = xp.zeros(m + 1, dtype=np.int64)
    xp.cumsum(counts, out=indptr[1:])
    indices = cols2d[rows2d_valid].astype(np.int64)  # row-major order: rows, then columns
    return indptr, indices


def _from_keys(xp, keys, m, n):
    """CSR arrays from unsorted row*n + col keys (duplicates dropped)."""
    keys = xp.unique(keys)
    rows = keys // n
    indices = keys - rows * n
    indptr = xp.zeros(m + 1, dtype=np.int64)
    xp.cumsum(xp.bincount(rows, minlength=m), out=indptr[1:])
    return indptr, indices


def poisson2d(xp, k, seed=0):
    m = k * k
    r = xp.arange(m, dtype=np.int64)
    i, j = r // k, r % k
    offs = [(-k, i > 0), (-1, j > 0), (0, None), (1, j < k - 1), (k, i < k - 1)]
    cols = xp.stack([r + o for o, _ in offs], axis=1)
    valid = xp.stack([xp.ones(m, dtype=bool) if v is None else v for _, v in offs], axis=1)
    return (*_from_rows_cols(xp, valid, cols, m), (m, m))


def stencil27(xp, k, seed=0):
    m = k**3
    r = xp.arange(m, dtype=np.int64)
    z, y, x = r // (k * k), (r // k) % k, r % k
    cols, valid = [], []
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                cols.append(r + dz * k * k + dy * k + dx)
                valid.append(
                    (z + dz >= 0)
                    & (z + dz < k)
                    & (y + dy >= 0)
                    & (y + dy < k)
                    & (x + dx >= 0)
                    & (x + dx < k)
                )
    return (*_from_rows_cols(xp, xp.stack(valid, axis=1), xp.stack(cols, axis=1), m), (m, m))


def banded(xp, m, h, seed=0):
    r = xp.arange(m, dtype=np.int64)
    cols = xp.stack([r + o for o in range(-h, h + 1)], axis=1)
    valid = (cols >= 0) & (cols < m)
    return (*_from_rows_cols(xp, valid, cols, m), (m, m))


def _stratified(xp, rs, rows, per_row, n):
    """``per_row`` columns per listed row: one uniformly random column in each of ``per_row``
    equal slices of [0, n), so the columns come out sorted and distinct."""
    width = n // per_row
    base = xp.arange(per_row, dtype=np.int64) * width
    jitter = rs.randint(0, width, size=(rows, per_row)).astype(np.int64)
    return base[None, :] + jitter


def uniform(xp, m, per_row, seed=0):
    rs = _rng(xp, seed)
    cols = _stratified(xp, rs, m, per_row, m)
    return (*_from_rows_cols(xp, xp.ones(cols.shape, dtype=bool), cols, m), (m, m))


def powerlaw(xp, scale, edge_factor, seed=0):
    a, b, c = 0.57, 0.19, 0.19
    n = 1 << scale
    edges = edge_factor * n
    rs = _rng(xp, seed)
    rows = xp.zeros(edges, dtype=np.int64)
    cols = xp.zeros(edges, dtype=np.int64)
    for _ in range(scale):
        u = rs.random_sample(edges)
        down = u >= a + b  # quadrants c, d: lower half
        right = ((u >= a) & (u < a + b)) | (u >= a + b + c)  # quadrants b, d: right half
        rows = 2 * rows + down
        cols = 2 * cols + right
        del u, down, right
    return (*_from_keys(xp, rows * n + cols, n, n), (n, n))


def dense_rows(xp, m, per_row, dense, seed=0):
    rs = _rng(xp, seed)
    n = m
    dense_at = (2 * np.arange(dense, dtype=np.int64) + 1) * m // (2 * dense)
    is_dense = xp.zeros(m, dtype=bool)
    is_dense[xp.asarray(dense_at)] = True
    cols = _stratified(xp, rs, m, per_row, n)
    valid = xp.ascontiguousarray(xp.broadcast_to(~is_dense[:, None], cols.shape))
    base_indptr, base_idx = _from_rows_cols(xp, valid, cols, m)
    base_rows = (
        xp.searchsorted(base_indptr, xp.arange(base_idx.size, dtype=np.int64), side="right") - 1
    )
    d_rows = xp.repeat(xp.asarray(dense_at), n)
    d_cols = xp.tile(xp.arange(n, dtype=np.int64), dense)
    keys = xp.concatenate([base_rows * n + base_idx, d_rows * n + d_cols])
    return (*_from_keys(xp, keys, m, n), (m, n))


def empty_rows(xp, m, per_row, seed=0):
    rs = _rng(xp, seed)
    keep = rs.random_sample(m) < 0.125
    cols = _stratified(xp, rs, m, per_row, m)
    valid = xp.ascontiguousarray(xp.broadcast_to(keep[:, None], cols.shape))
    return (*_from_rows_cols(xp, valid, cols, m), (m, m))


def _params_for_rows(name, rows):
    rows = max(int(rows), 16)
    if name == "poisson2d":
        return {"k": max(2, int(round(rows**0.5)))}
    if name == "stencil27":
        return {"k": max(2, int(round(rows ** (1 / 3))))}
    if name == "banded":
        return {"m": rows, "h": 6}
    if name == "uniform":
        return {"m": rows, "per_row": 12}
    if name == "powerlaw":
        return {"scale": max(4, rows.bit_length() - 1), "edge_factor": 16}
    if name == "dense_rows":
        return {"m": rows, "per_row": 4, "dense": 3 if rows < 1 << 16 else 8}
    return {"m": rows, "per_row": min(96, rows // 16)}


_GENERATORS = {
    "poisson2d": poisson2d,
    "stencil27": stencil27,
    "banded": banded,
    "uniform": uniform,
    "powerlaw": powerlaw,
    "dense_rows": dense_rows,
    "empty_rows": empty_rows,
}


def generate(name, scale="test", *, xp=np, seed=0):
    """``(indptr, indices, shape)`` of suite matrix ``name`` (int64 arrays of ``xp``)."""
    if name not in _GENERATORS:
        raise ValueError(f"unknown suite matrix {name!r}; choose from {SUITE}")
    params = _PARAMS[name][scale] if isinstance(scale, str) else _params_for_rows(name, scale)
    return _GENERATORS[name](xp, seed=seed, **params)


def values(nnz, dtype, *, xp=np, seed=1):
    """Random values, never zero: magnitudes in [0.5, 1.5), random signs."""
    rs = _rng(xp, seed)
    v = rs.random_sample(nnz) + 0.5
    v *= xp.where(rs.random_sample(nnz) < 0.5, -1.0, 1.0)
    return v.astype(dtype)


def csr_arrays(name, dtype, scale="test", *, xp=np, seed=0):
    """``(data, indices, indptr, shape)`` with random values of ``dtype``."""
    indptr, indices, shape = generate(name, scale, xp=xp, seed=seed)
    return values(indices.size, dtype, xp=xp, seed=seed + 1), indices, indptr, shape


# ---- the widened suite: where SpMV's ``auto`` rule is fitted and checked ---------------------
#
# Structures beyond SUITE, each at several spreads (the Toward-the-bandwidth-limit issue): row
# lengths drawn from log-normal and power-law laws, small dense blocks on the diagonal, a wide
# band, very short and very long rows, and rectangular matrices (wide and tall). They are not in
# SUITE (the tests' parametrizations), only in WIDE: the tuning tool and the figures read them.


def _random_rows(xp, rs, lengths, n):
    """CSR arrays of rows of the given lengths (capped at n) at uniformly random columns
    (duplicates within a row dropped, so a row may come out a little shorter)."""
    m = int(lengths.size)
    lengths = xp.minimum(lengths.astype(np.int64), n)
    rows = xp.repeat(xp.arange(m, dtype=np.int64), lengths)
    cols = rs.randint(0, n, size=int(rows.size)).astype(np.int64)
    return (*_from_keys(xp, rows * n + cols, m, n), (m, n))


def lognormal(xp, m, mean, sigma, n=None, seed=0):
    """Row lengths log-normal: median ``mean * exp(-sigma^2 / 2)``, so the mean is ``mean``;
    ``sigma`` is the spread (0.5: even, 2: a long tail)."""
    rs = _rng(xp, seed)
    n = m if n is None else n
    mu = np.log(mean) - sigma * sigma / 2
    lengths = xp.floor(xp.exp(mu + sigma * rs.standard_normal(m)) + 0.5)
    return _random_rows(xp, rs, xp.maximum(lengths, 1), n)


def zipf_rows(xp, m, mean, alpha, n=None, seed=0):
    """Row lengths from a power law of exponent ``alpha`` (> 2 keeps the mean finite; near 2 a
    few rows hold much of the matrix): ``lmin * u^(-1 / (alpha - 1))``, ``lmin`` set for the
    given mean."""
    rs = _rng(xp, seed)
    n = m if n is None else n
    lmin = mean * (alpha - 2) / (alpha - 1)
    u = 1.0 - rs.random_sample(m)  # in (0, 1]
    lengths = xp.floor(lmin * u ** (-1.0 / (alpha - 1)) + 0.5)
    return _random_rows(xp, rs, xp.maximum(lengths, 1), n)


def spread_rows(xp, m, lo, hi, n=None, seed=0):
    """Row lengths uniform in ``[lo, hi]`` at random columns: rows a little uneven (the longest
    ``2 * hi / (lo + hi)`` times the mean), where ELL's padding starts to cost."""
    rs = _rng(xp, seed)
    n = m if n is None else n
    return _random_rows(xp, rs, rs.randint(lo, hi + 1, size=m), n)


def block_diagonal(xp, m, block, seed=0):
    """Dense ``block`` x ``block`` blocks along the diagonal (m rounded down to whole blocks)."""
    m = max(block, m // block * block)
    r = xp.arange(m, dtype=np.int64)
    cols = (r // block * block)[:, None] + xp.arange(block, dtype=np.int64)[None, :]
    return (*_from_rows_cols(xp, xp.ones(cols.shape, dtype=bool), cols, m), (m, m))


def short_rows(xp, m, per_row, seed=0):
    """Every row ``per_row`` (1 or 2) entries at random columns: SpMV bound by row overhead."""
    rs = _rng(xp, seed)
    cols = _stratified(xp, rs, m, per_row, m)
    return (*_from_rows_cols(xp, xp.ones(cols.shape, dtype=bool), cols, m), (m, m))


def long_rows(xp, m, per_row, n, seed=0):
    """Few rows, each ``per_row`` long over ``n`` columns: the rows themselves must be split."""
    rs = _rng(xp, seed)
    cols = _stratified(xp, rs, m, per_row, n)
    return (*_from_rows_cols(xp, xp.ones(cols.shape, dtype=bool), cols, m), (m, n))


def rectangular(xp, m, n, per_row, seed=0):
    """``m`` x ``n`` (wide: n >> m; tall: m >> n), ``per_row`` entries a row at random
    columns."""
    rs = _rng(xp, seed)
    cols = _stratified(xp, rs, m, per_row, n)
    return (*_from_rows_cols(xp, xp.ones(cols.shape, dtype=bool), cols, m), (m, n))


def banded_wide(xp, m, h, seed=0):
    """A band of half-width ``h`` (2h + 1 per row): :func:`banded` with a wide band."""
    return banded(xp, m, h, seed)


#: name -> (generator, parameters at test scale, parameters at full scale): about 2^22 rows and
#: 5e7 nonzeros at full scale where the structure allows
WIDE_PARAMS = {
    "lognormal_0.5": (
        lognormal,
        {"m": 3000, "mean": 12, "sigma": 0.5},
        {"m": 1 << 22, "mean": 12, "sigma": 0.5},
    ),
    "lognormal_1": (
        lognormal,
        {"m": 3000, "mean": 12, "sigma": 1.0},
        {"m": 1 << 22, "mean": 12, "sigma": 1.0},
    ),
    "lognormal_2": (
        lognormal,
        {"m": 3000, "mean": 12, "sigma": 2.0},
        {"m": 1 << 22, "mean": 12, "sigma": 2.0},
    ),
    "zipf_2.5": (
        zipf_rows,
        {"m": 3000, "mean": 12, "alpha": 2.5},
        {"m": 1 << 22, "mean": 12, "alpha": 2.5},
    ),
    "zipf_3": (
        zipf_rows,
        {"m": 3000, "mean": 12, "alpha": 3.0},
        {"m": 1 << 22, "mean": 12, "alpha": 3.0},
    ),
    "spread_1.3": (spread_rows, {"m": 3000, "lo": 8, "hi": 16}, {"m": 1 << 22, "lo": 8, "hi": 16}),
    "spread_1.7": (spread_rows, {"m": 3000, "lo": 4, "hi": 20}, {"m": 1 << 22, "lo": 4, "hi": 20}),
    "spread_1.9": (spread_rows, {"m": 3000, "lo": 1, "hi": 23}, {"m": 1 << 22, "lo": 1, "hi": 23}),
    "block_4": (block_diagonal, {"m": 3000, "block": 4}, {"m": 1 << 23, "block": 4}),
    "block_8": (block_diagonal, {"m": 3000, "block": 8}, {"m": 1 << 22, "block": 8}),
    "block_16": (block_diagonal, {"m": 3000, "block": 16}, {"m": 1 << 22, "block": 16}),
    "banded_64": (banded_wide, {"m": 3000, "h": 64}, {"m": 1 << 19, "h": 64}),
    "short_1": (short_rows, {"m": 5000, "per_row": 1}, {"m": 1 << 24, "per_row": 1}),
    "short_2": (short_rows, {"m": 5000, "per_row": 2}, {"m": 1 << 24, "per_row": 2}),
    "long_rows": (
        long_rows,
        {"m": 8, "per_row": 2000, "n": 1 << 14},
        {"m": 1 << 10, "per_row": 1 << 16, "n": 1 << 22},
    ),
    "wide": (
        rectangular,
        {"m": 300, "n": 1 << 16, "per_row": 64},
        {"m": 1 << 16, "n": 1 << 24, "per_row": 1024},
    ),
    "rows_32k": (
        rectangular,
        {"m": 200, "n": 1 << 14, "per_row": 64},
        {"m": 1 << 15, "n": 1 << 22, "per_row": 1024},
    ),
    "tall": (
        rectangular,
        {"m": 20000, "n": 64, "per_row": 4},
        {"m": 1 << 24, "n": 1 << 10, "per_row": 4},
    ),
}
WIDE = tuple(WIDE_PARAMS)


def generate_wide(name, scale="test", *, xp=np, seed=0):
    """``(indptr, indices, shape)`` of widened-suite matrix ``name`` at ``"test"`` or ``"full"``
    scale (int64 arrays of ``xp``)."""
    if name not in WIDE_PARAMS:
        raise ValueError(f"unknown widened-suite matrix {name!r}; choose from {WIDE}")
    gen, test, full = WIDE_PARAMS[name]
    return gen(xp, seed=seed, **(test if scale == "test" else full))


def wide_csr_arrays(name, dtype, scale="test", *, xp=np, seed=0):
    """``(data, indices, indptr, shape)`` of widened-suite matrix ``name`` with random values."""
    indptr, indices, shape = generate_wide(name, scale, xp=xp, seed=seed)
    return values(indices.size, dtype, xp=xp, seed=seed + 1), indices, indptr, shape
