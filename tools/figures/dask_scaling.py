"""Weak and strong scaling of ``primitives.dask`` over several GPUs: one Dask worker per GPU.

    python -m tools.figures.dask_scaling --workers 1 2 4 --out FILE.md
        [--scale full|gpu1|test] [--cluster cuda|cpu] [--ops sum cumsum ...]

For every worker count a fresh cluster: ``dask_cuda.LocalCUDACluster`` with one worker per GPU
(``--devices`` lists the GPUs handed out, worker i gets the i-th; ``--protocol tcp|ucx``;
NCCL's NVLink multicast off, ``NCCL_NVLS_ENABLE=0``; without dask_cuda installed, a
``distributed.SpecCluster`` of one nanny per GPU, its worker seeing that GPU first), or with
``--cluster cpu`` a ``distributed.LocalCluster`` of that many single-threaded workers with NumPy
chunks (the kernels on the emulator: the test of these code paths where no GPU is lent).

The work, at ``--scale full`` (the issue's sizes): ``sum``, ``cumsum`` and ``histogram`` (256
bins, range given) of float32, ``sort`` of uint32 keys, each with 2^30 elements per worker
(weak scaling) and 2^31 in all (strong scaling), in chunks of 2^27; ``spmv`` of the 2-D Poisson
matrix (5-point stencil on a grid 2^12 wide) with 2^24 rows per worker (weak) and 2^25 in all
(strong), rows in blocks of 2^21, float32. ``gpu1`` is 1/16 of that, for a check of the CUDA
path on one GPU in about a minute; ``test`` is a few thousand elements, for the emulator.

The inputs are made on the workers, never sent through the client: chunk i is drawn from a
generator seeded with (seed, i) on the worker that holds it (chunks in contiguous runs, the same
number per worker), so an input of n elements is the same whatever the worker count; the
Poisson matrix's row blocks are built on their workers the same way, with their halos (the
columns a block touches: its rows widened by one grid row each side) known on the client.

Each operation is timed by wall clock from the call to its result persisted on the workers
(``distributed.wait``), the graph's construction and any eager step (the sort's splitters)
included: warm-up runs, then the median of the timed ones. Efficiency is against the
one-worker run of the same code: t(1 worker, n) / t(k workers, k n) for weak scaling,
t(1, n) / (k t(k, n)) for strong. GB/s per GPU counts the bytes the operation must move at
least once (input read, output written; for SpMV the CSR arrays, x and y) over the time and the
worker count.

Every result is compared with the result of the smallest worker count on the same input (with
``--workers 1 ...``, the one-worker run; weak-scaling inputs of a size not otherwise run on one
worker get one untimed one-worker run for this): exact (checksums of the bits at their
positions, computed on the workers) for integers and sorts, and for floats exact or close
(relative error at most 1e-4 at 1024 sampled positions and in the total).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import gc
import os
import statistics
import sys
import time

import numpy as np

OPS = ("sum", "cumsum", "histogram", "sort", "spmv")
SCALINGS = ("weak", "strong")
HIST_BINS, HIST_RANGE = 256, (0.0, 1.0)
#: the issue's figures: weak-scaling efficiency at 2 workers at least this
TARGETS = {"sum": 0.9, "histogram": 0.9, "cumsum": 0.9, "sort": 0.7}
TARGET_WORKERS = 2
RTOL = 1e-4  # floats computed by another graph (cumsum's "totals" against "chain")
SAMPLES = 1024
MAX_REPEAT = 51  # timed calls of one op at most


@dataclasses.dataclass(frozen=True)
class Scale:
    per_worker: int  # elements per worker, weak scaling
    total: int  # elements in all, strong scaling
    chunk: int  # elements per chunk
    grid_width: int  # the Poisson grid's width (its rows are grid rows of this many points)
    rows_per_worker: int  # SpMV rows per worker, weak scaling
    total_rows: int  # SpMV rows in all, strong scaling
    row_chunk: int  # SpMV rows per block (at least grid_width)
    warmup: int
    repeat: int
    min_time: float  # seconds of timed calls at least (short calls repeated, MAX_REPEAT at most)


SCALES = {
    "full": Scale(
        2**30, 2**31, 2**27, 2**12, 2**24, 2**25, 2**21, warmup=2, repeat=5, min_time=1.0
    ),
    "gpu1": Scale(
        2**26, 2**27, 2**23, 2**10, 2**20, 2**21, 2**17, warmup=1, repeat=3, min_time=1.0
    ),
    "test": Scale(2**11, 2**12, 2**10, 2**4, 2**9, 2**10, 2**8, warmup=1, repeat=1, min_time=0.0),
}


# ---- worker-side tasks: inputs, the Poisson blocks, result digests -------------------------------


def _xp(gpu):
    if gpu:
        import cupy

        return cupy
    return np


def _synchronized(gpu, value):
    """``value`` once the device work that made it is done (timings start from finished data)."""
    if gpu:
        import cupy

        cupy.cuda.get_current_stream().synchronize()
    return value


def make_chunk(kind, seed, index, size, gpu):
    """Chunk ``index`` of an input: float32 in [0, 1) or uint32 keys, from a generator seeded
    with (seed, index), made where the task runs."""
    if gpu:
        import cupy

        rng = cupy.random.default_rng(seed * 1_000_003 + index)
        if kind == "float32":
            out = rng.random(size, dtype=cupy.float32)
        else:
            out = (rng.random(size, dtype=cupy.float64) * 2.0**32).astype(cupy.uint32)
        return _synchronized(gpu, out)
    rng = np.random.default_rng([seed, index])
    if kind == "float32":
        return rng.random(size, dtype=np.float32)
    return rng.integers(0, 2**32, size, dtype=np.uint32)


def poisson_halo(r0, r1, m, width):
    """The columns rows [r0, r1) of the Poisson matrix touch: [max(0, r0 - width), min(m, r1 +
    width)), every one of them when the block has at least ``width`` rows."""
    return max(0, r0 - width), min(m, r1 + width)


def poisson_block(r0, r1, m, width, gpu):
    """Rows [r0, r1) of the 2-D Poisson matrix (5-point stencil: 4 on the diagonal, -1 for each
    neighbour on a grid ``width`` points wide, ``m // width`` high) as a
    ``primitives.sparse.CSR`` over the block's halo, built where the task runs."""
    import primitives as prim

    xp = _xp(gpu)
    if gpu:
        import cupyx.scipy.sparse as sparse
    else:
        import scipy.sparse as sparse
    h0, h1 = poisson_halo(r0, r1, m, width)
    rows = xp.arange(r0, r1, dtype=xp.int64)
    gi, gj = rows // width, rows % width
    offsets = xp.asarray([-width, -1, 0, 1, width], dtype=xp.int64)
    valid = xp.stack(
        [gi > 0, gj > 0, xp.ones(rows.shape, dtype=bool), gj < width - 1, gi < m // width - 1],
        axis=1,
    )
    row, k = xp.nonzero(valid)  # row-major: each row's columns ascending
    indices = (rows[row] + offsets[k] - h0).astype(xp.int32)
    data = xp.where(offsets == 0, 4.0, -1.0).astype(xp.float32)[k]
    indptr = xp.concatenate([xp.zeros(1, xp.int64), xp.cumsum(valid.sum(axis=1))])
    block = sparse.csr_matrix((data, indices, indptr.astype(xp.int32)), shape=(r1 - r0, h1 - h0))
    return _synchronized(gpu, prim.sparse.CSR(block))


def digest(chunk, offset, positions):
    """A chunk's part of a result's fingerprint: the sums (mod 2^64) of its elements' bits and of
    those times their global position + 1 (exact, whatever the chunking), the float64 sum of its
    values, and its values at the global ``positions`` it holds (host)."""
    from primitives._core.backend import to_host

    xp = _xp(hasattr(chunk, "__cuda_array_interface__"))
    chunk = xp.asarray(chunk).reshape(-1)  # a 0-d result as one element
    bits = chunk.view(f"u{chunk.dtype.itemsize}").astype(xp.uint64)
    pos = xp.arange(offset + 1, offset + 1 + chunk.shape[0], dtype=xp.uint64)
    s1, s2 = int(bits.sum(dtype=xp.uint64)), int((bits * pos).sum(dtype=xp.uint64))
    local = positions - offset
    values = to_host(chunk[xp.asarray(local)]) if local.size else np.empty(0, chunk.dtype)
    return s1, s2, float(chunk.sum(dtype=xp.float64)), values


# ---- the client side ----------------------------------------------------------------------------


@dataclasses.dataclass
class Fingerprint:
    dtype: np.dtype
    checksums: tuple  # (sum of bits, sum of bits * (position + 1)), mod 2^64
    total: float  # float64 sum of the values
    values: np.ndarray  # at the sampled positions

    def compare(self, ref):
        """ "exact", "close (...)" or "**differs** (...)" against the reference ``ref``."""
        if self.checksums == ref.checksums and self.dtype == ref.dtype:
            return "exact"
        if self.dtype.kind not in "fc" or self.values.shape != ref.values.shape:
            return "**differs**"
        scale = max(
            float(np.max(np.abs(ref.values), initial=0.0)),
            abs(ref.total) / max(ref.values.size, 1),
            np.finfo(np.float32).tiny,
        )
        err = max(
            float(np.max(np.abs(self.values.astype(np.float64) - ref.values), initial=0.0)) / scale,
            abs(self.total - ref.total) / max(abs(ref.total), scale),
        )
        return f"close ({err:.1e})" if err <= RTOL else f"**differs** ({err:.1e})"


def fingerprint(client, result):
    """The fingerprint of a persisted 1-D (or 0-d) Dask array, computed on its workers."""
    import dask

    if result.ndim == 0:
        result = result.reshape(1)
    n = result.shape[0]
    positions = np.unique(np.linspace(0, n - 1, min(SAMPLES, n)).astype(np.int64))
    lens = [int(c) for c in result.chunks[0]]
    offsets = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    cuts = np.searchsorted(positions, offsets)
    parts = [
        dask.delayed(digest, pure=True)(b, int(o), positions[a:e])
        for b, o, a, e in zip(result.to_delayed().ravel(), offsets, cuts[:-1], cuts[1:])
    ]
    parts = client.gather(client.compute(parts))
    mask = (1 << 64) - 1
    return Fingerprint(
        np.dtype(result.dtype),
        (sum(p[0] for p in parts) & mask, sum(p[1] for p in parts) & mask),
        sum(p[2] for p in parts),
        np.concatenate([p[3] for p in parts]),
    )


class Inputs:
    """The inputs of a run, made on the workers of ``client`` and kept while they are in use."""

    def __init__(self, client, workers, scale, seed, gpu):
        self.client, self.workers, self.scale, self.seed, self.gpu = (
            client,
            workers,
            scale,
            seed,
            gpu,
        )
        self._key, self._value = None, None

    def _owner(self, i, count):
        """Chunk i of ``count`` goes to a worker in contiguous runs of equal length."""
        return self.workers[i * len(self.workers) // count]

    def _meta(self, dtype):
        return _xp(self.gpu).empty(0, dtype)

    def _array(self, kind, n, chunk, seed):
        import dask.array as da

        sizes = [min(chunk, n - s) for s in range(0, n, chunk)]
        futures = [
            self.client.submit(
                make_chunk,
                kind,
                seed,
                i,
                size,
                self.gpu,
                key=f"dask-scaling-{kind}-{seed}-{n}-{chunk}-{i}",
                workers=[self._owner(i, len(sizes))],
            )
            for i, size in enumerate(sizes)
        ]
        # persisted, as a user holds an array on a cluster: its chunks are the futures' data,
        # and a call's graph starts from them (no aliasing tasks in front of the work)
        x = self.client.persist(
            da.concatenate(
                [
                    da.from_delayed(f, (size,), dtype=kind, meta=self._meta(kind))
                    for f, size in zip(futures, sizes)
                ]
            )
        )
        return futures + [x], x

    def get(self, op, n):
        """The input of ``op`` at size ``n`` (rows for spmv), made once and waited for."""
        from distributed import wait

        kind = {"sort": "uint32", "spmv": "spmv"}.get(op, "float32")
        if self._key != (kind, n):
            self._key = self._value = None  # release the previous input first
            if kind == "spmv":
                futures, value = self._poisson(n)
            else:
                futures, value = self._array(kind, n, self.scale.chunk, self.seed)
            wait(futures)
            self._key, self._value = (kind, n), value
        return self._value

    def _poisson(self, m):
        """(futures, (A, x)): the Poisson matrix of ``m`` rows as a ``primitives.dask.CSR`` whose
        row blocks were built on their workers, and x, chunked as its rows."""
        import primitives.dask as pd

        sc = self.scale
        width, r = sc.grid_width, sc.row_chunk
        assert m % width == 0 and r >= width, (m, width, r)
        bounds = [(s, min(s + r, m)) for s in range(0, m, r)]
        blocks = [
            self.client.submit(
                poisson_block,
                r0,
                r1,
                m,
                width,
                self.gpu,
                key=f"dask-scaling-poisson-{m}-{width}-{r0}-{r1}",
                workers=[self._owner(i, len(bounds))],
            )
            for i, (r0, r1) in enumerate(bounds)
        ]
        xf, x = self._array("float32", m, r, self.seed + 1)
        # the matrix made of its blocks where they live (their halos known here)
        A = pd.CSR.from_delayed(
            blocks,
            [np.arange(*poisson_halo(r0, r1, m, width), dtype=np.int64) for r0, r1 in bounds],
            m,
            np.float32,
            row_chunks=[r1 - r0 for r0, r1 in bounds],
            nnz=5 * m - 2 * width - 2 * (m // width),
        )  # 5 per row less the grid's boundary
        return blocks + xf, (A, x)


def _call(op, data):
    """The lazy result of ``op`` on its input (the sort's eager splitter step runs here)."""
    import primitives.dask as pd

    if op == "sum":
        return pd.sum(data)
    if op == "cumsum":
        return pd.cumsum(data)
    if op == "histogram":
        return pd.histogram(data, HIST_BINS, HIST_RANGE)[0]
    if op == "sort":
        return pd.sort(data)
    return pd.spmv(*data)


def nbytes(op, n, data):
    """Bytes ``op`` must move at least once: input read, output written (SpMV: CSR arrays, x,
    y)."""
    if op in ("sum", "histogram"):
        return 4 * n
    if op in ("cumsum", "sort"):
        return 8 * n
    A = data[0]
    return 8 * A.nnz + 4 * (n + 1) + 8 * n


def timed(client, op, data, warmup, repeat, min_time=0.0, held=None):
    """(median wall seconds, the last result persisted): call to result on the workers;
    ``repeat`` timed calls at least, more (up to ``MAX_REPEAT``) until they take ``min_time``
    seconds in all (short calls vary by milliseconds with the scheduler's timing)."""
    from distributed import wait

    times, out, i = [], None, 0
    held = _scheduler_tasks(client) if held is None else held  # the inputs' tasks
    while len(times) < repeat or (sum(times) < min_time and len(times) < MAX_REPEAT):
        out = None  # the previous result released first ...
        _settle(client, held)  # ... and gone: a call on keys still in memory would not compute
        t0 = time.perf_counter()
        out = client.persist(_call(op, data))
        wait(out)
        if i >= warmup:
            times.append(time.perf_counter() - t0)
        i += 1
    return statistics.median(times), out


def _task_count(dask_scheduler=None):
    return len(dask_scheduler.tasks)


def _scheduler_tasks(client):
    return client.run_on_scheduler(_task_count)


def _settle(client, count, timeout=30.0, collect_after=0.05):
    """Wait until the scheduler holds no more than ``count`` tasks: the results and
    intermediates of the calls before released. The calls are pure (their keys are their
    inputs' tokens), so a call made while the last one's results are still held would take
    them without computing. Futures of dropped results that only reference cycles still hold
    are freed by a garbage collection, run once when the tasks are not released within
    ``collect_after`` seconds (a full collection takes about 0.1 s in a large process, more
    than the release of the tasks the client has let go of)."""
    start = time.monotonic()
    end, collected = start + timeout, False
    while _scheduler_tasks(client) > count:
        if not collected and time.monotonic() > start + collect_after:
            gc.collect()  # the futures of dropped results held in reference cycles
            collected = True
        if time.monotonic() > end:
            raise RuntimeError(
                f"the scheduler still holds more than {count} tasks after {timeout} s"
            )
        time.sleep(0.002)


def task_profile(client, op, data, held):
    """One more call of ``op`` under Dask's task stream: (wall seconds, seconds from the first
    task's start to the last one's end on the workers, {task group: [tasks, compute seconds,
    transfer seconds, other seconds, first start, last end]}), the groups by key prefix, the
    eager steps' tasks included, the times from the first task's start; ``held``: the tasks
    the scheduler holds for the inputs (the call starts once the others are released)."""
    from dask.utils import key_split
    from distributed import get_task_stream, wait

    _settle(client, held)
    with get_task_stream(client) as ts:
        t0 = time.perf_counter()
        out = client.persist(_call(op, data))
        wait(out)
        wall = time.perf_counter() - t0
    del out
    groups, first, last = {}, float("inf"), float("-inf")
    for rec in ts.data:
        g = groups.setdefault(
            key_split(rec["key"]), [0, 0.0, 0.0, 0.0, float("inf"), float("-inf")]
        )
        g[0] += 1
        for ss in rec.get("startstops", ()):
            g[{"compute": 1, "transfer": 2}.get(ss["action"], 3)] += ss["stop"] - ss["start"]
            g[4], g[5] = min(g[4], ss["start"]), max(g[5], ss["stop"])
            first, last = min(first, ss["start"]), max(last, ss["stop"])
    for g in groups.values():  # the group's first start and last end from the first task's start
        g[4], g[5] = g[4] - first, g[5] - first
    return wall, max(0.0, last - first), groups


def profile_lines(op, scaling, k, prof):
    """Markdown lines of a :func:`task_profile`."""
    wall, span, groups = prof
    lines = [
        f"{op} {scaling}, {k} worker(s): wall {wall * 1e3:.2f} ms, tasks from first start "
        f"to last end {span * 1e3:.2f} ms",
        "",
        "| task group | tasks | compute ms | transfer ms | other ms | from ms | to ms |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, (count, comp, tran, other, t0, t1) in sorted(groups.items(), key=lambda g: g[1][4]):
        lines.append(
            f"| {name} | {count} | {comp * 1e3:.2f} | {tran * 1e3:.2f} | "
            f"{other * 1e3:.2f} | {t0 * 1e3:.2f} | {t1 * 1e3:.2f} |"
        )
    return lines + [""]


# ---- clusters -----------------------------------------------------------------------------------


@contextlib.contextmanager
def cluster(
    kind, workers, devices=None, protocol="tcp", processes=False, rmm_pool=None, nvlink=False
):
    """(client, worker addresses in worker order, description) on a fresh cluster."""
    import distributed

    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    # worker processes import this module's tasks from the checkout
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    )
    if kind == "cpu":
        cl = distributed.LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=processes, dashboard_address=None
        )
        what = (
            f"distributed.LocalCluster, {workers} single-threaded workers"
            f"{' (processes)' if processes else ' in one process'}, NumPy chunks"
        )
    else:
        os.environ["NCCL_NVLS_ENABLE"] = "0"  # NVLink multicast off, before any worker starts
        devices = list(devices if devices is not None else range(workers))[:workers]
        if len(devices) < workers:
            raise ValueError(f"{workers} workers need {workers} GPUs, --devices gives {devices}")
        cl, what = _gpu_cluster(workers, devices, protocol, rmm_pool, nvlink)
    with cl, distributed.Client(cl) as client:
        client.wait_for_workers(workers)
        info = client.scheduler_info()["workers"]
        # in the order of the workers' names (0, 1, ...: worker i on the i-th GPU)
        addrs = sorted(
            info, key=lambda a: (len(str(info[a].get("name"))), str(info[a].get("name")), a)
        )
        yield client, addrs, what


def _gpu_cluster(workers, devices, protocol, rmm_pool=None, nvlink=False):
    """(cluster, description): one worker per GPU, worker i seeing ``devices[i]`` first."""
    try:
        from dask_cuda import LocalCUDACluster  # only here: the CPU path runs without it
    except ImportError:
        LocalCUDACluster = None
    gpus = ",".join(map(str, devices))
    if LocalCUDACluster is not None:
        # with an RMM pool, CuPy allocates from it too: buffers received over UCX and the
        # chunks' own memory come from one region, whose IPC mappings UCX keeps
        pool = (
            {}
            if rmm_pool is None
            else {"rmm_pool_size": rmm_pool, "rmm_allocator_external_lib_list": ["cupy"]}
        )
        if nvlink:  # UCX's CUDA IPC transport named (else UCX picks its transports itself)
            pool.update(enable_nvlink=True, enable_tcp_over_ucx=True)
        cl = LocalCUDACluster(
            n_workers=workers,
            CUDA_VISIBLE_DEVICES=devices,
            protocol=protocol,
            dashboard_address=None,
            **pool,
        )
        return cl, (
            f"dask_cuda.LocalCUDACluster, {workers} workers on GPUs {gpus}, protocol "
            f"{protocol}{' (NVLink enabled)' if nvlink else ''}, NCCL_NVLS_ENABLE=0, "
            f"{'CuPy pool' if rmm_pool is None else f'RMM pool of {rmm_pool} (CuPy on it)'}"
            f", CuPy chunks"
        )
    if protocol != "tcp" or rmm_pool is not None or nvlink:
        raise ValueError(
            f"protocol {protocol}, --rmm-pool and --nvlink need dask_cuda, which is not installed"
        )
    # what LocalCUDACluster does for the placement: a nanny per GPU whose worker sees that GPU
    # first (CUDA_VISIBLE_DEVICES rotated), one thread each
    from distributed import Nanny, Scheduler, SpecCluster

    print("dask_cuda is not installed: a SpecCluster of one nanny per GPU instead", file=sys.stderr)
    spec = {}
    for i in range(workers):
        order = devices[i:] + devices[:i]
        spec[i] = {
            "cls": Nanny,
            "options": {
                "nthreads": 1,
                "env": {"CUDA_VISIBLE_DEVICES": ",".join(map(str, order)), "NCCL_NVLS_ENABLE": "0"},
            },
        }
    cl = SpecCluster(workers=spec, scheduler={"cls": Scheduler, "options": {"dashboard": False}})
    return cl, (
        f"distributed.SpecCluster (dask_cuda not installed), {workers} nanny workers "
        f"on GPUs {gpus}, protocol tcp, NCCL_NVLS_ENABLE=0, CuPy chunks"
    )


def _worker_device():
    import primitives as prim

    info = prim.backend_info()
    return f"{info['device']} ({info['backend']})"


# ---- the run ------------------------------------------------------------------------------------


def _size(n):
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def plan(ops, workers, scale):
    """The runs per worker count: (op, scaling, n), n in rows for spmv; and the untimed
    reference runs of the smallest worker count (the weak-scaling inputs of the others)."""

    def size(op, scaling, k):
        if op == "spmv":
            return scale.rows_per_worker * k if scaling == "weak" else scale.total_rows
        return scale.per_worker * k if scaling == "weak" else scale.total

    runs = {k: [(op, s, size(op, s, k)) for s in SCALINGS for op in ops] for k in workers}
    first = min(workers)
    have = {(op, n) for op, _, n in runs[first]}
    extra = sorted(
        {(op, n) for k in workers for op, _, n in runs[k] if (op, n) not in have},
        key=lambda c: (ops.index(c[0]), c[1]),
    )
    return runs, extra


def scale_of(args):
    """The :class:`Scale` of ``--scale``, with ``--chunk`` and ``--row-chunk`` when given."""
    sc = SCALES[args.scale]
    if getattr(args, "chunk", None) is not None:
        sc = dataclasses.replace(sc, chunk=args.chunk)
    if getattr(args, "row_chunk", None) is not None:
        sc = dataclasses.replace(sc, row_chunk=args.row_chunk)
    if getattr(args, "min_time", None) is not None:
        sc = dataclasses.replace(sc, min_time=args.min_time)
    return sc


def run(args):
    """Every run of ``args``; returns (records, header lines)."""
    scale = scale_of(args)
    gpu = args.cluster == "cuda"
    workers = sorted(set(args.workers))
    ops = list(args.ops)
    runs, extra = plan(ops, workers, scale)
    records, refs, header = [], {}, []
    profiles = [] if getattr(args, "profile", None) else None
    for k in workers:
        with cluster(
            args.cluster, k, args.devices, args.protocol, args.processes, args.rmm_pool, args.nvlink
        ) as (client, addrs, what):
            device = client.run(_worker_device, workers=addrs[:1])[addrs[0]]
            header.append(f"{k} worker(s): {what}; device {device}")
            print(header[-1], flush=True)
            inputs = Inputs(client, addrs, scale, args.seed, gpu)
            for op, scaling, n in runs[k]:
                data = inputs.get(op, n)
                held = _scheduler_tasks(client)
                sec, out = timed(client, op, data, scale.warmup, scale.repeat, scale.min_time, held)
                fp = fingerprint(client, out)
                del out
                if profiles is not None:
                    profiles += profile_lines(op, scaling, k, task_profile(client, op, data, held))
                ref = refs.setdefault((op, n), (k, fp))
                rec = dict(
                    op=op,
                    scaling=scaling,
                    workers=k,
                    n=n,
                    ms=sec * 1e3,
                    gbs=nbytes(op, n, data) / sec / 1e9 / k,
                    same="reference" if ref[0] == k else fp.compare(ref[1]),
                )
                records.append(rec)
                print(
                    f"{op} {scaling} workers={k} n={_size(n)}: {rec['ms']:.2f} ms, "
                    f"{_gbs(rec['gbs'])} GB/s per worker, {rec['same']}",
                    flush=True,
                )
                data = None  # the input is released when the next one replaces it
            if k == workers[0]:
                for op, n in extra:  # references for the other worker counts' inputs
                    out = client.persist(_call(op, inputs.get(op, n)))
                    refs[(op, n)] = (k, fingerprint(client, out))
                    del out
            del inputs
    _efficiency(records)
    if profiles is not None:
        with open(args.profile, "w") as f:
            f.write("\n".join(header + [""] + profiles))
    return records, header


def _efficiency(records):
    """Efficiency against the one-worker run of the same op and scaling, and the targets."""
    one = {(r["op"], r["scaling"]): r for r in records if r["workers"] == 1}
    for r in records:
        base = one.get((r["op"], r["scaling"]))
        r["efficiency"] = None
        if base is not None:
            k = r["workers"]
            r["efficiency"] = (
                base["ms"] / r["ms"] if r["scaling"] == "weak" else base["ms"] / (k * r["ms"])
            )
        target = TARGETS.get(r["op"])
        r["target"] = (
            target
            if (r["scaling"] == "weak" and r["workers"] == TARGET_WORKERS and target is not None)
            else None
        )


COLUMNS = [
    "op",
    "scaling",
    "workers",
    "n",
    "time ms",
    "GB/s per GPU",
    "efficiency",
    "target",
    "met",
    "same result as the fewest workers",
]


def _gbs(v):
    return f"{v:.1f}" if v >= 10 else f"{v:.3g}"


def table(records):
    """The Markdown table of ``records``."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    order = {op: i for i, op in enumerate(OPS)}
    for r in sorted(
        records, key=lambda r: (order[r["op"]], SCALINGS.index(r["scaling"]), r["workers"])
    ):
        eff, target = r["efficiency"], r["target"]
        met = "" if target is None or eff is None else ("yes" if eff >= target else "**no**")
        n = _size(r["n"]) + (" rows" if r["op"] == "spmv" else "")
        lines.append(
            "| "
            + " | ".join(
                [
                    r["op"],
                    r["scaling"],
                    str(r["workers"]),
                    n,
                    f"{r['ms']:.2f}",
                    _gbs(r["gbs"]),
                    "" if eff is None else f"{100 * eff:.0f}%",
                    "" if target is None else f">= {100 * target:.0f}%",
                    met,
                    r["same"],
                ]
            )
            + " |"
        )
    return lines


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.figures.dask_scaling", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument(
        "--workers",
        type=int,
        nargs="+",
        default=[1, 2],
        help="worker counts, one cluster each (one GPU per worker)",
    )
    ap.add_argument("--out", default=None, help="the Markdown table")
    ap.add_argument("--scale", choices=sorted(SCALES), default="full")
    ap.add_argument("--cluster", choices=["cuda", "cpu"], default="cuda")
    ap.add_argument("--ops", nargs="+", choices=OPS, default=list(OPS))
    ap.add_argument(
        "--devices",
        type=int,
        nargs="+",
        default=None,
        help="GPUs handed to the workers, worker i the i-th (default 0, 1, ...)",
    )
    ap.add_argument(
        "--protocol",
        choices=["tcp", "ucx"],
        default="tcp",
        help="dask_cuda's transport between workers",
    )
    ap.add_argument(
        "--processes",
        action="store_true",
        help="--cluster cpu: workers in processes (default: threads of this one)",
    )
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument(
        "--chunk",
        type=int,
        default=None,
        help="elements per chunk (default: the scale's; a power of two dividing the "
        "per-worker size keeps every worker's share whole chunks)",
    )
    ap.add_argument(
        "--row-chunk",
        type=int,
        default=None,
        help="SpMV rows per block (default: the scale's; a multiple of the grid width)",
    )
    ap.add_argument(
        "--rmm-pool",
        default=None,
        help="each GPU worker's RMM pool size (e.g. 64GB), CuPy allocating from it "
        "(default: CuPy's own pool)",
    )
    ap.add_argument(
        "--nvlink",
        action="store_true",
        help="--protocol ucx: enable dask_cuda's NVLink (UCX's CUDA IPC) transport",
    )
    ap.add_argument(
        "--min-time",
        type=float,
        default=None,
        help="more timed calls of a short op, until they take this many seconds "
        f"(at most {MAX_REPEAT}; default: the scale's)",
    )
    ap.add_argument(
        "--profile",
        default=None,
        help="write here, for every run, one more call's tasks from Dask's task "
        "stream: per task group the count and the workers' compute and "
        "transfer time",
    )
    args = ap.parse_args(argv)
    if min(args.workers) < 1:
        ap.error("--workers must be positive")
    sc = scale_of(args)
    for name, v in (("--chunk", sc.chunk), ("--row-chunk", sc.row_chunk)):
        if v < 1:
            ap.error(f"{name} must be positive")
    if args.rmm_pool is not None and args.cluster != "cuda":
        ap.error("--rmm-pool needs --cluster cuda")
    if args.nvlink and args.protocol != "ucx":
        ap.error("--nvlink needs --protocol ucx")
    if sc.row_chunk % sc.grid_width:
        ap.error(f"--row-chunk must be a multiple of the grid width ({sc.grid_width})")
    records, header = run(args)
    lines = [
        f"primitives.dask scaling, --scale {args.scale} ({_size(sc.per_worker)} per worker "
        f"weak, {_size(sc.total)} in all strong, chunks of {_size(sc.chunk)}; SpMV "
        f"{_size(sc.rows_per_worker)} rows per worker weak, {_size(sc.total_rows)} strong), "
        f"{datetime.date.today().isoformat()}; wall-clock medians of at least {sc.repeat} "
        f"runs (more, up to {MAX_REPEAT}, until {sc.min_time:g} s of them) after "
        f"{sc.warmup} warm-up(s), each from its inputs alone on the cluster",
        *header,
        "",
        *table(records),
    ]
    text = "\n".join(lines)
    print("\n" + text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return records


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
