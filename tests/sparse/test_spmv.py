"""SpMV family vs the SciPy oracle: every variant x dtype x suite matrix, awkward shapes, the
formats and their conversions, hypothesis properties, and one test per error branch.

Results are checked elementwise against SciPy's float64 product with the bound of
``primitives.sparse.reference``: row r may be off by gamma(nnz_r + 2) * (|alpha| |A| |x| +
|beta| |y|)_r, gamma(d) = d u / (1 - d u), whatever order the kernel adds in. Exact comparisons
and error branches go through the shared harness (``assert_same``, ``raises_like``); SpMV has no
NumPy twin.
"""

import functools

import numpy as np
import pytest
import scipy.sparse as sps
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import primitives as prim
from primitives import sparse
from primitives._core.plans import PLANS
from primitives.sparse import FORMAT_OF, VARIANTS, choose_variant, matches, reference, vector_lanes
from primitives.testing import harness as H
from primitives.testing import matrices as suite

to_host = H.to_host
DTYPES = [np.float32, np.float64]


def _tile(selector):
    pol = prim.tuning.policy("spmv", selector)
    return pol.block * pol.items


MERGE_TILE = _tile(("merge_path", "float32"))  # the shapes are float32
COO_TILE = _tile("coo")
FIX_TILE = _tile("fixup")


@functools.lru_cache(maxsize=None)
def suite_matrix(name, dtype):
    data, indices, indptr, shape = suite.csr_arrays(name, np.dtype(dtype))
    return sps.csr_matrix((data, indices, indptr), shape=shape)


def vec(rng, n, dtype):
    """Values in [-1, 1) (both parts, for a complex dtype), none 0."""
    if np.dtype(dtype).kind == "c":
        v = (rng.uniform(-1.0, 1.0, n) + 1j * rng.uniform(-1.0, 1.0, n)).astype(dtype)
    else:
        v = rng.uniform(-1.0, 1.0, n).astype(dtype)
    v[v == 0] = np.dtype(dtype).type(0.25)
    return v


def to_format(A, fmt, **kw):
    if fmt == "ell":
        return sparse.ELL(A, max_fill=None, **kw)
    return {"csr": sparse.CSR, "coo": sparse.COO, "hyb": sparse.HYB}[fmt](A, **kw)


def check(got, A, x, dtype, *, y=None, alpha=1.0, beta=0.0, what=""):
    """``got`` has the result dtype and shape and lies within the oracle's bound of SciPy's
    float64 product, row by row."""
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    A64 = A.tocsr().copy().astype(wide)  # a private copy: sum_duplicates sorts in place
    A64.sum_duplicates()
    want, bound = reference(A64, np.asarray(x), y=y, alpha=alpha, beta=beta, dtype=dtype)
    got = to_host(got)
    assert got.dtype == np.dtype(dtype) and got.shape == want.shape, (
        f"{what}: {got.dtype} {got.shape}, want {np.dtype(dtype)} {want.shape}"
    )
    ok, i = matches(got, want, bound)
    assert ok, f"{what}: row {i}: got {got[i]!r}, want {want[i]!r} (bound {bound[i]:.3g})"


# ---- every variant x dtype x suite matrix ----------------------------------------------------


@pytest.mark.parametrize("name", suite.SUITE)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", VARIANTS)
def test_suite(variant, dtype, name, rng, schedule):
    A = suite_matrix(name, dtype)
    M = to_format(A, FORMAT_OF[variant])
    x = vec(rng, A.shape[1], dtype)
    got = prim.spmv(M, x, variant=variant)
    assert isinstance(got, np.ndarray) and got.dtype == dtype and got.shape == (A.shape[0],)
    check(got, A, x, dtype, what=f"{variant} {name}")


