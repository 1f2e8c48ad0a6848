"""primitives.dask sort, argsort, topk and spmv on a Dask array, checked against NumPy/SciPy."""

import numpy as np
import scipy.sparse as sp

# begin-example
import dask
import dask.array as da

import primitives.dask as pd

rng = np.random.default_rng(0)
keys = rng.integers(0, 1000, 20_000).astype(np.int32)  # many equal keys
x = da.from_array(keys, chunks=(5000, 0, 7000, 8000))  # uneven chunks, one empty

with dask.config.set(scheduler="threads"):  # or a distributed / dask-cuda Client
    s = pd.sort(x)  # a sample sort: the splitters are computed here,
    print("sorted chunks:", s.chunks[0])  # so the output's chunk sizes are known
    assert np.array_equal(s.compute(), np.sort(keys))

    order = pd.argsort(x)  # stable: equal keys keep their input order
    assert np.array_equal(order.compute(), np.argsort(keys, kind="stable"))

    values, where = pd.topk(x, 5)  # the 5 largest, ties by lowest index
    assert np.array_equal(where.compute(), np.argsort(-keys, kind="stable")[:5])

    M = sp.random(2000, 20_000, density=1e-3, format="csr", random_state=0)
    A = pd.CSR(M, row_chunks=500)  # 4 row blocks, each over the columns it touches
    v = da.from_array(rng.standard_normal(20_000), chunks=5000)
    y = pd.spmv(A, v)  # chunked like A's rows
    assert y.chunks[0] == A.row_chunks
    assert np.allclose(y.compute(), M @ v.compute())

    # the same matrix from row blocks made by tasks (or already on the workers), with
    # their halos: nothing of it passes through the client
    def block(r0, r1):  # rows [r0, r1) over the columns they touch
        rows = M[r0:r1]
        halo = np.unique(rows.indices)
        local = sp.csr_matrix(
            (rows.data, np.searchsorted(halo, rows.indices), rows.indptr),
            shape=(r1 - r0, halo.size),
        )
        return local, halo

    bounds = [(0, 500), (500, 1200), (1200, 2000)]
    # known where the blocks are planned
    halos = [block(r0, r1)[1] for r0, r1 in bounds]
    lazy = [dask.delayed(lambda r0, r1: block(r0, r1)[0])(r0, r1) for r0, r1 in bounds]
    B = pd.CSR.from_delayed(
        lazy, halos, M.shape[1], M.dtype, row_chunks=[r1 - r0 for r0, r1 in bounds]
    )
    assert np.allclose(pd.spmv(B, v).compute(), M @ v.compute())
# end-example

print(
    "top 5:",
    values.compute(),
    "at",
    where.compute(),
    "| halo sizes:",
    [h.size for _, h in A.parts],
)
