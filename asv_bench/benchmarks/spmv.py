"""SpMV benchmarks: every variant of ``primitives.spmv`` on the suite matrices at full size
(>= 2^22 rows), and cuSPARSE (``cupyx.scipy.sparse`` CSR @ x) as the peer.

GPU only: on any other backend ``setup`` raises ``NotImplementedError``, which asv reports as a
skipped benchmark. Times are medians of CUDA-event timings of 30 calls after 5 warm-up calls
(``primitives._core.timing.bench``); GB/s counts the format's arrays (its footprint) plus x and y once,
and ``track_footprint_mb`` records the footprint itself.
"""

import numpy as np

import primitives as prim
from primitives.testing import matrices as _sparse_suite
from primitives import sparse
from primitives.spmv import FORMAT_OF, VARIANTS

from ._common import Timed, require_cuda

MATRICES = list(_sparse_suite.SUITE)
DTYPES = ["float32", "float64"]


def _device_matrix(name, dtype):
    import cupy

    data, indices, indptr, shape = _sparse_suite.csr_arrays(name, np.dtype(dtype), "full",
                                                            xp=cupy)
    csr = sparse.CSR._from_arrays(data, indices.astype(np.int32), indptr.astype(np.int32),
                                  shape)
    x = _sparse_suite.values(shape[1], np.dtype(dtype), xp=cupy, seed=5)
    return csr, x


class Spmv(Timed):
    """``prim.spmv(A, x, variant=v)`` with A in the variant's format."""

    params = [list(VARIANTS) + ["auto"], MATRICES, DTYPES]
    param_names = ["variant", "matrix", "dtype"]
    timeout = 900

    def setup(self, variant, matrix, dtype):
        require_cuda()
        import cupy

        csr, self.x = _device_matrix(matrix, dtype)
        fmt = FORMAT_OF.get(variant, "csr")
        try:
            self.A = {"csr": lambda: csr, "ell": lambda: sparse.ELL(csr),
                      "coo": lambda: sparse.COO(csr), "hyb": lambda: sparse.HYB(csr)}[fmt]()
        except ValueError as exc:  # ELL refused: a few long rows
            raise NotImplementedError(str(exc)) from exc
        self.bytes = self.A.nbytes + (sum(csr.shape)) * np.dtype(dtype).itemsize
        self.fn = lambda: prim.spmv(self.A, self.x, variant=variant)
        self.fn()  # compile, plan, row statistics
        cupy.cuda.get_current_stream().synchronize()

    def teardown(self, variant, matrix, dtype):
        self.A = self.x = self.fn = None


    def track_footprint_mb(self, variant, matrix, dtype):
        return self.A.nbytes / 1e6

    track_footprint_mb.unit = "MB"


class CuSparse(Timed):
    """The peer: ``cupyx.scipy.sparse.csr_matrix @ x`` on the same matrices."""

    params = [MATRICES, DTYPES]
    param_names = ["matrix", "dtype"]
    timeout = 900

    def setup(self, matrix, dtype):
        require_cuda()
        import cupy

        csr, self.x = _device_matrix(matrix, dtype)
        self.A = csr.to_cupy()
        self.bytes = csr.nbytes + sum(csr.shape) * np.dtype(dtype).itemsize
        self.fn = lambda: self.A @ self.x
        self.fn()
        cupy.cuda.get_current_stream().synchronize()

    def teardown(self, matrix, dtype):
        self.A = self.x = self.fn = None

