"""Shared by the primitives.dask tests: one distributed cluster per test process, the awkward
chunkings, and Dask arrays of the backend's chunks.

The cluster: two single-threaded workers in this process with NumPy chunks on the emulator; on a
GPU one dask-cuda worker with CuPy chunks when dask-cuda is installed (else one worker in this
process). It is started once, for the first test that asks for ``client``, and serves every test
after it that asks, as the scheduler of Dask's computations during those tests only. A test that
counts tasks or asks where they ran looks only at its own calls (a task stream opened around
them, the keys of its own arrays), never at the cluster's history.
"""

import pytest

from primitives._core import backend as _backend

#: chunkings of awkward sizes: tiles split unevenly, empty chunks, one-element chunks
CHUNKINGS = [(1,), (31,), (33, 0, 31), (0, 32, 1, 0, 4095), (4097, 1, 2047)]


@pytest.fixture(scope="session")
def _cluster_client():
    distributed = pytest.importorskip("distributed")
    # no dashboard; the scheduler's HTTP server on a free port, not on 8787, which a cluster
    # started while this one lives (tools.figures.dask_scaling's) takes
    in_process = dict(
        processes=False,
        threads_per_worker=1,
        dashboard_address=None,
        scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
    )
    if _backend.get_backend().is_cuda:
        try:
            from dask_cuda import LocalCUDACluster
        except ImportError:
            cluster = distributed.LocalCluster(n_workers=1, **in_process)
        else:
            cluster = LocalCUDACluster(n_workers=1, dashboard_address=None)
    else:
        cluster = distributed.LocalCluster(n_workers=2, **in_process)
    # not the process's default scheduler: a test that does not ask for ``client`` computes on
    # Dask's local schedulers, whichever tests ran before it
    with cluster, distributed.Client(cluster, set_as_default=False) as c:
        # every worker registered (and the client's view of the scheduler refreshed) before a
        # test asks how many there are
        c.wait_for_workers(len(cluster.workers))
        yield c


@pytest.fixture
def client(_cluster_client):
    """The session's client, the scheduler of Dask's computations during the test."""
    with _cluster_client.as_current():
        yield _cluster_client


def chunked(host, chunks):
    """A Dask array of ``host`` with ``chunks``: CuPy chunks on a GPU, NumPy on the emulator."""
    import dask.array as da

    x = da.from_array(host, chunks=(tuple(chunks),) if not isinstance(chunks, int) else chunks)
    if _backend.get_backend().is_cuda:
        import cupy

        x = x.map_blocks(cupy.asarray, dtype=host.dtype, meta=cupy.empty(0, host.dtype))
    return x
