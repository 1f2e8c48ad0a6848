"""tools.figures.dask_scaling, the multi-GPU scaling run, at its test scale: on the emulator a
distributed.LocalCluster of 1 and 2 workers (NumPy chunks), on a GPU one worker on one GPU; the
table, the efficiencies, the identity of the results across worker counts, and its parts (the
Poisson blocks built on the workers, the fingerprints, the plan of reference runs, the wait for
the results of the calls before to be released)."""

import gc
import importlib.util
import os

import numpy as np
import pytest
import scipy.sparse as sp

from primitives._core import backend as _backend

pytest.importorskip("dask.array")
distributed = pytest.importorskip("distributed")
S = pytest.importorskip("tools.figures.dask_scaling")

ON_GPU = _backend.get_backend().is_cuda
WORKERS = [1] if ON_GPU else [1, 2]


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("scaling") / "scaling.md"
    argv = [
        "--workers",
        *map(str, WORKERS),
        "--scale",
        "test",
        "--out",
        str(out),
        "--cluster",
        "cuda" if ON_GPU else "cpu",
    ]
    return S.main(argv), out.read_text()


def test_every_run_in_the_table(run):
    records, text = run
    want = {(op, s, k) for op in S.OPS for s in S.SCALINGS for k in WORKERS}
    assert {(r["op"], r["scaling"], r["workers"]) for r in records} == want
    lines = text.splitlines()
    head = lines.index("| " + " | ".join(S.COLUMNS) + " |")
    rows = [line.strip("|").split("|") for line in lines[head + 2 :] if line.startswith("|")]
    assert len(rows) == len(want) and all(len(r) == len(S.COLUMNS) for r in rows)
    sc = S.SCALES["test"]
    for r in records:
        n = {
            ("spmv", "weak"): sc.rows_per_worker * r["workers"],
            ("spmv", "strong"): sc.total_rows,
        }.get(
            (r["op"], r["scaling"]),
            sc.per_worker * r["workers"] if r["scaling"] == "weak" else sc.total,
        )
        assert r["n"] == n and r["ms"] > 0 and r["gbs"] > 0
        if r["workers"] == 1:
            assert r["efficiency"] == pytest.approx(1.0) and r["same"] == "reference"
    for cells in rows:
        op, scaling, k, n, ms, gbs, eff, target, met, same = (c.strip() for c in cells)
        assert op in S.OPS and scaling in S.SCALINGS and n.startswith("2^")
        assert float(ms) > 0 and eff.endswith("%")
        # the targets: weak scaling at 2 workers only
        assert bool(target) == (scaling == "weak" and k == "2" and op != "spmv")
        assert met in (("yes", "**no**") if target else ("",))


def test_efficiency_against_one_worker(run):
    records, _ = run
    one = {(r["op"], r["scaling"]): r["ms"] for r in records if r["workers"] == 1}
    for r in records:
        base, k = one[(r["op"], r["scaling"])], r["workers"]
        want = base / r["ms"] if r["scaling"] == "weak" else base / (k * r["ms"])
        assert r["efficiency"] == pytest.approx(want)


@pytest.mark.skipif(len(WORKERS) < 2, reason="one GPU: one worker")
def test_results_same_as_one_worker(run):
    records, _ = run
    for r in records:
        if r["workers"] == 1:
            continue
        if r["op"] in ("histogram", "sort", "sum"):  # integers, sorts; a sum by the same tree
            assert r["same"] == "exact", r
        else:  # cumsum by another graph ("totals" on two workers), spmv's floats
            assert r["same"] == "exact" or r["same"].startswith("close ("), r


def test_poisson_blocks_are_the_matrix():
    width, height = 8, 6
    m = width * height
    lap = lambda k: sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(k, k))  # noqa: E731
    M = sp.kron(sp.identity(height), lap(width)) + sp.kron(lap(height), sp.identity(width))
    M = M.tocsr().astype(np.float32)
    for r0, r1 in [(0, 8), (8, 24), (40, 48), (0, m)]:
        h0, h1 = S.poisson_halo(r0, r1, m, width)
        block = S.poisson_block(r0, r1, m, width, ON_GPU).to_scipy()
        assert block.shape == (r1 - r0, h1 - h0)
        np.testing.assert_array_equal(block.toarray(), M[r0:r1, h0:h1].toarray())
        # the halo holds every column the rows touch
        assert M[r0:r1, :h0].nnz == 0 and M[r0:r1, h1:].nnz == 0
    assert M.nnz == 5 * m - 2 * width - 2 * height


def test_fingerprint_compare():
    def fp(values):
        v = np.asarray(values)
        bits = v.view(f"u{v.dtype.itemsize}").astype(np.uint64)
        pos = np.arange(1, v.size + 1, dtype=np.uint64)
        return S.Fingerprint(
            v.dtype,
            (int(bits.sum()), int((bits * pos).sum())),
            float(v.sum(dtype=np.float64)),
            v[::2].copy(),
        )

    keys = np.arange(10, dtype=np.uint32)
    assert fp(keys).compare(fp(keys.copy())) == "exact"
    assert fp(keys[::-1].copy()).compare(fp(keys)).startswith("**differs**")  # same sum
    f = np.linspace(1, 2, 10, dtype=np.float32)
    assert fp(f * np.float32(1 + 1e-6)).compare(fp(f)).startswith("close (")
    assert fp(f * np.float32(1.01)).compare(fp(f)).startswith("**differs** (")