@pytest.mark.parametrize("name", ["powerlaw", "dense_rows", "stencil27"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_int64_indices(variant, name, rng):
    A = suite_matrix(name, np.float64)
    M = to_format(A, FORMAT_OF[variant], index_dtype=np.int64)
    assert M.index_dtype == np.int64
    x = vec(rng, A.shape[1], np.float64)
    check(prim.spmv(M, x, variant=variant), A, x, np.float64, what=f"{variant} {name} int64")


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", VARIANTS + ("auto",))
def test_alpha_beta_in_place(variant, dtype, rng):
    A = suite_matrix("powerlaw", dtype)
    x = vec(rng, A.shape[1], dtype)
    y0 = vec(rng, A.shape[0], dtype)
    y = y0.copy()
    M = to_format(A, FORMAT_OF.get(variant, "csr"))
    out = prim.spmv(M, x, y=y, alpha=-1.5, beta=0.75, variant=variant)
    assert out is y
    check(y, A, x, dtype, y=y0, alpha=-1.5, beta=0.75, what=variant)


@pytest.mark.parametrize("variant", VARIANTS)
def test_beta_zero_does_not_read_y(variant, rng):
    A = suite_matrix("empty_rows", np.float32)
    x = vec(rng, A.shape[1], np.float32)
    y = np.full(A.shape[0], np.nan, np.float32)
    prim.spmv(to_format(A, FORMAT_OF[variant]), x, y=y, alpha=2.0, variant=variant)
    check(y, A, x, np.float32, alpha=2.0, what=variant)
    assert not np.isnan(y).any()


@pytest.mark.parametrize("variant", VARIANTS)
def test_alpha_zero_and_beta_one(variant, rng):
    A = suite_matrix("uniform", np.float64)
    x = vec(rng, A.shape[1], np.float64)
    y0 = vec(rng, A.shape[0], np.float64)
    y = y0.copy()
    prim.spmv(to_format(A, FORMAT_OF[variant]), x, y=y, alpha=0.0, beta=1.0, variant=variant)
    H.assert_same(y, y0)


def _split_sums(dtype):
    """Rows whose parts sum to 0 where the whole does not: row 0 and row 6 empty; row 1 is
    [1, -1 | 2] (HYB of width 2 holds 1, -1 in its ELL part, 2 in its COO part); row 2 is a long
    row whose nonzeros in its first two merge-path tiles sum to 0 (the carries) and whose last
    three, in the third tile, are 1; rows 3-5 one 1 each. Values are small integers: every
    variant's sums are exact."""
    T = _tile(("merge_path", np.dtype(dtype).name))
    k = 2 * T - 5  # row 2's nonzeros before the third tile (path items: 2 row ends, 3 of row 1)
    head = np.where(np.arange(k) % 2 == 0, 1.0, -1.0)
    head[-1] = 0.0  # k is odd: a stored zero keeps the carried part's sum at 0
    row2 = np.r_[head, 1.0, 1.0, 1.0]
    rows = np.r_[[1, 1, 1], np.full(row2.size, 2), [3, 4, 5]]
    cols = np.r_[[0, 1, 2], np.arange(row2.size), [0, 1, 2]]
    vals = np.r_[[1.0, -1.0, 2.0], row2, [1.0, 1.0, 1.0]].astype(dtype)
    return sps.csr_matrix((vals, (rows, cols)), shape=(7, row2.size))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", VARIANTS)
def test_non_finite_alpha_beta_follow_scipy(variant, dtype):
    """``alpha * (A @ x) + beta * y`` as SciPy and NumPy compute it, for non-finite alpha or
    beta: inf * 0 is NaN in empty rows and in rows whose parts (HYB's ELL and COO parts, the
    tiles merge_path and COO carry) sum to 0, inf where the whole row's sum is not 0. With
    beta == 0, y is not read. Checked on the first call and on the repeat path."""
    A = _split_sums(dtype)
    fmt = FORMAT_OF[variant]
    M = {
        "csr": sparse.CSR,
        "coo": sparse.COO,
        "ell": lambda a: sparse.ELL(a, max_fill=None),
        "hyb": lambda a: sparse.HYB(a, width=2),
    }[fmt](A)
    x = np.ones(A.shape[1], dtype)
    y0 = np.array([1.0, 0.0, -1.0, 2.0, 0.0, 1.0, np.nan], dtype)
    inf, nan = np.inf, np.nan
    cases = [
        (inf, 0.0),
        (-inf, 0.0),
        (nan, 0.0),
        (inf, 1.5),
        (-inf, -2.0),
        (nan, 1.0),
        (2.0, inf),
        (-1.0, -inf),
        (0.5, nan),
        (inf, inf),
    ]
    with np.errstate(invalid="ignore"):
        for _ in range(2):  # the first call checks and files the plan, the second repeats
            for alpha, beta in cases:
                t = np.dtype(dtype).type
                want = t(alpha) * (A @ x)
                if beta != 0:
                    want = want + t(beta) * y0
                y = y0.copy()
                got = prim.spmv(M, x, y=y, alpha=alpha, beta=beta, variant=variant)
                assert got is y
                H.assert_same(got, want, what=f"{variant} alpha={alpha} beta={beta} with y")
                if beta == 0:
                    H.assert_same(
                        prim.spmv(M, x, alpha=alpha, variant=variant),
                        want,
                        what=f"{variant} alpha={alpha} without y",
                    )


# ---- awkward shapes ----------------------------------------------------------------------------


def _random_csr(rng, m, n, per_row, dtype=np.float32):
    rows = np.repeat(np.arange(m), per_row)
    cols = rng.integers(0, max(n, 1), rows.size) if n else np.zeros(0, int)
    A = sps.coo_matrix((vec(rng, rows.size, dtype), (rows, cols)), shape=(m, n)).tocsr()
    A.sum_duplicates()
    return A


def _long_row(rng, length, m=5, n=None):
    """Row 2 of m holds ``length`` entries (spanning many tiles), the others a few."""
    n = n or length + 7
    dense = sps.csr_matrix(
        (vec(rng, length, np.float32), (np.full(length, 2), np.arange(length))), shape=(m, n)
    )
    return (dense + _random_csr(rng, m, n, 3)).tocsr()


def _path(rng, m, total):
    """m rows and total - m nonzeros: a merge path of exactly ``total`` items."""
    nnz = total - m
    rows = np.sort(rng.integers(0, m, nnz))
    A = sps.csr_matrix((vec(rng, nnz, np.float32), (rows, np.zeros(nnz, int))), shape=(m, 1))
    A = sps.csr_matrix((A.data, rng.integers(0, 3000, A.nnz), A.indptr), shape=(m, 3000))
    A.sum_duplicates()
    if A.nnz != nnz:  # columns collided: spread them out
        A = sps.csr_matrix(
            (
                vec(rng, nnz, np.float32),
                np.arange(nnz) % 3000,
                np.searchsorted(rows, np.arange(m + 1)),
            ),
            shape=(m, 3000),
        )
    return A


SHAPES = {
    "0x0": lambda rng: sps.csr_matrix((0, 0), dtype=np.float32),
    "0x5": lambda rng: sps.csr_matrix((0, 5), dtype=np.float32),
    "5x0": lambda rng: sps.csr_matrix((5, 0), dtype=np.float32),
    "1x1": lambda rng: sps.csr_matrix(np.array([[0.5]], np.float32)),
    "1x1 empty": lambda rng: sps.csr_matrix((1, 1), dtype=np.float32),
    "all empty": lambda rng: sps.csr_matrix((100, 70), dtype=np.float32),
    "single column": lambda rng: _random_csr(rng, 300, 1, 1),
    "single row": lambda rng: _random_csr(rng, 1, 5000, 4000),
    "last row only": lambda rng: sps.csr_matrix(
        (vec(rng, 3, np.float32), ([99, 99, 99], [0, 5, 9])), shape=(100, 10)
    ),
    "31 rows": lambda rng: _random_csr(rng, 31, 40, 3),
    "33 rows": lambda rng: _random_csr(rng, 33, 40, 3),
    "257 rows": lambda rng: _random_csr(rng, 257, 300, 2),
    "long row": lambda rng: _long_row(rng, 3 * COO_TILE + 5),
    "hot row, many tiles": lambda rng: _long_row(rng, 5 * MERGE_TILE, m=3000),
    "path = tile": lambda rng: _path(rng, 300, MERGE_TILE),
    "path = tile + 1": lambda rng: _path(rng, 300, MERGE_TILE + 1),
    "path = 2 tiles - 1": lambda rng: _path(rng, 700, 2 * MERGE_TILE - 1),
    "nnz = COO tile": lambda rng: _random_csr(rng, 1024, 500, 2),
    "nnz = COO tile + 1": lambda rng: _long_row(rng, COO_TILE - 14, m=5, n=COO_TILE),
}


@pytest.mark.parametrize("shape", list(SHAPES))
@pytest.mark.parametrize("variant", VARIANTS)
def test_awkward_shapes(variant, shape, rng):
    A = SHAPES[shape](rng)
    x = vec(rng, A.shape[1], np.float32)
    y0 = vec(rng, A.shape[0], np.float32)
    M = to_format(A, FORMAT_OF[variant])
    got = prim.spmv(M, x, variant=variant)
    assert got.shape == (A.shape[0],) and got.dtype == np.float32
    check(got, A, x, np.float32, what=f"{variant} {shape}")
    y = y0.copy()
    prim.spmv(M, x, y=y, alpha=0.5, beta=-2.0, variant=variant)
    check(y, A, x, np.float32, y=y0, alpha=0.5, beta=-2.0, what=f"{variant} {shape} beta")


def test_awkward_shapes_hit_the_tile_edges():
    rng = np.random.default_rng(0)
    for name, total in (("path = tile", MERGE_TILE), ("path = tile + 1", MERGE_TILE + 1)):
        A = SHAPES[name](rng)
        assert sum(A.shape[0:1]) + A.nnz == total
    assert SHAPES["nnz = COO tile"](rng).nnz <= COO_TILE
    A = SHAPES["hot row, many tiles"](rng)
    assert np.diff(A.indptr).max() > 4 * MERGE_TILE


# ---- the reduction by key and its multi-level carry fix-up ----------------------------------


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("pattern", ["hot key", "mixed", "sentinels"])
def test_carry_fixup_levels(pattern, dtype, rng, schedule, backend):
    """Carries longer than two fix-up tiles take two levels of the fix-up; the sums must match
    numpy.add.at whatever the keys' runs are."""
    n = 2 * FIX_TILE + 777
    m = 50
    if pattern == "hot key":
        keys = np.full(n, 17)
        keys[:100] = 3
        keys[-5:] = 40
    elif pattern == "mixed":
        keys = np.sort(rng.integers(0, m, n))
    else:  # "no row" (-1) items, as carries have them: whole runs, never inside a row's run
        keys = np.sort(rng.integers(0, m, n))
        keys[keys % 3 == 1] = -1
    vals = vec(rng, n, dtype)
    y0 = vec(rng, m, dtype)
    want = y0.astype(np.float64)
    np.add.at(want, keys[keys >= 0], 2.0 * vals[keys >= 0].astype(np.float64))
    from primitives.sparse._plans import FixupChain

    xp = backend.xp
    chain = FixupChain(
        n, np.dtype(dtype), np.dtype(np.int32), xp, prim.tuning.policy("spmv", "fixup")
    )
    assert len(chain.levels) == 2
    y = xp.asarray(y0)
    chain(xp.asarray(keys.astype(np.int32)), xp.asarray(vals), dtype(2.0), y)
    y = to_host(y)
    counts = np.bincount(keys[keys >= 0], minlength=m) + 1
    u = np.finfo(dtype).eps / 2
    bound = (
        counts
        * 2
        * u
        * (
            np.abs(want)
            + 2
            * np.bincount(keys[keys >= 0], np.abs(vals[keys >= 0]).astype(np.float64), minlength=m)
        )
        + 1e-300
    )
    assert np.all(np.abs(y - want) <= bound)


def test_deterministic(rng):
    A = suite_matrix("powerlaw", np.float32)
    x = vec(rng, A.shape[1], np.float32)
    for v in VARIANTS:
        M = to_format(A, FORMAT_OF[v])
        a, b = prim.spmv(M, x, variant=v), prim.spmv(M, x, variant=v)  # checked, then repeat
        assert a.tobytes() == b.tobytes(), v
        assert prim.spmv(to_format(A, FORMAT_OF[v]), x, variant=v).tobytes() == a.tobytes(), v


# ---- hypothesis ------------------------------------------------------------------------------


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    m=st.integers(0, 300),
    n=st.integers(0, 300),
    density=st.floats(0, 0.3),
    dtype=st.sampled_from(DTYPES),
    variant=st.sampled_from(VARIANTS + ("auto",)),
    alpha=st.floats(-4, 4),
    beta=st.sampled_from([0.0, 1.0, -0.5]),
    dup=st.booleans(),
)
def test_property_matches_scipy(data, m, n, density, dtype, variant, alpha, beta, dup):
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    nnz = int(density * m * n)
    rows, cols = rng.integers(0, max(m, 1), nnz), rng.integers(0, max(n, 1), nnz)
    if dup and nnz:  # repeated coordinates: summed on the way in, as SciPy does
        rows, cols = np.r_[rows, rows[: nnz // 2]], np.r_[cols, cols[: nnz // 2]]
    A = sps.coo_matrix((vec(rng, rows.size, dtype), (rows, cols)), shape=(m, n))
    x = vec(rng, n, dtype)
    y0 = vec(rng, m, dtype)
    y = y0.copy() if beta else None
    fmt = FORMAT_OF.get(variant, "csr")
    got = prim.spmv(
        A if fmt == "csr" else to_format(A, fmt), x, y=y, alpha=alpha, beta=beta, variant=variant
    )
    check(got, A.tocsr(), x, dtype, y=y0, alpha=alpha, beta=beta, what=variant)


# ---- the formats -----------------------------------------------------------------------------


def _same(M, A):
    B = M.to_scipy().tocsr()
    C = A.tocsr()
    C.sum_duplicates()
    assert B.shape == C.shape and B.dtype == C.dtype
    assert (B != C).nnz == 0
    H.assert_same(B.indptr, C.indptr, check_dtype=False)
    H.assert_same(B.indices, C.indices, check_dtype=False)


@pytest.mark.parametrize("name", suite.SUITE)
@pytest.mark.parametrize("fmt", sparse.FORMATS)
def test_round_trip(fmt, name):
    A = suite_matrix(name, np.float64)
    M = to_format(A, fmt)
    assert M.format == fmt and M.shape == A.shape and M.nnz == A.nnz
    _same(M, A)
    _same(M.to_csr(), A)


@pytest.mark.parametrize("name", ["powerlaw", "empty_rows", "dense_rows"])
def test_conversion_chain(name):
    A = suite_matrix(name, np.float32)
    M = sparse.CSR(A)
    for step in (
        lambda M: M.to_ell(max_fill=None),
        lambda M: M.to_hyb(),
        lambda M: M.to_coo(),
        lambda M: M.to_hyb(width=1),
        lambda M: M.to_ell(max_fill=None),
        lambda M: M.to_coo(),
        lambda M: M.to_csr(),
    ):
        M = step(M)
        _same(M, A)
    assert isinstance(M, sparse.CSR)


def test_duplicates_summed_and_sorted():
    rows = np.array([2, 0, 2, 1, 2, 0])
    cols = np.array([3, 1, 0, 2, 3, 1])
    A = sps.coo_matrix((np.arange(1, 7, dtype=np.float32), (rows, cols)), shape=(3, 4))
    M = sparse.CSR(A)
    H.assert_same(M.indptr, np.array([0, 1, 2, 4], np.int32))
    H.assert_same(M.indices, np.array([1, 2, 0, 3], np.int32))
    H.assert_same(M.data, np.array([2 + 6, 4, 3, 1 + 5], np.float32))
    assert A.nnz == 6  # the caller's matrix is untouched
    for fmt in sparse.FORMATS:
        _same(to_format(A, fmt), A)


@pytest.mark.parametrize(
    "make",
    [
        sps.csc_matrix,
        sps.lil_matrix,
        sps.dia_matrix,
        sps.bsr_matrix,
        sps.csr_array,
        sps.coo_array,
        sps.dok_matrix,
    ],
)
def test_any_scipy_format(make, rng):
    A = suite_matrix("banded", np.float64)
    B = make(A)
    x = vec(rng, A.shape[1], np.float64)
    check(prim.spmv(B, x), A, x, np.float64, what=make.__name__)


def test_row_stats():
    import dataclasses

    from primitives.sparse._base import stats_of_csr

    for name in suite.SUITE:
        A = suite_matrix(name, np.float32)
        lengths = np.diff(A.indptr)
        for fmt in sparse.FORMATS:
            s = to_format(A, fmt).row_stats()
            assert s.rows == A.shape[0] and s.nnz == A.nnz and s.max == lengths.max()
            assert s.empty == np.count_nonzero(lengths == 0)
            assert s.mean == pytest.approx(lengths.mean())
            assert s.cv == pytest.approx(lengths.std() / lengths.mean())
            full = lengths > 0
            spans = A.indices[A.indptr[1:][full] - 1] - A.indices[A.indptr[:-1][full]] + 1
            assert s.span == pytest.approx(spans.mean() / A.shape[1])
        # a matrix from the host has its stats from the host's arrays: the device's agree
        host, dev = sparse.CSR(A), stats_of_csr(sparse.CSR(A))
        assert dataclasses.astuple(host.row_stats()) == pytest.approx(dataclasses.astuple(dev))
    s = sparse.CSR(sps.csr_matrix((0, 3), dtype=np.float32)).row_stats()
    assert (s.rows, s.nnz, s.mean, s.max, s.cv, s.empty, s.span) == (0, 0, 0.0, 0, 0.0, 0, 0.0)
    s = sparse.CSR(sps.csr_matrix((4, 3), dtype=np.float32)).row_stats()
    assert (s.rows, s.nnz, s.mean, s.max, s.cv, s.empty, s.span) == (4, 0, 0.0, 0, 0.0, 4, 0.0)
    s = sparse.CSR(sps.csr_matrix(np.array([[0, 1, 0, 1], [0, 0, 0, 0]], np.float32))).row_stats()
    assert (s.max, s.empty, s.span) == (2, 1, 0.75)


def test_nbytes():
    A = suite_matrix("powerlaw", np.float64)
    m, nnz = A.shape[0], A.nnz
    assert sparse.CSR(A).nbytes == (m + 1) * 4 + nnz * (4 + 8)
    assert sparse.COO(A).nbytes == nnz * (4 + 4 + 8)
    assert sparse.CSR(A, index_dtype=np.int64).nbytes == (m + 1) * 8 + nnz * (8 + 8)
    E = sparse.ELL(A, max_fill=None, skip_empty=False)
    ld = -(-m // 32) * 32
    assert (E.width, E.ld) == (np.diff(A.indptr).max(), ld)
    assert E.nbytes == E.width * ld * (4 + 8)
    S = sparse.ELL(A, max_fill=None)  # R-MAT's empty rows left out: their row list instead
    stored = np.count_nonzero(np.diff(A.indptr))
    assert S.stored_rows == stored < m and S.ld == -(-stored // 32) * 32
    assert S.nbytes == S.width * S.ld * (4 + 8) + stored * 4
    H = sparse.HYB(A)
    assert H.nbytes == H.width * ld * 12 + H.coo.nnz * 16
    assert H.ell.nnz + H.coo.nnz == nnz


def test_ell_layout():
    A = sps.csr_matrix(np.array([[0, 2, 0, 3], [0, 0, 0, 0], [5, 0, 0, 0]], np.float32))
    E = sparse.ELL(A)
    assert (E.width, E.ld) == (2, 32)
    cols, data = to_host(E.cols), to_host(E.data)
    H.assert_same(cols[:, :3], np.array([[1, -1, 0], [3, -1, -1]], np.int32))
    H.assert_same(data[:, :3], np.array([[2, 0, 5], [3, 0, 0]], np.float32))
    assert (cols[:, 3:] == -1).all() and (data[:, 3:] == 0).all()
    assert sparse.ELL(A, width=5).width == 5


def test_hyb_width_rule():
    lengths = np.array([0, 1, 1, 2, 3, 3, 4, 9, 50])  # 9 rows: at least 3 must fill the ELL part
    assert sparse.hyb_width(lengths) == 4  # rows of 4, 9 and 50 entries
    assert sparse.hyb_width(np.zeros(0, np.int64)) == 0
    assert sparse.hyb_width(np.array([7])) == 7
    A = suite_matrix("powerlaw", np.float32)
    H = sparse.HYB(A)
    lengths = np.diff(A.indptr)
    assert np.count_nonzero(lengths >= H.width) >= A.shape[0] / 3
    assert np.count_nonzero(lengths >= H.width + 1) < A.shape[0] / 3


@pytest.mark.parametrize("width", [0, 1, 5, 400])
def test_hyb_explicit_width(width, rng):
    A = suite_matrix("powerlaw", np.float32)
    H = sparse.HYB(A, width=width)
    assert H.width == width
    _same(H, A)
    x = vec(rng, A.shape[1], np.float32)
    check(prim.spmv(H, x), A, x, np.float32, what=f"hyb width {width}")


def test_index_dtypes():
    A = suite_matrix("banded", np.float32)
    assert sparse.CSR(A).index_dtype == np.int32
    assert sparse.CSR(A, index_dtype=np.int64).indices.dtype == np.int64
    from primitives.sparse._checks import index_dtype_for

    big = 2**31
    assert index_dtype_for(None, 10, 10, big, func="t") == np.int64
    assert index_dtype_for(None, big, 10, 0, func="t") == np.int64
    assert index_dtype_for(None, 10, big, 0, func="t") == np.int64
    assert index_dtype_for(None, 10, 10, big - 1, func="t") == np.int32
    M = sparse.CSR(sparse.CSR(A), index_dtype=np.int64)
    assert M.index_dtype == np.int64 and sparse.COO(M).index_dtype == np.int64


def test_astype(rng):
    A = suite_matrix("powerlaw", np.float32)
    for fmt in sparse.FORMATS:
        M = to_format(A, fmt)
        D = M.astype(np.float64)
        assert D.dtype == np.float64 and M.astype(np.float32) is M
        _same(D, A.astype(np.float64))


def test_mixed_dtypes_follow_scipy(rng):
    A = suite_matrix("banded", np.float32)
    for xdt in (np.float64, np.int32, np.int64, np.float16, np.uint8):
        x = rng.integers(1, 5, A.shape[1]).astype(xdt)
        got = prim.spmv(A, x)
        assert got.dtype == (A @ x).dtype, xdt
        check(got, A, x, got.dtype.type, what=str(xdt))


def test_repr():
    r = repr(sparse.HYB(suite_matrix("banded", np.float32)))
    assert r.startswith("<primitives.sparse.HYB 1500x1500") and "float32" in r


def test_host_x_non_contiguous_and_lists(rng):
    A = suite_matrix("uniform", np.float64)
    base = vec(rng, 2 * A.shape[1], np.float64)
    x = base[::2]
    check(prim.spmv(A, x), A, x, np.float64, what="strided x")
    y0 = vec(rng, 2 * A.shape[0], np.float64)
    y = y0.copy()
    prim.spmv(A, x, y=y[::2], beta=1.0)  # strided y: written back in place
    check(y[::2], A, x, np.float64, y=y0[::2], beta=1.0, what="strided y")
    H.assert_same(y[1::2], y0[1::2])
    small = sps.csr_matrix(np.array([[1.0, 2.0], [0.0, 3.0]]))
    H.assert_same(prim.spmv(small, [1, 1]), np.array([3.0, 3.0]))


@pytest.mark.parametrize(
    "dtype", [np.float32, np.float64, np.complex64], ids=["float32", "float64", "complex64"]
)
def test_ell_every_width(dtype, rng):
    """ELL of every width with a kernel of its own (1..8) and past them (the kernel of any
    width), rows as long as the width and shorter (padding), empty rows, and alpha/beta."""
    n = 40
    for width in range(1, 11):
        m = 70
        lengths = rng.integers(0, width + 1, m)
        lengths[::7] = width
        lengths[3] = 0
        ip = np.concatenate([[0], np.cumsum(lengths)])
        ix = np.concatenate([np.sort(rng.choice(n, k, replace=False)) for k in lengths])
        data = vec(rng, ix.size, dtype)
        A = sps.csr_matrix((data, ix, ip), shape=(m, n))
        E = sparse.ELL(sparse.CSR(A))
        assert E.width == width
        x, y0 = vec(rng, n, dtype), vec(rng, m, dtype)
        check(prim.spmv(E, x, variant="ell"), A, x, dtype, what=f"width {width}")
        y = y0.copy()
        prim.spmv(E, x, y=y, alpha=-1.5, beta=0.75, variant="ell")
        check(y, A, x, dtype, y=y0, alpha=-1.5, beta=0.75, what=f"width {width}, alpha/beta")


def _lengths_csr(rng, lengths, n=60, dtype=np.float32):
    """A CSR matrix of the given row lengths, random sorted columns of n and values."""
    lengths = np.asarray(lengths, np.int64)
    ip = np.concatenate([[0], np.cumsum(lengths)])
    ix = np.concatenate(
        [np.sort(rng.choice(n, k, replace=False)) for k in lengths] + [np.zeros(0, np.int64)]
    ).astype(np.int32)
    return sps.csr_matrix((vec(rng, ix.size, dtype), ix, ip), shape=(lengths.size, n))


@pytest.mark.parametrize(
    "dtype", DTYPES + [np.complex64, np.complex128], ids=lambda d: np.dtype(d).name
)
@pytest.mark.parametrize("skip", [None, True, False])
def test_ell_skip_empty(skip, dtype, rng):
    """ELL of the rows that hold entries (``rows``), or of every row: the same products (new y,
    y with alpha/beta, beta 0 with NaN in y, a non-finite alpha), conversions and statistics."""
    A = (
        csuite_matrix("empty_rows", dtype)
        if np.dtype(dtype).kind == "c"
        else suite_matrix("empty_rows", dtype)
    )
    lengths = np.diff(A.indptr)
    E = sparse.ELL(A, skip_empty=skip, max_fill=None)
    skipped = skip is not False  # None: 2175 empty rows x 40 slots > 2500 rows
    assert (E.rows is not None) == skipped and E.width == lengths.max()
    if skipped:
        H.assert_same(to_host(E.rows), np.flatnonzero(lengths).astype(np.int32))
        assert E.stored_rows == np.count_nonzero(lengths) and E.ld == 352
        assert E.nbytes == E.width * E.ld * (4 + np.dtype(dtype).itemsize) + E.stored_rows * 4
    else:
        assert E.stored_rows == A.shape[0] and E.ld == 2528
    m, n = A.shape
    x, y0 = vec(rng, n, dtype), vec(rng, m, dtype)
    check(prim.spmv(E, x), A, x, dtype, what="new y")
    y = y0.copy()
    assert prim.spmv(E, x, y=y, alpha=-1.5, beta=0.75) is y
    check(y, A, x, dtype, y=y0, alpha=-1.5, beta=0.75, what="alpha/beta")
    y = np.full(m, np.nan, dtype)
    check(prim.spmv(E, x, y=y, beta=0.0), A, x, dtype, what="beta 0")
    wide = np.complex128 if np.dtype(dtype).kind == "c" else np.float64
    with np.errstate(invalid="ignore"):
        want = np.inf * (A.astype(wide) @ x.astype(wide))
    H.assert_same(np.isnan(to_host(prim.spmv(E, x, alpha=np.inf))), np.isnan(want))
    _same(E, A)
    assert E.row_stats() == sparse.CSR(A).row_stats()
    H.assert_same(to_host(E._row_lengths()), lengths.astype(np.int32))
    F = E.astype(np.complex128)
    assert (F.rows is None) == (E.rows is None)
    check(prim.spmv(F, x), A, x, np.complex128, what="astype")
    assert sparse.ELL(E) is not E and (sparse.ELL(E).rows is None) == (E.rows is None)
    assert E.to_ell() is E and E.to_ell(skip_empty=skipped) is E
    assert (E.to_ell(skip_empty=not skipped).rows is None) == skipped


def test_ell_skip_empty_rule(rng):
    """By default ELL leaves out the empty rows when their padding would take more slots than
    the matrix has rows (empty * width > rows)."""
    for empty, width, skips in (
        (10, 5, True),
        (6, 5, False),
        (4, 8, True),
        (1, 30, False),
        (0, 40, False),
    ):
        lengths = np.full(30, width)
        lengths[rng.choice(30, empty, replace=False)] = 0
        E = sparse.ELL(_lengths_csr(rng, lengths))
        assert (E.rows is not None) == skips, (empty, width)
        assert (
            sparse.skips_empty(sparse.CSR(_lengths_csr(rng, lengths)).row_stats(), width) == skips
        )


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_ell_skip_empty_edges(index_dtype, rng):
    """Empty rows first and last, a single stored row, no entry at all, no empty row: the rows
    left out get beta * y, the stored ones their sums; every kernel width (1..8 and past)."""
    cases = {
        "head and tail": [0] * 40 + [3, 1, 3] + [0] * 41,
        "one row": [0] * 50 + [9] + [0] * 13,
        "no entry": [0] * 20,
        "no empty row": [2, 1, 2, 2],
        **{f"width {w}": ([0, w] * 40)[:-1] + [0] * 5 for w in range(1, 11)},
    }
    for what, lengths in cases.items():
        A = _lengths_csr(rng, lengths)
        E = sparse.ELL(sparse.CSR(A, index_dtype=index_dtype), skip_empty=True)
        assert E.index_dtype == index_dtype
        assert (E.rows is None) == (what == "no empty row"), what
        if E.rows is not None:
            assert E.rows.dtype == index_dtype and E.stored_rows == np.count_nonzero(lengths)
        m, n = A.shape
        x, y0 = vec(rng, n, np.float32), vec(rng, m, np.float32)
        check(prim.spmv(E, x), A, x, np.float32, what=what)
        y = y0.copy()
        prim.spmv(E, x, y=y, alpha=2.0, beta=-0.5)
        check(y, A, x, np.float32, y=y0, alpha=2.0, beta=-0.5, what=what)
        _same(E, A)


# ---- auto -------------------------------------------------------------------------------------


F32_VECTOR = ("csr_vector", "float32")  # the policy of float32's csr_vector and its threshold


def rows_of_10_and_25(m=3000):
    """Rows of 10 entries, every 50th of 25: even (cv 0.2), the longest 2.4 times the mean."""
    lengths = np.where(np.arange(m) % 50 == 0, 25, 10)
    ip = np.concatenate([[0], np.cumsum(lengths)])
    ix = np.concatenate([np.arange(k) * 7 % 1000 for k in lengths])
    ix = np.concatenate([np.sort(ix[a:b]) for a, b in zip(ip[:-1], ip[1:])])
    return sps.csr_matrix((np.ones(ix.size, np.float32), ix, ip), shape=(m, 1000))


def test_auto_rule():
    # at test sizes no matrix has the rows that ELL or csr_vector need: merge_path everywhere
    names = ("poisson2d", "banded", "uniform", "stencil27", "powerlaw", "dense_rows", "empty_rows")
    for name in names:
        assert choose_variant(suite_matrix(name, np.float32)) == "merge_path", name
    assert prim.tuning.policy("spmv", ("csr_vector", "float32")).min_threads == 1 << 15
    assert prim.tuning.policy("spmv", ("csr_vector", "float64")).min_threads == 1 << 17
    with prim.tuning.override("spmv", selector=F32_VECTOR, min_threads=1000):
        # even rows: csr_vector; skewed rows, a few long rows or many empty rows: merge_path
        want = dict.fromkeys(names[:4], "csr_vector") | dict.fromkeys(names[4:], "merge_path")
        for name, v in want.items():
            A = suite_matrix(name, np.float32)
            assert choose_variant(A) == v, name
            assert choose_variant(sparse.CSR(A)) == v, name
    # the threads csr_vector would run: rows x lanes (2 lanes for rows of 5 entries)
    A = sparse.CSR(suite_matrix("poisson2d", np.float32))
    s = A.row_stats()
    threads = s.rows * vector_lanes(s.mean, np.float32)
    with prim.tuning.override("spmv", selector=F32_VECTOR, min_threads=threads):
        assert choose_variant(A) == "csr_vector"
    with prim.tuning.override("spmv", selector=F32_VECTOR, min_threads=threads + 1):
        assert choose_variant(A) == "merge_path"
    # even rows that are not nearly even (ELL's fill) but too many for csr_vector's branch:
    # merge_path (spread_1.7 on an H200: csr_vector 1.25x merge_path's time in float64)
    B = rows_of_10_and_25()
    s = sparse.CSR(B).row_stats()
    assert s.cv <= 0.5 and s.rows * s.max > 2.0 * s.nnz  # even, too uneven for ELL
    with prim.tuning.override("spmv", selector=F32_VECTOR, min_threads=1000):
        assert choose_variant(B) == "csr_vector"
    with (
        prim.tuning.override("spmv", selector=F32_VECTOR, min_threads=1000),
        prim.tuning.override("spmv", selector="auto", ell_min_rows=s.rows),
    ):
        assert choose_variant(B) == "merge_path"
    A = suite_matrix("banded", np.float32)
    assert choose_variant(sparse.ELL(A)) == "ell"
    assert choose_variant(sparse.COO(A)) == "coo"
    assert choose_variant(sparse.HYB(A)) == "hyb"
    assert choose_variant(sps.csr_matrix((4, 4), dtype=np.float32)) == "csr_scalar"


def test_auto_rule_ell():
    """Rows many and nearly even (the longest at most ell_max_fill times the mean): ell, on a
    conversion kept on the container; a wider spread, skewed rows or too few rows: not."""
    pol = prim.tuning.policy("spmv", "auto")
    assert pol.ell_max_fill == 2.0 and pol.ell_min_rows == 1 << 16
    ip, ix, shape = suite.generate_wide("short_2")  # 5000 rows of 2: fewer than ell_min_rows
    short = sps.csr_matrix((np.ones(ix.size, np.float32), ix, ip), shape=shape)
    assert choose_variant(short) == "merge_path"
    with prim.tuning.override("spmv", selector="auto", ell_min_rows=1000):
        assert choose_variant(short) == "ell"
        assert choose_variant(suite_matrix("poisson2d", np.float32)) == "ell"
        assert choose_variant(suite_matrix("powerlaw", np.float32)) == "merge_path"
        for name, want in (
            ("spread_1.3", "ell"),
            ("spread_1.9", "ell"),
            ("10 and 25", "merge_path"),
        ):
            if name == "10 and 25":
                A = rows_of_10_and_25()
            else:
                ip, ix, shape = suite.generate_wide(name)
                A = sps.csr_matrix((np.ones(ix.size, np.float32), ix, ip), shape=shape)
            s = sparse.CSR(A).row_stats()
            assert (s.rows * s.max <= 2.0 * s.nnz) == (want == "ell"), name
            assert choose_variant(A) == want, name
    with prim.tuning.override("spmv", selector="auto", ell_min_rows=1000, ell_max_fill=0.0):
        assert choose_variant(short) == "merge_path"  # 0: never ELL


def test_auto_rule_ell_over_the_rows_with_entries(rng):
    """Many empty rows and even others: ell over the others, when they are enough rows and
    their longest at most ell_max_fill times their mean; the conversion kept on the container
    leaves the empty rows out."""
    A = suite_matrix("empty_rows", np.float32)  # 325 rows of 40 and 2175 empty ones
    s = sparse.CSR(A).row_stats()
    assert (s.rows - s.empty, s.max) == (325, 40) and s.rows * s.max > 2.0 * s.nnz
    assert choose_variant(A) == "merge_path"  # fewer than ell_min_rows
    x, y0 = vec(rng, A.shape[1], np.float32), vec(rng, A.shape[0], np.float32)
    for min_rows, want in ((325, "ell"), (326, "merge_path")):
        with prim.tuning.override("spmv", selector="auto", ell_min_rows=min_rows):
            assert choose_variant(A) == want
            M = sparse.CSR(A)
            for _ in range(2):  # the first call files the plan, the second repeats
                y = y0.copy()
                prim.spmv(M, x, y=y, alpha=0.5, beta=2.0)
                check(y, A, x, np.float32, y=y0, alpha=0.5, beta=2.0, what=want)
            kept = [v for k, v in M._cache.items() if k[0] == "format"]
            assert [E.format for E in kept] == (["ell"] if want == "ell" else [])
            if kept:
                assert kept[0].stored_rows == 325
    # the same rows with a few empty ones among them: every row stored, and their ELL fill
    lengths = np.diff(A.indptr)[np.diff(A.indptr) > 0]
    B = _lengths_csr(rng, np.concatenate([lengths, [0] * 8]), n=A.shape[1])
    assert not sparse.skips_empty(sparse.CSR(B).row_stats(), 40)
    with prim.tuning.override("spmv", selector="auto", ell_min_rows=325):
        assert choose_variant(B) == "ell"
    with prim.tuning.override("spmv", selector="auto", ell_min_rows=326):
        assert choose_variant(B) == "ell"  # 333 rows, all stored
    with prim.tuning.override("spmv", selector="auto", ell_min_rows=334):
        assert choose_variant(B) == "merge_path"


def test_conversions_are_kept_on_the_container(rng):
    """A variant of another format (auto's ELL for a CSR container, or one named) runs on a
    conversion made at the first product and kept on the container: later products convert
    nothing, build no plan and take the repeat path; results match the oracle every time."""
    A = suite_matrix("poisson2d", np.float32)
    x1, x2 = vec(rng, A.shape[1], np.float32), vec(rng, A.shape[1], np.float32)
    prim.clear_caches()
    with prim.tuning.override("spmv", selector="auto", ell_min_rows=1000):
        for v in ("auto", "ell", "coo", "hyb"):
            M = sparse.CSR(A)
            check(prim.spmv(M, x1, variant=v), A, x1, np.float32, what=f"{v} first")
            kept = [k for k in M._cache if k[0] == "format"]
            assert len(kept) == 1, v
            E = M._cache[kept[0]]
            assert E.format == ("ell" if v == "auto" else v)
            assert M._as_format(E.format) is E
            builds = prim.cache_info()["builds"]
            check(prim.spmv(M, x2, variant=v), A, x2, np.float32, what=f"{v} repeat")
            y = vec(rng, A.shape[0], np.float32)
            want = 2.0 * (A @ x1.astype(np.float64)) - y
            got = prim.spmv(M, x1, y=y, alpha=2.0, beta=-1.0, variant=v)
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5)
            assert prim.cache_info()["builds"] == builds, v
            assert [k for k in M._cache if k[0] == "format"] == kept and M._cache[kept[0]] is E, v
    assert "ell" in _spmv_plan_kinds()


def _spmv_plan_kinds():
    """The variants of the plans built so far, oldest first (their configuration keys)."""
    return [
        k[0][len("spmv/") :]
        for k in list(PLANS._plans)
        if isinstance(k[0], str) and k[0].startswith("spmv/")
    ]


def test_auto_runs_the_chosen_variant(rng):
    prim.clear_caches()
    with prim.tuning.override("spmv", selector=F32_VECTOR, min_threads=1000):
        for name in ("poisson2d", "powerlaw"):
            A = suite_matrix(name, np.float32)
            prim.spmv(A, vec(rng, A.shape[1], np.float32))
    assert _spmv_plan_kinds() == ["csr_vector", "merge_path"]


def test_vector_lanes():
    f32 = [
        vector_lanes(m, np.float32) for m in (0, 5, 7.9, 8, 15.9, 16, 27, 95, 96, 100, 200, 1000)
    ]
    assert f32 == [2, 2, 2, 4, 4, 8, 8, 8, 8, 16, 32, 32]
    f64 = [vector_lanes(m, np.float64) for m in (0, 4, 5, 13, 27, 64, 1000)]
    assert f64 == [2, 2, 4, 8, 16, 32, 32]


def test_variant_converts_the_format(rng):
    A = suite_matrix("poisson2d", np.float32)
    x = vec(rng, A.shape[1], np.float32)
    for M in (sparse.ELL(A), sparse.COO(A), sparse.HYB(A), sparse.CSR(A)):
        for v in VARIANTS:
            check(prim.spmv(M, x, variant=v), A, x, np.float32, what=f"{M.format} -> {v}")


# ---- plans: the explicit plan API, the repeat-call path, tuning -------------------------------


def test_repeat_calls_take_the_filed_plan(rng):
    """A call on arguments like an earlier call's (the same matrix, like x and y, the same
    options) finds its plan by its arguments: no new plan, the same result bit for bit. Bad
    arguments are still refused, whatever was filed."""
    A = suite_matrix("powerlaw", np.float32)
    prim.clear_caches()
    for v in VARIANTS + ("auto",):
        M = to_format(A, FORMAT_OF.get(v, "csr"))
        x1, x2 = vec(rng, A.shape[1], np.float32), vec(rng, A.shape[1], np.float32)
        first = prim.spmv(M, x1, variant=v)
        builds = prim.cache_info()["builds"]
        again = prim.spmv(M, x2, variant=v)
        assert prim.cache_info()["builds"] == builds, v  # no new plan
        check(again, A, x2, np.float32, what=f"{v} repeat")
        H.assert_same(prim.spmv(M, x1, variant=v), first)
        y0 = vec(rng, A.shape[0], np.float32)
        y = y0.copy()
        prim.spmv(M, x1, y=y, alpha=2.0, beta=-1.0, variant=v)
        builds = prim.cache_info()["builds"]
        y = y0.copy()
        assert prim.spmv(M, x2, y=y, alpha=0.5, beta=3.0, variant=v) is y
        assert prim.cache_info()["builds"] == builds, v
        check(y, A, x2, np.float32, y=y0, alpha=0.5, beta=3.0, what=f"{v} repeat with y")
    M = sparse.CSR(A)
    x = vec(rng, A.shape[1], np.float32)
    prim.spmv(M, x)
    H.raises_like(ValueError, "spmv", prim.spmv, M, x, beta=2.0, match="scales y")
    buf = np.ones(2 * A.shape[1], np.float32)
    prim.spmv(M, buf[: A.shape[0]], y=buf[A.shape[0] :], beta=1.0)
    H.raises_like(
        ValueError,
        "spmv",
        prim.spmv,
        M,
        buf[: A.shape[0]],
        y=buf[A.shape[0] - 1 : -1],
        beta=1.0,
        match="overlaps",
    )
    H.raises_like(ValueError, "spmv", prim.spmv, M, x[:-1], match="x has length")
    H.raises_like(TypeError, "spmv", prim.spmv, M, x, alpha="1", match="real or complex number")
    H.raises_like(TypeError, "spmv", prim.spmv, M, x, alpha=1j, match="alpha=1j is complex")
    H.raises_like(
        ValueError, "spmv", prim.spmv, M, x, variant="csr_adaptive", match="variant must be"
    )


def test_repeat_calls_choose_the_variant_once(rng, monkeypatch):
    """The variant is chosen where a product is prepared (``_choose.choose``): a repeat call on
    like arguments runs the filed plan without choosing again; another matrix chooses its own."""
    from primitives.sparse import _choose

    chosen = []
    choose = _choose.choose
    monkeypatch.setattr(_choose, "choose", lambda M, v: chosen.append(v) or choose(M, v))
    from primitives._core import backend as _backend

    A = suite_matrix("powerlaw", np.float32)
    # an array of the backend's own type (CuPy on the GPU): the one a call key is made of
    xh = vec(rng, A.shape[1], np.float32)
    x = _backend.get_backend().xp.asarray(xh)
    prim.clear_caches()
    M = sparse.CSR(A)
    for _ in range(3):
        check(prim.spmv(M, x), A, xh, np.float32, what="auto")
    assert chosen == ["auto"]
    prim.spmv(sparse.CSR(A), x)
    assert chosen == ["auto", "auto"]


def test_repeat_path_is_per_matrix(rng):
    """Two matrices of one shape and nonzero count (so one merge-path plan serves both), one
    even and one with a hot row: each keeps its own variant under auto and its own merge-path
    partition, whatever the order of the calls."""
    m, n, k = 2000, 8000, 4
    even = sps.csr_matrix(
        (
            vec(rng, m * k, np.float32),
            np.arange(m * k),  # a band: local
            np.arange(0, m * k + 1, k),
        ),
        shape=(m, n),
    )
    lengths = np.ones(m, np.int64)
    lengths[5] = m * k - (m - 1)
    ip = np.concatenate([[0], np.cumsum(lengths)])
    hot_cols = np.concatenate([np.arange(L) for L in lengths])
    hot = sps.csr_matrix((vec(rng, m * k, np.float32), hot_cols, ip), shape=(m, n))
    assert even.nnz == hot.nnz == m * k
    x = vec(rng, n, np.float32)
    pair = [(A, sparse.CSR(A)) for A in (even, hot)]
    with prim.tuning.override("spmv", selector=F32_VECTOR, min_threads=1000):
        assert choose_variant(pair[0][1]) != choose_variant(pair[1][1])
        for _ in range(3):
            for A, M in pair:
                for v in ("auto", "merge_path", "csr_scalar"):
                    check(prim.spmv(M, x, variant=v), A, x, np.float32, what=v)


def test_explicit_plan(rng):
    """``prim.plan(prim.spmv, A, x, ...)`` and ``prim.spmv.plan(...)`` equal the function on
    like arguments and on others."""
    A = suite_matrix("uniform", np.float64)
    M = sparse.CSR(A)
    x = vec(rng, A.shape[1], np.float64)
    p = prim.plan(prim.spmv, M, x)
    q = prim.spmv.plan(M, x, variant="coo", alpha=-2.0)
    C = sparse.COO(M)
    for x2 in (vec(rng, A.shape[1], np.float64), vec(rng, A.shape[1], np.float32)):
        H.assert_same(p(M, x2), prim.spmv(M, x2))
        H.assert_same(q(C, x2), prim.spmv(C, x2, variant="coo", alpha=-2.0))
        check(q(M, x2), A, x2, np.float64, alpha=-2.0, what="plan, other format")
    B = suite_matrix("banded", np.float32)
    xb = vec(rng, B.shape[1], np.float32)
    H.assert_same(p(B, xb), prim.spmv(B, xb))  # another matrix, size and dtype
    y0 = vec(rng, A.shape[0], np.float64)
    y = y0.copy()
    r = prim.plan(prim.spmv, M, x, y=y, beta=0.5, variant="merge_path")
    assert r(M, x) is y
    check(y, A, x, np.float64, y=y0, beta=0.5, what="plan with y")


def test_explicit_plan_refuses_bad_options():
    A, x = _A(), np.ones(1500, np.float32)
    H.raises_like(
        ValueError,
        "spmv",
        prim.plan,
        prim.spmv,
        A,
        x,
        variant="csr_adaptive",
        match="variant must be",
    )
    H.raises_like(ValueError, "spmv", prim.spmv.plan, A, x, beta=2.0, match="scales y")
    H.raises_like(TypeError, "spmv", prim.spmv.plan, A, x, alpha="1", match="complex number")
    H.raises_like(TypeError, "spmv", prim.spmv.plan, A, x, alpha=1j, match="is complex")
    H.raises_like(
        ValueError, "spmv", prim.plan, prim.spmv, A, np.ones(3, np.float32), match="x has length"
    )
    H.raises_like(TypeError, "spmv", prim.plan, prim.spmv, "A", x, match="A must be")


def test_tuning_overrides_make_their_own_plans(rng):
    """The merge-path tile and csr_vector's width come from ``prim.tuning``: an override builds
    plans of its own policy (a tile shape outside the table compiles its own module)."""
    A = suite_matrix("powerlaw", np.float32)
    M = sparse.CSR(A)
    x = vec(rng, A.shape[1], np.float32)
    sel = ("merge_path", "float32")
    with prim.tuning.override("spmv", selector=sel, block=128, items=4) as pol:
        assert (pol.block, pol.items) == (128, 4)
        check(prim.spmv(M, x, variant="merge_path"), A, x, np.float32, what="128x4")
        assert any(k[0] == "spmv/merge_path" and pol in k for k in list(PLANS._plans))
    with prim.tuning.override("spmv", selector=("csr_vector", "float32"), lanes=16):
        assert vector_lanes(3.0, np.float32) == 16
        check(prim.spmv(M, x, variant="csr_vector"), A, x, np.float32, what="16 lanes")
    assert vector_lanes(3.0, np.float32) == 2
    with prim.tuning.override("spmv", selector=F32_VECTOR, min_threads=1000):
        assert choose_variant(suite_matrix("poisson2d", np.float32)) == "csr_vector"
    assert choose_variant(suite_matrix("poisson2d", np.float32)) == "merge_path"


def test_tokens_name_each_container():
    A = suite_matrix("banded", np.float32)
    M = sparse.CSR(A)
    assert (
        len({M._token, sparse.CSR(A)._token, M.astype(np.float64)._token, sparse.HYB(M)._token})
        == 4
    )


# ---- complex values ----------------------------------------------------------------------------

CDTYPES = [np.complex64, np.complex128]
C128_TILE = _tile(("merge_path", "complex128"))


@functools.lru_cache(maxsize=None)
def csuite_matrix(name, dtype):
    """The suite's structure with complex values, both parts nonzero."""
    data, indices, indptr, shape = suite.csr_arrays(name, np.float64)
    imag = suite.values(data.size, np.float64, seed=7)
    return sps.csr_matrix(((data + 1j * imag).astype(dtype), indices, indptr), shape=shape)


def _complexify(A, rng, dtype=np.complex128):
    """``A`` (real, any format) with complex values of its structure."""
    A = A.tocsr()
    A = sps.csr_matrix((A.data.astype(np.float64), A.indices, A.indptr), shape=A.shape)
    A.data = A.data + 1j * vec(rng, A.nnz, np.float64)
    return A.astype(dtype)


@pytest.mark.parametrize("name", suite.SUITE)
@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", VARIANTS)
def test_suite_complex(variant, dtype, name, rng, schedule):
    A = csuite_matrix(name, dtype)
    M = to_format(A, FORMAT_OF[variant])
    assert M.dtype == dtype
    x = vec(rng, A.shape[1], dtype)
    got = prim.spmv(M, x, variant=variant)
    assert isinstance(got, np.ndarray) and got.dtype == dtype and got.shape == (A.shape[0],)
    check(got, A, x, dtype, what=f"{variant} {name}")


@pytest.mark.parametrize("name", ["powerlaw", "dense_rows"])
@pytest.mark.parametrize("variant", VARIANTS)
def test_complex_int64_indices(variant, name, rng):
    A = csuite_matrix(name, np.complex128)
    M = to_format(A, FORMAT_OF[variant], index_dtype=np.int64)
    assert M.index_dtype == np.int64
    x = vec(rng, A.shape[1], np.complex128)
    check(prim.spmv(M, x, variant=variant), A, x, np.complex128, what=f"{variant} {name} int64")


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", VARIANTS + ("auto",))
def test_complex_alpha_beta_in_place(variant, dtype, rng):
    """Complex alpha and beta as Python and NumPy scalars, and real ones, on complex y; the
    repeat path takes each kind of scalar."""
    A = csuite_matrix("powerlaw", dtype)
    M = to_format(A, FORMAT_OF.get(variant, "csr"))
    for alpha, beta in (
        (-1.5 + 0.5j, 0.75 - 2j),
        (np.complex64(2j), np.complex128(-1)),
        (0.5, 1.0),
        (np.float32(2), 1j),
        (1j, 0),
    ):
        for _ in range(2):  # checked, then the repeat path
            x = vec(rng, A.shape[1], dtype)
            y0 = vec(rng, A.shape[0], dtype)
            y = y0.copy()
            out = prim.spmv(M, x, y=y, alpha=alpha, beta=beta, variant=variant)
            assert out is y
            check(
                y,
                A,
                x,
                dtype,
                y=y0,
                alpha=complex(alpha),
                beta=complex(beta),
                what=f"{variant} alpha={alpha!r} beta={beta!r}",
            )


@pytest.mark.parametrize("variant", VARIANTS)
def test_complex_beta_zero_does_not_read_y(variant, rng):
    A = csuite_matrix("empty_rows", np.complex64)
    x = vec(rng, A.shape[1], np.complex64)
    y = np.full(A.shape[0], complex(np.nan, np.nan), np.complex64)
    prim.spmv(to_format(A, FORMAT_OF[variant]), x, y=y, alpha=2 - 1j, variant=variant)
    check(y, A, x, np.complex64, alpha=2 - 1j, what=variant)
    assert not np.isnan(y).any()


def _assert_same_parts(got, want, what):
    """Equal real and imaginary parts, NaN where NaN (a complex NaN compares as one value)."""
    got = to_host(got)
    assert got.dtype == want.dtype, what
    H.assert_same(got.real, want.real, what=f"{what} (real)")
    H.assert_same(got.imag, want.imag, what=f"{what} (imag)")


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", VARIANTS)
def test_complex_non_finite_alpha_beta_follow_scipy(variant, dtype):
    """As test_non_finite_alpha_beta_follow_scipy, for complex products: ``alpha * (A @ x) +
    beta * y`` by NumPy's complex arithmetic (inf * (0 + 0j) is NaN in both parts), part by
    part, in rows that sum to 0 in parts and in the whole."""
    A = _split_sums(np.float64)
    T = _tile(("merge_path", np.dtype(dtype).name))
    if T != _tile(("merge_path", "float64")):  # a tile of its own: rebuild row 2's split
        A = _split_sums_tile(T)
    A = A.astype(dtype) * dtype(1 - 1j)  # every part still sums to 0 where it did
    fmt = FORMAT_OF[variant]
    M = {
        "csr": sparse.CSR,
        "coo": sparse.COO,
        "ell": lambda a: sparse.ELL(a, max_fill=None),
        "hyb": lambda a: sparse.HYB(a, width=2),
    }[fmt](A)
    x = np.full(A.shape[1], 1 + 1j, dtype)
    y0 = np.array([1 + 1j, 0, -1j, 2, 0, 1, complex(np.nan, 0)], dtype)
    inf, nan = np.inf, np.nan
    cases = [
        (inf, 0),
        (complex(inf, 0), 0),
        (complex(0, -inf), 0),
        (complex(nan, 1), 0),
        (complex(inf, inf), 1.5),
        (1 + 1j, complex(inf, 0)),
        (2, complex(0, nan)),
        (-inf, -2j),
    ]
    t = np.dtype(dtype).type
    with np.errstate(invalid="ignore", over="ignore"):
        for _ in range(2):  # the first call checks and files the plan, the second repeats
            for alpha, beta in cases:
                want = t(alpha) * (A @ x)
                if beta != 0:
                    want = want + t(beta) * y0
                y = y0.copy()
                got = prim.spmv(M, x, y=y, alpha=alpha, beta=beta, variant=variant)
                assert got is y
                _assert_same_parts(got, want, f"{variant} alpha={alpha} beta={beta}")
                if beta == 0:
                    _assert_same_parts(
                        prim.spmv(M, x, alpha=alpha, variant=variant),
                        want,
                        f"{variant} alpha={alpha} without y",
                    )


def _split_sums_tile(T):
    """_split_sums's matrix for a merge-path tile of T items."""
    k = 2 * T - 5
    head = np.where(np.arange(k) % 2 == 0, 1.0, -1.0)
    head[-1] = 0.0
    row2 = np.r_[head, 1.0, 1.0, 1.0]
    rows = np.r_[[1, 1, 1], np.full(row2.size, 2), [3, 4, 5]]
    cols = np.r_[[0, 1, 2], np.arange(row2.size), [0, 1, 2]]
    vals = np.r_[[1.0, -1.0, 2.0], row2, [1.0, 1.0, 1.0]]
    return sps.csr_matrix((vals, (rows, cols)), shape=(7, row2.size))


C_SHAPES = [
    "0x5",
    "5x0",
    "1x1",
    "all empty",
    "single row",
    "31 rows",
    "33 rows",
    "long row",
    "nnz = COO tile + 1",
]
C128_PATHS = {
    "path = c128 tile": lambda rng: _path(rng, 300, C128_TILE),
    "path = c128 tile + 1": lambda rng: _path(rng, 300, C128_TILE + 1),
    "path = 2 c128 tiles - 1": lambda rng: _path(rng, 500, 2 * C128_TILE - 1),
    "hot row, many c128 tiles": lambda rng: _long_row(rng, 5 * C128_TILE, m=700),
}


@pytest.mark.parametrize("shape", C_SHAPES + list(C128_PATHS))
@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("variant", VARIANTS)
def test_complex_awkward_shapes(variant, dtype, shape, rng):
    A = _complexify((C128_PATHS.get(shape) or SHAPES[shape])(rng), rng, dtype)
    x = vec(rng, A.shape[1], dtype)
    y0 = vec(rng, A.shape[0], dtype)
    M = to_format(A, FORMAT_OF[variant])
    got = prim.spmv(M, x, variant=variant)
    assert got.shape == (A.shape[0],) and got.dtype == dtype
    check(got, A, x, dtype, what=f"{variant} {shape}")
    y = y0.copy()
    prim.spmv(M, x, y=y, alpha=0.5 - 1j, beta=-2.0 + 0.25j, variant=variant)
    check(y, A, x, dtype, y=y0, alpha=0.5 - 1j, beta=-2.0 + 0.25j, what=f"{variant} {shape} y")


def test_complex128_paths_hit_the_tile_edges():
    rng = np.random.default_rng(0)
    for name, total in (("path = c128 tile", C128_TILE), ("path = c128 tile + 1", C128_TILE + 1)):
        A = C128_PATHS[name](rng)
        assert A.shape[0] + A.nnz == total
    assert C128_TILE < MERGE_TILE  # complex128's own tile: its paths are not float32's


@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_complex_carry_fixup_levels(dtype, rng, backend):
    """The fix-up's two levels on complex carries (a complex alpha as the kernel parameter)."""
    from primitives.sparse._plans import FixupChain, kernel_scalar

    n, m = 2 * FIX_TILE + 777, 50
    keys = np.sort(rng.integers(0, m, n))
    keys[keys % 3 == 1] = -1
    vals = vec(rng, n, dtype)
    y0 = vec(rng, m, dtype)
    alpha = 2 - 0.5j
    want = y0.astype(np.complex128)
    ok = keys >= 0
    np.add.at(want, keys[ok], alpha * vals[ok].astype(np.complex128))
    xp = backend.xp
    chain = FixupChain(
        n, np.dtype(dtype), np.dtype(np.int32), xp, prim.tuning.policy("spmv", "fixup")
    )
    assert len(chain.levels) == 2
    y = xp.asarray(y0)
    chain(xp.asarray(keys.astype(np.int32)), xp.asarray(vals), kernel_scalar(dtype(alpha)), y)
    y = to_host(y)
    counts = np.bincount(keys[ok], minlength=m) + 4
    u = np.finfo(dtype).eps / 2
    mag = np.abs(y0) + abs(alpha) * np.bincount(keys[ok], np.abs(vals[ok]), minlength=m)
    assert np.all(np.abs(y - want) <= 2 * counts * u * mag + 1e-300)


def test_complex_deterministic(rng):
    A = csuite_matrix("powerlaw", np.complex64)
    x = vec(rng, A.shape[1], np.complex64)
    for v in VARIANTS:
        M = to_format(A, FORMAT_OF[v])
        a, b = prim.spmv(M, x, variant=v), prim.spmv(M, x, variant=v)
        assert a.tobytes() == b.tobytes(), v


@pytest.mark.parametrize("fmt", sparse.FORMATS)
@pytest.mark.parametrize("dtype", CDTYPES, ids=lambda d: np.dtype(d).name)
def test_complex_round_trip_and_conversions(dtype, fmt):
    """Complex containers from SciPy matrices and arrays, converted between every format on the
    device and back, keep every value exactly."""
    for name in ("powerlaw", "empty_rows", "dense_rows"):
        A = csuite_matrix(name, dtype)
        M = to_format(A, fmt)
        assert M.format == fmt and M.dtype == dtype and M.nnz == A.nnz
        _same(M, A)
        for step in (
            lambda M: M.to_ell(max_fill=None),
            lambda M: M.to_hyb(width=1),
            lambda M: M.to_coo(),
            lambda M: M.to_hyb(),
            lambda M: M.to_csr(),
        ):
            M = step(M)
            assert M.dtype == dtype
            _same(M, A)
    B = sps.csr_array(csuite_matrix("banded", dtype))
    _same(to_format(B, fmt), sps.csr_matrix(B))


def test_complex_ell_padding():
    A = sps.csr_matrix(
        np.array([[0, 2 + 1j, 0, 3j], [0, 0, 0, 0], [5 - 5j, 0, 0, 0]], np.complex64)
    )
    E = sparse.ELL(A)
    data = to_host(E.data)
    H.assert_same(data[:, :3], np.array([[2 + 1j, 0, 5 - 5j], [3j, 0, 0]], np.complex64))
    assert (data[:, 3:] == 0).all()


@pytest.mark.parametrize(
    "make",
    [sps.csc_matrix, sps.coo_matrix, sps.lil_matrix, sps.bsr_matrix, sps.coo_array, sps.dok_matrix],
)
def test_complex_any_scipy_format(make, rng):
    A = csuite_matrix("banded", np.complex128)
    x = vec(rng, A.shape[1], np.complex128)
    check(prim.spmv(make(A), x), A, x, np.complex128, what=make.__name__)


def test_complex_astype(rng):
    A = suite_matrix("powerlaw", np.float32)
    for fmt in sparse.FORMATS:
        M = to_format(A, fmt)
        C = M.astype(np.complex64)
        assert C.dtype == np.complex64 and C.astype(np.complex64) is C
        _same(C, A.astype(np.complex64))
        _same(C.astype(np.complex128), A.astype(np.complex128))


@pytest.mark.parametrize("variant", VARIANTS + ("auto",))
def test_mixed_real_and_complex_follow_numpy(variant, rng):
    """The result dtype is numpy.result_type(A.dtype, x.dtype), as SciPy's A @ x: a complex x
    with a real A gives a complex product, a real x with a complex A too, and the wider of
    the two precisions wins."""
    fmt = FORMAT_OF.get(variant, "csr")
    R32, R64 = suite_matrix("banded", np.float32), suite_matrix("banded", np.float64)
    C64, C128 = csuite_matrix("banded", np.complex64), csuite_matrix("banded", np.complex128)
    n = R32.shape[1]
    cases = [
        (R32, np.complex64),
        (R32, np.complex128),
        (R64, np.complex64),
        (C64, np.float32),
        (C64, np.float64),
        (C64, np.int16),
        (C64, np.int32),
        (C128, np.float32),
        (C64, np.complex128),
        (C128, np.complex64),
        (C64, np.float16),
        (R64, np.int64),
    ]
    for A, xdt in cases:
        x = (rng.integers(1, 5, n) if np.dtype(xdt).kind in "iu" else vec(rng, n, xdt)).astype(xdt)
        want_dt = (A @ x).dtype
        assert want_dt == np.result_type(A.dtype, xdt)
        got = prim.spmv(to_format(A, fmt), x, variant=variant)
        assert got.dtype == want_dt, (A.dtype, xdt)
        check(got, A, x, want_dt.type, what=f"{variant} {A.dtype} @ {np.dtype(xdt)}")
        y0 = vec(rng, A.shape[0], want_dt)
        y = y0.copy()
        alpha, beta = (1 - 1j, 0.5j) if want_dt.kind == "c" else (-1.5, 0.5)
        assert prim.spmv(to_format(A, fmt), x, y=y, alpha=alpha, beta=beta, variant=variant) is y
        check(y, A, x, want_dt.type, y=y0, alpha=alpha, beta=beta, what=f"{variant} y")


def test_complex_y_dtype_and_inputs_untouched(rng):
    A = csuite_matrix("banded", np.complex64)
    x = vec(rng, A.shape[1], np.complex64)
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        A,
        x,
        y=np.ones(A.shape[0], np.float32),
        match="y has dtype float32, the result dtype is complex64",
    )
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        A,
        x,
        y=np.ones(A.shape[0], np.complex128),
        match="y has dtype complex128, the result dtype is complex64",
    )
    R = suite_matrix("banded", np.float32)
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        R,
        x,
        y=np.ones(R.shape[0], np.float32),
        match="y has dtype float32, the result dtype is complex64",
    )
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        A,
        np.ones(A.shape[1], np.clongdouble),
        match="supported result dtypes are float32, float64, complex64, complex128",
    )
    x0, data0 = x.copy(), A.data.copy()
    prim.spmv(A, x, alpha=1j)
    H.assert_same(x, x0)
    H.assert_same(A.data, data0)


