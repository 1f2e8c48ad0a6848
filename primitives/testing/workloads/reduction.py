"""The reduction family's workloads."""

from . import Workload

#: the ladder: every variant on float32 sums (the tour's first section, the figures' ladder table)
LADDER = Workload(n=2**26, small=2**14)

#: the production kernel against CuPy and CUB on the (op, dtype) ``cases`` at ``n``; the asv
#: suite times the sum of every variant and of the peers over ``sizes`` and ``dtypes``
PRODUCTION = Workload(
    n=2**28,
    small=2**14,
    dtypes=("float32", "int32", "float64"),
    sizes=(2**20, 2**24, 2**28),
    variants=("production",),
    peers=("cupy", "cub"),
    params={"cases": (("sum", "float32"), ("max", "float32"), ("sum", "int32"))},
)

#: NumPy's everyday reductions against CuPy's twins, as the tour checks them: n elements, a
#: C-ordered matrix of ``cols`` columns (``small_cols`` on the emulator) for the axis sums
API = Workload(n=2**28, small=2**14, peers=("cupy",), params={"cols": 2**12, "small_cols": 2**6})

#: and as the asv suite times them, by case: (function, dtype, data, shape, axis, order)
API_CASES = {
    "sum bool 2^30": ("sum", "bool", "half", (2**30,), None, "C"),
    "sum int8 2^30": ("sum", "int8", "positive", (2**30,), None, "C"),
    "sum(axis=0) C (2^16, 2^12) float32": ("sum", "float32", "positive", (2**16, 2**12), 0, "C"),
    "sum(axis=0) F (2^16, 2^12) float32": ("sum", "float32", "positive", (2**16, 2**12), 0, "F"),
    "sum(axis=1) rows of 2, 2^27 float32": ("sum", "float32", "positive", (2**26, 2), 1, "C"),
    "argmax 2^28 float32": ("argmax", "float32", "positive", (2**28,), None, "C"),
    "argmin 2^28 float32": ("argmin", "float32", "positive", (2**28,), None, "C"),
    "prod 2^28 float32": ("prod", "float32", "near1", (2**28,), None, "C"),
    "mean 2^28 float32": ("mean", "float32", "positive", (2**28,), None, "C"),
}

#: complex64 ``max`` and ``argmax`` (NumPy's lexicographic order, one pass) against CuPy's (the
#: parity issue asks no slower)
COMPLEX = Workload(
    n=2**27,
    small=2**14,
    dtypes=("complex64",),
    data="bits",
    peers=("cupy",),
    params={"functions": ("max", "argmax")},
)