def test_plan_of_the_full_run():
    runs, extra = S.plan(list(S.OPS), [1, 2, 4], S.SCALES["full"])
    assert runs[2][0] == ("sum", "weak", 2**31) and ("sort", "strong", 2**31) in runs[4]
    # the 2-worker weak inputs are the strong ones; the 4-worker ones get a one-worker run
    assert extra == [(op, 2**32) for op in S.OPS if op != "spmv"] + [("spmv", 2**26)]


@pytest.mark.skipif(ON_GPU, reason="needs as many GPUs as workers")
def test_gpu_cluster_places_one_gpu_per_worker():
    if importlib.util.find_spec("dask_cuda") is not None:
        pytest.skip("dask_cuda's LocalCUDACluster checks the GPUs")

    with S.cluster("cuda", 2, [3, 5]) as (client, addrs, what):
        env = client.run(
            lambda: (os.environ["CUDA_VISIBLE_DEVICES"], os.environ["NCCL_NVLS_ENABLE"])
        )
    assert [env[a] for a in addrs] == [("3,5", "0"), ("5,3", "0")]
    assert "GPUs 3,5" in what


#: --chunk and --row-chunk of the run at other chunkings: half the test scale's (the row chunk a
#: multiple of the grid width), four chunks and four row blocks per worker in weak scaling
CHUNK, ROW_CHUNK = S.SCALES["test"].chunk // 2, S.SCALES["test"].row_chunk // 2


@pytest.fixture(scope="module")
def rechunked(tmp_path_factory):
    """sum and spmv at chunkings other than the scale's, each run's tasks profiled: (records,
    the table's file, the profile's file)."""
    path = tmp_path_factory.mktemp("rechunked")
    out, prof = path / "chunks.md", path / "profile.md"
    argv = [
        "--workers",
        *map(str, WORKERS),
        "--scale",
        "test",
        "--out",
        str(out),
        "--cluster",
        "cuda" if ON_GPU else "cpu",
        "--ops",
        "sum",
        "spmv",
        "--chunk",
        str(CHUNK),
        "--row-chunk",
        str(ROW_CHUNK),
        "--profile",
        str(prof),
        "--min-time",
        "0",
    ]
    return S.main(argv), out.read_text(), prof.read_text()


def profile_of(text, op, scaling, k):
    """({task group: its cells after the name}, ms from the first task's start to the last
    one's end) of one run in a --profile file."""
    head = f"{op} {scaling}, {k} worker(s): wall "
    assert head in text
    run = text.split(head, 1)[1]
    block = run.split("\n\n", 2)[1]
    rows = {r.split("|")[1].strip(): r.split("|")[2:-1] for r in block.splitlines()[2:]}
    return rows, float(run.split("to last end ", 1)[1].split(" ms")[0])


def test_chunk_options(rechunked):
    """--chunk and --row-chunk change the chunking, not the inputs or the results (the inputs are
    drawn per chunk, so the references are taken at the same chunking); bad values are refused."""
    records, text, profile = rechunked
    assert {r["op"] for r in records} == {"sum", "spmv"}
    assert CHUNK != S.SCALES["test"].chunk and ROW_CHUNK != S.SCALES["test"].row_chunk
    assert f"chunks of 2^{CHUNK.bit_length() - 1}" in text
    assert all(
        r["same"] in ("reference", "exact") or r["same"].startswith("close") for r in records
    )
    sc = S.SCALES["test"]
    for k in WORKERS:
        for scaling, n in (("weak", sc.rows_per_worker * k), ("strong", sc.total_rows)):
            rows, _ = profile_of(profile, "spmv", scaling, k)
            assert int(rows["primitives-dask"][0]) == n // ROW_CHUNK  # a task per row block
    for bad, match in (
        (["--chunk", "0"], "--chunk must be positive"),
        (["--row-chunk", "3"], "multiple of the grid width"),
    ):
        with pytest.raises(SystemExit):
            S.main(["--scale", "test", "--cluster", "cpu", *bad])


def test_profile_of_every_run(rechunked):
    """--profile writes one table of task groups per run: the work's tasks counted, with their
    compute time and span; --rmm-pool is refused off the GPU cluster."""
    records, _, text = rechunked
    for r in records:
        profile_of(text, r["op"], r["scaling"], r["workers"])
    sc = S.SCALES["test"]
    for k in WORKERS:
        for scaling, n in (("weak", sc.per_worker * k), ("strong", sc.total)):
            rows, span = profile_of(text, "sum", scaling, k)
            assert int(rows["primitives-sum"][0]) == n // CHUNK  # one task per chunk
            assert float(rows["primitives-sum"][1]) > 0
            assert float(rows["primitives-sum-aggregate"][5]) <= span + 1e-2
    if not ON_GPU:
        with pytest.raises(SystemExit):
            S.main(["--scale", "test", "--cluster", "cpu", "--rmm-pool", "1GB"])


def test_settle_frees_futures_held_in_cycles():
    """Before each timed call the scheduler's tasks are let go down to the inputs' (a pure call
    would take results still held): the futures of a dropped result that only a reference
    cycle holds are collected for it (the automatic collector off, nothing else frees them)."""
    with S.cluster("cpu", 1) as (client, _, _):
        held = S._scheduler_tasks(client)
        gc.disable()
        try:
            fut = client.submit(sum, [1, 2], pure=False)
            assert fut.result() == 3 and S._scheduler_tasks(client) == held + 1
            cycle = [fut]
            cycle.append(cycle)
            del fut, cycle
            S._settle(client, held, timeout=10.0)
        finally:
            gc.enable()
        assert S._scheduler_tasks(client) == held