def test_complex_explicit_plan_and_repeat_path(rng):
    A = csuite_matrix("uniform", np.complex128)
    M = sparse.CSR(A)
    x = vec(rng, A.shape[1], np.complex128)
    p = prim.plan(prim.spmv, M, x, alpha=2j)
    prim.clear_caches()
    first = prim.spmv(M, x, alpha=2j, variant="merge_path")
    builds = prim.cache_info()["builds"]
    for x2 in (vec(rng, A.shape[1], np.complex128), x):
        again = prim.spmv(M, x2, alpha=-1j, variant="merge_path")
        assert prim.cache_info()["builds"] == builds
        check(again, A, x2, np.complex128, alpha=-1j, what="repeat")
    H.assert_same(prim.spmv(M, x, alpha=2j, variant="merge_path"), first)
    H.assert_same(p(M, x), prim.spmv(M, x, alpha=2j))
    xr = vec(rng, A.shape[1], np.float64)
    check(p(M, xr), A, xr, np.complex128, alpha=2j, what="plan, real x")
    R = suite_matrix("uniform", np.float64)
    H.raises_like(TypeError, "spmv", prim.spmv.plan, R, xr, alpha=2j, match="is complex")


def test_complex_vector_lanes():
    for dt in CDTYPES:
        assert [vector_lanes(m, dt) for m in (0, 4, 5, 64)] == [2, 2, 4, 32]
    with prim.tuning.override("spmv", selector=("csr_vector", "complex128"), lanes=4):
        assert vector_lanes(100, np.complex128) == 4
        assert vector_lanes(100, np.complex64) == 32


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    m=st.integers(0, 200),
    n=st.integers(0, 200),
    density=st.floats(0, 0.3),
    dtype=st.sampled_from(CDTYPES),
    xkind=st.sampled_from(["same", "real"]),
    variant=st.sampled_from(VARIANTS + ("auto",)),
    alpha=st.complex_numbers(max_magnitude=4, allow_nan=False, allow_infinity=False),
    beta=st.sampled_from([0.0, 1.0, -0.5j]),
    dup=st.booleans(),
)
def test_property_complex_matches_scipy(
    data, m, n, density, dtype, xkind, variant, alpha, beta, dup
):
    seed = data.draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    nnz = int(density * m * n)
    rows, cols = rng.integers(0, max(m, 1), nnz), rng.integers(0, max(n, 1), nnz)
    if dup and nnz:
        rows, cols = np.r_[rows, rows[: nnz // 2]], np.r_[cols, cols[: nnz // 2]]
    A = sps.coo_matrix((vec(rng, rows.size, dtype), (rows, cols)), shape=(m, n))
    x = vec(rng, n, dtype if xkind == "same" else np.float32)
    out_dt = np.result_type(A.dtype, x.dtype)
    y0 = vec(rng, m, out_dt)
    y = y0.copy() if beta else None
    fmt = FORMAT_OF.get(variant, "csr")
    got = prim.spmv(
        A if fmt == "csr" else to_format(A, fmt), x, y=y, alpha=alpha, beta=beta, variant=variant
    )
    assert got.dtype == out_dt
    check(got, A.tocsr(), x, out_dt.type, y=y0, alpha=alpha, beta=beta, what=variant)


@pytest.mark.gpu
def test_complex_matches_cusparse(on_gpu, rng):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy
    import cupyx.scipy.sparse as cxs

    for dtype in CDTYPES:
        A = csuite_matrix("powerlaw", dtype)
        dA = cxs.csr_matrix(A)
        dx = cupy.asarray(vec(rng, A.shape[1], dtype))
        want = dA @ dx
        for v in VARIANTS:
            M = sparse.ELL(sparse.CSR(dA), max_fill=None) if v == "ell" else sparse.CSR(dA)
            got = prim.spmv(M, dx, variant=v, alpha=1 - 1j)
            assert isinstance(got, cupy.ndarray) and got.dtype == dtype
            tol = 1e-4 if dtype == np.complex64 else 1e-12
            cupy.testing.assert_allclose(got, (1 - 1j) * want, rtol=tol, atol=tol)


# ---- errors: one test per branch ---------------------------------------------------------------


def _A():
    return suite_matrix("banded", np.float32)


@pytest.mark.parametrize("bad", [np.ones((3, 3), np.float32), "A", None, [[1.0]]])
def test_A_not_sparse(bad):
    H.raises_like(
        TypeError, "spmv", prim.spmv, bad, np.ones(3, np.float32), match="A must be a scipy.sparse"
    )
    H.raises_like(TypeError, "ELL", sparse.ELL, bad, match="A must be a scipy.sparse")


@pytest.mark.parametrize("dt", [np.int32, np.clongdouble, np.float16, np.bool_])
def test_A_dtype(dt):
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        sps.eye(3, dtype=dt, format="csr"),
        np.ones(3, np.float32),
        match="A has dtype",
    )


def test_A_not_2d():
    A = sps.coo_array(np.array([1.0, 0.0, 2.0]))
    H.raises_like(ValueError, "CSR", sparse.CSR, A, match="A must be 2-D")


@pytest.mark.parametrize("bad", ["x", None, {"a": 1}])
def test_x_not_array(bad):
    H.raises_like(TypeError, "spmv", prim.spmv, _A(), bad, match="x must be")


def test_x_not_1d():
    H.raises_like(
        ValueError, "spmv", prim.spmv, _A(), np.ones((1500, 1), np.float32), match="x must be 1-D"
    )


@pytest.mark.parametrize("dt", [np.bool_, object])
def test_x_dtype(dt):
    H.raises_like(TypeError, "spmv", prim.spmv, _A(), np.ones(1500, dt), match="x has dtype")


def test_result_dtype():
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1500, np.longdouble),
        match="supported result dtypes",
    )


