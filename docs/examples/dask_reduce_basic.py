"""primitives.dask reductions, scans and histograms of a Dask array, checked against NumPy."""

import numpy as np

# begin-example
import dask
import dask.array as da

import primitives.dask as pd

rng = np.random.default_rng(0)
host = rng.standard_normal((600, 500)).astype(np.float32)
x = da.from_array(host, chunks=((200, 0, 400), (128, 372)))  # uneven chunks, one empty

with dask.config.set(scheduler="threads"):  # or a distributed / dask-cuda Client
    total, col_max, where = dask.compute(pd.sum(x), pd.max(x, axis=0), pd.argmin(x))
    assert np.isclose(total, host.sum(), rtol=1e-4, atol=1e-2)
    assert np.array_equal(col_max, host.max(axis=0))
    assert where == host.argmin()  # an index into the flattened array, as NumPy's

    hist, edges = pd.histogram(x, bins=64)  # no range: one min/max pass finds it here
    h_np, e_np = np.histogram(host, bins=64)
    assert np.array_equal(edges, e_np)  # NumPy's edges, exactly
    assert np.array_equal(hist.compute(), h_np)

    labels = da.from_array(rng.integers(0, 10, 5000), chunks=1000)
    assert np.array_equal(pd.bincount(labels).compute(), np.bincount(labels.compute()))

    running = pd.cumsum(labels)  # each chunk's scan continues from the ones before
    assert np.array_equal(running.compute(), np.cumsum(labels.compute()))
    assert running.chunks == labels.chunks
    col_scan = pd.cumsum(x, axis=0)  # along an axis: a scan of every column
    assert np.allclose(
        col_scan.compute(), np.cumsum(host, axis=0), rtol=1e-4, atol=1e-3
    )
# end-example

print(
    "sum:",
    total,
    "| argmin:",
    where,
    "| fullest bin:",
    int(hist.compute().max()),
    "| labels' running total:",
    int(running[-1].compute()),
)
