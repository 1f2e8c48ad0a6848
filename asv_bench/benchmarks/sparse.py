"""SpMV benchmarks (the workloads of ``primitives/testing/workloads/sparse.py``): every variant of
``primitives.spmv`` on the suite matrices at full size (>= 2^22 rows), and cuSPARSE
(``cupyx.scipy.sparse`` CSR @ x) as the peer.

GPU only (see ``_common``). Times are medians of CUDA-event timings of 30 calls after 5 warm-up
calls; GB/s counts the format's arrays (its footprint) plus x and y once, and
``track_footprint_mb`` records the footprint itself. The matrices come from
``primitives.testing.matrices`` (the test suite's generators); a tree without it skips these.
"""

import importlib

import numpy as np

from ._common import _Timed, module_attr, public, require_cuda, require_cupy, variants, workloads

spec = workloads("sparse")
MATRICES, DTYPES = list(spec.SUITE.params["matrices"]), list(spec.SUITE.dtypes)


def _suite():
    try:
        return importlib.import_module("primitives.testing.matrices")
    except ImportError as exc:
        raise NotImplementedError("this tree has no primitives.testing.matrices") from exc


def _device_matrix(name, dtype):
    cupy = require_cupy()
    import cupyx.scipy.sparse as cusparse

    suite = _suite()
    if name not in suite.SUITE:
        raise NotImplementedError(f"no suite matrix {name!r} in this tree")
    scale = spec.SUITE.params["scale"]
    data, indices, indptr, shape = suite.csr_arrays(name, np.dtype(dtype), scale, xp=cupy)
    A = cusparse.csr_matrix((data, indices.astype(np.int32), indptr.astype(np.int32)), shape=shape)
    x = suite.values(shape[1], np.dtype(dtype), xp=cupy, seed=5)
    return A, x


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


class Spmv(_Module):
    """``prim.spmv(A, x, variant=v)`` with A in the variant's format."""

    params = [variants("sparse spmv") + ["auto"], MATRICES, DTYPES]
    param_names = ["variant", "matrix", "dtype"]

    def prepare(self, variant, matrix, dtype):
        require_cuda()
        spmv, sparse = public("spmv"), public("sparse")
        fmt = module_attr("sparse spmv", "FORMAT_OF", {}).get(variant, "csr")
        A, self.x = _device_matrix(matrix, dtype)
        csr = sparse.CSR(A)
        try:
            self.A = {
                "csr": lambda: csr,
                "ell": lambda: sparse.ELL(csr),
                "coo": lambda: sparse.COO(csr),
                "hyb": lambda: sparse.HYB(csr),
            }[fmt]()
        except ValueError as exc:  # ELL refused: a few long rows
            raise NotImplementedError(str(exc)) from exc
        self.bytes = self.A.nbytes + sum(csr.shape) * np.dtype(dtype).itemsize
        self.fn = lambda: spmv(self.A, self.x, variant=variant)
        self.extra = {"footprint_mb": self.A.nbytes / 1e6}
        self.fn()  # compile, plan, row statistics
        require_cupy().cuda.get_current_stream().synchronize()

    def track_footprint_mb(self, cache, variant, matrix, dtype):
        """The matrix's arrays in the variant's format, MB."""
        return self._entry(cache, (variant, matrix, dtype))[3]["footprint_mb"]

    track_footprint_mb.unit = "MB"


class CuSparse(_Module):
    """The peer: ``cupyx.scipy.sparse.csr_matrix @ x`` on the same matrices."""

    params = [MATRICES, DTYPES]
    param_names = ["matrix", "dtype"]

    def prepare(self, matrix, dtype):
        A, self.x = _device_matrix(matrix, dtype)
        self.A = A
        self.bytes = (
            A.data.nbytes
            + A.indices.nbytes
            + A.indptr.nbytes
            + sum(A.shape) * np.dtype(dtype).itemsize
        )
        self.fn = lambda: self.A @ self.x
        self.fn()
        require_cupy().cuda.get_current_stream().synchronize()