def test_x_length():
    H.raises_like(
        ValueError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1499, np.float32),
        match="x has length 1499, A has 1500 columns",
    )
    H.raises_like(
        ValueError,
        "spmv",
        prim.spmv,
        sps.csr_matrix((0, 3), dtype=np.float32),
        np.ones(0, np.float32),
        match="x has length 0",
    )


def test_y_not_array():
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1500, np.float32),
        y=[0.0] * 1500,
        match="y must be a NumPy or CuPy array",
    )


def test_y_not_1d():
    H.raises_like(
        ValueError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1500, np.float32),
        y=np.ones((1500, 1), np.float32),
        match="y must be 1-D",
    )


def test_y_dtype():
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1500, np.float32),
        y=np.ones(1500, np.float64),
        match="y has dtype float64, the result dtype is float32",
    )


def test_y_length():
    H.raises_like(
        ValueError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1500, np.float32),
        y=np.ones(3, np.float32),
        match="y has length 3, A has 1500 rows",
    )


def test_beta_without_y():
    H.raises_like(
        ValueError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1500, np.float32),
        beta=2.0,
        match="beta=2.0 scales y, but y was not given",
    )


def test_y_read_only():
    """A read-only y is refused before anything is written, as NumPy refuses an output array
    that is read-only; also on the repeat path and by an explicit plan."""
    M, x = sparse.CSR(_A()), np.ones(1500, np.float32)
    y = np.full(1500, 7.0, np.float32)
    y.flags.writeable = False
    for beta in (0.0, 1.0):
        H.raises_like(ValueError, "spmv", prim.spmv, M, x, y=y, beta=beta, match="y is read-only")
    prim.spmv(M, x, y=np.zeros(1500, np.float32), beta=1.0)  # files the plan of like arguments
    H.raises_like(ValueError, "spmv", prim.spmv, M, x, y=y, beta=1.0, match="y is read-only")
    H.raises_like(ValueError, "spmv", prim.spmv.plan, M, x, y=y, match="y is read-only")
    H.assert_same(y, np.full(1500, 7.0, np.float32))


