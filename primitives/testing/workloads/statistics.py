"""The statistics family's workloads."""

from . import Workload

#: the headline reductions over every element of n float32 (uniform in [0, 1), every ``nan``-th
#: element NaN for the nan-functions), each against its CuPy and torch twins; the issue's targets:
#: ``read_fraction`` of the copy rate for each, and var ``speedup`` times faster than cupy.var
FLAT = Workload(
    n=2**28,
    data="unit",
    small=2**12,
    sizes=(2**24, 2**28),
    peers=("cupy", "torch"),
    params={
        "functions": ("nansum", "nanmax", "nanargmax", "nanmean", "var", "std", "ptp"),
        "nan": 1000,
        "read_fraction": 0.9,
        "speedup": 2.0,
    },
)

#: var over each axis of a C-ordered (rows, n / rows) float32 matrix: contiguous rows (axis 1)
#: and coalesced columns (axis 0), against cupy.var and torch.var
AXIS = Workload(
    n=2**28,
    data="unit",
    small=2**12,
    peers=("cupy", "torch"),
    params={"rows": 2**14, "small_rows": 2**5, "functions": ("var", "nansum")},
)
