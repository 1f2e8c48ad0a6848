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

``generate(name, scale)``: ``scale="test"`` gives a few thousand rows (the emulator's sizes);
``"full"`` gives at least 2^22 rows and, where the structure allows, at least 5e7 nonzeros; an
integer gives about that many rows.
"""

from __future__ import annotations

import numpy as np

SUITE = ("poisson2d", "stencil27", "banded", "uniform", "powerlaw", "dense_rows", "empty_rows")

# per structure: parameters at test scale and at full scale
_PARAMS = {
    "poisson2d": {"test": {"k": 37}, "full": {"k": 3200}},           # 10.2M rows, 51M nnz
    "stencil27": {"test": {"k": 11}, "full": {"k": 162}},            # 4.25M rows, 113M nnz
    "banded": {"test": {"m": 1500, "h": 6}, "full": {"m": 1 << 22, "h": 6}},  # 54.5M nnz
    "uniform": {"test": {"m": 1200, "per_row": 12}, "full": {"m": 1 << 22, "per_row": 12}},
    "powerlaw": {"test": {"scale": 11, "edge_factor": 8}, "full": {"scale": 22, "edge_factor": 16}},
    "dense_rows": {"test": {"m": 1500, "per_row": 4, "dense": 3},
                   "full": {"m": 1 << 22, "per_row": 4, "dense": 8}},
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
    m = k ** 3
    r = xp.arange(m, dtype=np.int64)
    z, y, x = r // (k * k), (r // k) % k, r % k
    cols, valid = [], []
    for dz in (-1, 0, 1):
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                cols.append(r + dz * k * k + dy * k + dx)
                valid.append((z + dz >= 0) & (z + dz < k) & (y + dy >= 0) & (y + dy < k)
                             & (x + dx >= 0) & (x + dx < k))
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
        down = u >= a + b                          # quadrants c, d: lower half
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
    base_rows = xp.searchsorted(base_indptr, xp.arange(base_idx.size, dtype=np.int64),
                                side="right") - 1
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
        return {"k": max(2, int(round(rows ** 0.5)))}
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
    "poisson2d": poisson2d, "stencil27": stencil27, "banded": banded, "uniform": uniform,
    "powerlaw": powerlaw, "dense_rows": dense_rows, "empty_rows": empty_rows,
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