def test_y_interleaved_with_x(rng):
    """Views of one buffer that interleave without sharing a byte do not overlap (the exact
    test of numpy.shares_memory, not the bounds); views that share bytes do, whatever their
    dtypes."""
    A = _A()
    n = A.shape[0]
    buf = np.zeros(2 * n, np.float32)
    x, y = buf[::2], buf[1::2]
    x[...] = vec(rng, n, np.float32)
    y0 = vec(rng, n, np.float32)
    for _ in range(2):  # the first call checks and files the plan, the second repeats
        y[...] = y0
        assert prim.spmv(A, x, y=y, alpha=2.0, beta=-1.0) is y
        check(y, A, x, np.float32, y=y0, alpha=2.0, beta=-1.0, what="interleaved")
    M = sparse.CSR(A)
    big = np.zeros(2 * n + 2, np.float32)
    H.raises_like(
        ValueError, "spmv", prim.spmv, M, big[:-2:2], y=big[2::2], beta=1.0, match="y overlaps x"
    )
    M64 = sparse.CSR(A.astype(np.float64))
    wide = np.zeros(2 * n, np.float64)  # float64 y, float32 x in the other half of each pair
    x32 = wide.view(np.float32)
    x32[2::4] = vec(rng, n, np.float32)
    check(prim.spmv(M64, x32[2::4], y=wide[::2]), A, x32[2::4], np.float64, what="mixed dtypes")
    H.raises_like(
        ValueError, "spmv", prim.spmv, M64, x32[1::4], y=wide[::2], match="y overlaps x"
    )  # the second half of each float64 of y


