"""Sparse matrix-vector products with primitives, checked against SciPy.

Runs on either backend: on a GPU the matrix and vectors are copied to the device and the result
comes back as NumPy (pass CuPy arrays and cupyx.scipy.sparse matrices to stay on the device).
"""

import numpy as np
import scipy.sparse as sps

# begin-example
import primitives as prim
from primitives.sparse import FORMAT_OF, VARIANTS

rng = np.random.default_rng(2026)
# a 2-D Poisson matrix (5-point stencil) on a 40 x 40 grid, plus one long row
k = 40
T = sps.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(k, k))
A = sps.kronsum(T, T).tolil()
A[7, :] = rng.random(k * k) + 0.5
A = A.tocsr().astype(np.float32)
x = rng.uniform(-1, 1, k * k).astype(np.float32)

# y = A @ x, with the kernel chosen from the row statistics
y = prim.spmv(A, x)
want = A.astype(np.float64) @ x.astype(np.float64)
assert y.dtype == np.float32 and np.allclose(y, want, rtol=1e-5, atol=1e-5)

# Build a container once for repeated products; every format holds the same matrix.
csr = prim.sparse.CSR(A)
stats = csr.row_stats()  # mean, max, cv, empty rows: what "auto" looks at
assert stats.max == k * k and stats.rows == k * k
hyb = prim.sparse.HYB(csr)  # ELL part + COO overflow (the long row)
assert hyb.coo.nnz > 0 and (hyb.to_scipy() != A).nnz == 0
try:
    prim.sparse.ELL(csr)  # one long row: padding every row to it is refused...
except ValueError as exc:
    print("ELL refused:", str(exc).split(";")[0])
forms = {
    "csr": csr,
    "hyb": hyb,
    "coo": prim.sparse.COO(csr),
    "ell": prim.sparse.ELL(csr, max_fill=None),
}  # ...unless asked for
for name, M in forms.items():
    print(f"{name:>4}: {M.nbytes:9d} bytes ({M.nbytes / csr.nbytes:5.2f} x CSR)")

# y <- alpha*A*x + beta*y, in place, with every variant on its format
y0 = rng.uniform(-1, 1, k * k).astype(np.float32)
for v in VARIANTS:
    y = y0.copy()
    prim.spmv(forms[FORMAT_OF[v]], x, y=y, alpha=2.0, beta=-1.0, variant=v)
    assert np.allclose(y, 2 * want - y0, rtol=1e-5, atol=1e-4), v

# Empty rows: ELL leaves them out when their padding would outweigh the rows, and keeps
# the stored rows' numbers in `rows` (skip_empty=True / False decides it for the
# caller).
B = A.tolil()
B[::2, :] = 0  # every other row empty, the long row 7 kept
B = B.tocsr()
B.eliminate_zeros()
ell = prim.sparse.ELL(B, max_fill=None)
assert ell.rows is not None and ell.stored_rows == k * k // 2
assert ell.nbytes < prim.sparse.ELL(B, max_fill=None, skip_empty=False).nbytes
y = y0.copy()
prim.spmv(ell, x, y=y, alpha=2.0, beta=-1.0)
assert np.allclose(y, 2 * (B.astype(np.float64) @ x) - y0, rtol=1e-5, atol=1e-4)
print(f"ELL of {ell.stored_rows} of {B.shape[0]} rows: {ell.nbytes} bytes")
# end-example

from primitives.sparse import choose_variant  # noqa: E402

print(
    f"auto runs {choose_variant(csr)} for this matrix; {len(VARIANTS)} variants agree with "
    f"SciPy; {stats}"
)
