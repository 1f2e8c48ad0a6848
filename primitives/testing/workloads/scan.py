"""The scan family's workloads."""

from . import Workload

#: inclusive sums, dtype to the same dtype, of every variant against cupy.cumsum and CUB
INCLUSIVE = Workload(
    n=2**28, small=2**14, dtypes=("int32", "float32"), sizes=(2**24, 2**28), peers=("cupy", "cub")
)

#: NumPy's scans against CuPy's twins, as the tour checks them: cumsum along each axis of an
#: int32 matrix of ``cols`` columns (``small_cols`` on the emulator) over n elements (int64
#: results, as NumPy's), cumprod of float64 near 1 over a quarter of them
API = Workload(
    n=2**28,
    small=2**14,
    dtypes=("int32",),
    peers=("cupy",),
    params={"cols": 2**16, "small_cols": 2**7},
)

#: and as the asv suite times them, by case: (function, dtype, data, shape, axis)
API_CASES = {
    "cumsum(axis=0) (2^12, 2^16) int32": ("cumsum", "int32", "positive", (2**12, 2**16), 0),
    "cumsum(axis=1) (2^12, 2^16) int32": ("cumsum", "int32", "positive", (2**12, 2**16), 1),
    "cumprod 2^26 float64": ("cumprod", "float64", "near1", (2**26,), None),
}