def test_overlap_test_is_exact():
    """The exact test that device arrays go through (pointers, strides and itemsizes only; the
    bounds filter it) answers as numpy.shares_memory on 1-D views of one buffer: mixed
    itemsizes, negative, zero and unaligned steps."""
    from numpy.lib.stride_tricks import as_strided
    from primitives.sparse._checks import _progression, _strided_meet

    rng = np.random.default_rng(7)
    buf = np.zeros(512, np.uint8)

    def view():  # n elements of `item` bytes, `step` bytes apart, the first at `start`
        item = int(rng.choice([1, 2, 4, 8]))
        n = int(rng.integers(1, 12))
        step = int(rng.integers(-40, 41))
        start = int(rng.integers(max(0, -step * (n - 1)), 512 - item - max(0, step * (n - 1)) + 1))
        rows = as_strided(buf[start:], shape=(n, item), strides=(step, 1))
        return rows.view(f"u{item}")[:, 0]

    for _ in range(3000):
        a, b = view(), view()
        want = bool(np.shares_memory(a, b))
        got = _strided_meet(_progression(a, a.ctypes.data), _progression(b, b.ctypes.data))
        assert got == want, (a.__array_interface__, b.__array_interface__)


def test_y_overlaps_x(on_gpu):
    buf = np.ones(3000, np.float32)
    H.raises_like(
        ValueError, "spmv", prim.spmv, _A(), buf[:1500], y=buf[1000:2500], match="y overlaps x"
    )
    prim.spmv(_A(), buf[:1500], y=buf[1500:])  # adjacent, not overlapping
    if on_gpu:
        import cupy

        dbuf = cupy.ones(3000, np.float32)
        H.raises_like(
            ValueError,
            "spmv",
            prim.spmv,
            _A(),
            dbuf[:1500],
            y=dbuf[1499:2999],
            match="y overlaps x",
        )
        prim.spmv(_A(), dbuf[:1500], y=dbuf[1500:])


@pytest.mark.parametrize("arg", ["alpha", "beta"])
@pytest.mark.parametrize("bad", ["1", np.ones(1), np.array(1.0), None])
def test_alpha_beta_not_a_number(arg, bad):
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1500, np.float32),
        y=np.ones(1500, np.float32),
        match=f"{arg} must be a real or complex number",
        **{arg: bad},
    )


@pytest.mark.parametrize("arg", ["alpha", "beta"])
@pytest.mark.parametrize("v", [1j, np.complex64(2), np.complex128(1 - 1j), complex(0, 0)])
def test_complex_alpha_beta_need_a_complex_result(arg, v):
    """alpha and beta are scalars of the result dtype (they do not promote it, as a NumPy
    float64 scalar does not promote a float32 product): complex ones need a complex A or x,
    whatever their value."""
    y = np.ones(1500, np.float32)
    H.raises_like(
        TypeError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1500, np.float32),
        y=y,
        match=f"{arg}=.* is complex, the result dtype float32 .*is real",
        **{arg: v},
    )
    H.assert_same(y, np.ones(1500, np.float32))


def test_bad_variant():
    H.raises_like(
        ValueError,
        "spmv",
        prim.spmv,
        _A(),
        np.ones(1500, np.float32),
        variant="csr_adaptive",
        match="variant must be 'auto' or one of",
    )


def test_ell_refuses_heavy_padding():
    A = suite_matrix("dense_rows", np.float32)
    H.raises_like(ValueError, "ELL", sparse.ELL, A, match="max_fill")
    H.raises_like(
        ValueError,
        "ELL",
        prim.spmv,
        A,
        np.ones(A.shape[1], np.float32),
        variant="ell",
        match="max_fill",
    )


@pytest.mark.parametrize("bad", ["yes", 1, 0.0])
def test_ell_skip_empty_not_bool(bad):
    H.raises_like(
        TypeError,
        "ELL",
        sparse.ELL,
        suite_matrix("empty_rows", np.float32),
        skip_empty=bad,
        match=f"skip_empty must be True, False or None, got {bad!r}",
    )


def test_ell_width_below_longest_row():
    H.raises_like(
        ValueError,
        "ELL",
        sparse.ELL,
        suite_matrix("banded", np.float32),
        width=3,
        match="width=3 is below the longest row",
    )


@pytest.mark.parametrize("cls", [sparse.ELL, sparse.HYB])
@pytest.mark.parametrize("bad", [-1, 2.5, True])
def test_width_not_a_count(cls, bad):
    H.raises_like(
        ValueError,
        cls.__name__,
        cls,
        suite_matrix("banded", np.float32),
        width=bad,
        match="width must be a non-negative integer",
    )


def test_index_dtype_errors():
    from primitives.sparse._checks import index_dtype_for

    H.raises_like(
        TypeError,
        "CSR",
        sparse.CSR,
        _A(),
        index_dtype=np.int16,
        match="index_dtype=int16 is not supported",
    )
    H.raises_like(
        TypeError, "CSR", sparse.CSR, _A(), index_dtype="nonsense", match="is not a dtype"
    )
    H.raises_like(
        ValueError,
        "CSR",
        index_dtype_for,
        np.int32,
        10,
        10,
        2**31,
        func="CSR",
        match="index_dtype=int32 cannot index",
    )


def test_astype_error():
    H.raises_like(
        TypeError, "CSR.astype", sparse.CSR(_A()).astype, np.int32, match="dtype has dtype int32"
    )


def test_to_cupy_needs_cuda(on_gpu):
    if on_gpu:
        pytest.skip("the CUDA backend converts")
    H.raises_like(RuntimeError, "to_cupy", sparse.CSR(_A()).to_cupy, match="needs the CUDA backend")


# ---- GPU only --------------------------------------------------------------------------------


@pytest.mark.gpu
def test_device_inputs_stay_on_device(on_gpu, rng):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy
    import cupyx.scipy.sparse as cxs

    A = suite_matrix("uniform", np.float32)
    dA = cxs.csr_matrix(A)
    x = vec(rng, A.shape[1], np.float32)
    dx = cupy.asarray(x)
    for v in VARIANTS + ("auto",):
        got = prim.spmv(dA, dx, variant=v)
        assert isinstance(got, cupy.ndarray)
        check(got, A, x, np.float32, what=v)
    y = cupy.zeros(A.shape[0], np.float32)
    assert prim.spmv(sparse.CSR(dA), dx, y=y) is y
    B = sparse.HYB(dA).to_cupy()
    assert isinstance(B, cxs.csr_matrix) and abs(B - dA).max() == 0
    assert isinstance(sparse.COO(dA).to_cupy(), cxs.coo_matrix)


@pytest.mark.gpu
def test_matches_cusparse(on_gpu, rng):
    if not on_gpu:
        pytest.skip("needs the CUDA backend")
    import cupy
    import cupyx.scipy.sparse as cxs

    for name in suite.SUITE:
        A = suite_matrix(name, np.float64)
        dA = cxs.csr_matrix(A)
        dx = cupy.asarray(vec(rng, A.shape[1], np.float64))
        want = dA @ dx
        got = prim.spmv(sparse.CSR(dA), dx, variant="merge_path")
        cupy.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


# ---- the asv benchmarks ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def asv_spmv():
    from tests.conftest import load_benchmark

    return load_benchmark("sparse")


def test_asv_benchmarks(asv_spmv, on_gpu):
    assert asv_spmv.Spmv.params[0] == list(VARIANTS) + ["auto"]
    assert asv_spmv.Spmv.params[1] == list(suite.SUITE)
    for cls in (asv_spmv.Spmv, asv_spmv.CuSparse):
        assert len(cls.params) == len(cls.param_names)
        assert cls.track_time_ms.unit == "ms" and cls.track_gbps.unit == "GB/s"
    if not on_gpu:
        cache = asv_spmv._Module().setup_cache()
        with pytest.raises(NotImplementedError, match="GPU benchmark"):
            asv_spmv.Spmv().setup(cache, "auto", "poisson2d", "float32")
        return
    args = ("merge_path", "poisson2d", "float32")
    cache = {("Spmv", args): asv_spmv.Spmv()._measure_one(args)}
    b = asv_spmv.Spmv()
    b.setup(cache, *args)
    assert b.track_time_ms(cache, *args) > 0
    assert b.track_footprint_mb(cache, *args) > 0


@pytest.mark.parametrize("name", suite.WIDE)
def test_widened_suite_matrices(name):
    """The widened suite (where auto's rule is fitted): canonical CSR (columns sorted and unique
    within each row, in range), the shapes and the row-length spreads each structure stands
    for."""
    indptr, indices, (m, n) = suite.generate_wide(name)
    assert indptr.size == m + 1 and indptr[0] == 0 and indptr[-1] == indices.size
    assert np.all(np.diff(indptr) >= 0) and indices.min() >= 0 and indices.max() < n
    lengths = np.diff(indptr)
    starts = np.repeat(indptr[:-1], lengths)
    inner = np.arange(indices.size) > starts  # not the first entry of its row
    assert np.all(np.diff(indices)[inner[1:]] > 0)
    cv = lengths.std() / lengths.mean()
    if name.startswith(("lognormal", "zipf")):
        assert cv > 0.3 and lengths.max() > 4 * lengths.mean()
    elif name.startswith(("block", "short", "long", "wide", "tall", "rows")):
        assert cv == 0
    elif name.startswith("spread"):
        fill = float(name.split("_")[1])
        assert 0.1 < cv < 0.6 and abs(lengths.max() / lengths.mean() - fill) < 0.08
    if name == "wide":
        assert n > 100 * m
    if name == "tall":
        assert m > 100 * n
    with pytest.raises(ValueError, match="unknown widened-suite matrix"):
        suite.generate_wide("nope")


def test_auto_tuning_tool_runs(tmp_path):
    """tools.tune.spmv_auto checks every contender against the oracle and writes its table and
    CSV (a small matrix here; the emulator's times)."""
    from tools.tune import spmv_auto

    out, csv_path = tmp_path / "t.md", tmp_path / "t.csv"
    assert (
        spmv_auto.main(
            [
                "--scale",
                "test",
                "--only",
                "short_2",
                "--dtype",
                "float32",
                "--out",
                str(out),
                "--csv",
                str(csv_path),
            ]
        )
        == 0
    )
    text = out.read_text()
    assert "| short_2 | float32 | 5000 x 5000 | 10000 |" in text and "worst auto / fastest" in text
    rows = csv_path.read_text().splitlines()
    assert rows[0].startswith("matrix,dtype,rows,cols") and len(rows) >= 1 + 1 + len(VARIANTS)
