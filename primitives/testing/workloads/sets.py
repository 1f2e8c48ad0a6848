"""The sets family's workloads, and the speed the issue that asked for them targets."""

from . import Workload

#: unique(return_counts=True) of uint32 keys drawn from [1, ``distinct``] (n/128 distinct at n)
#: against cupy.unique: ours at least ``speedup`` times faster
UNIQUE = Workload(
    n=2**27,
    small=2**14,
    dtypes=("uint32",),
    data="distinct",
    sizes=(2**22, 2**27),
    peers=("cupy",),
    params={"distinct": 2**20, "speedup": 2.5},
)
#: run_length_encode and reduce_by_key (sum) of float32 values under int32 keys in runs of about
#: ``mean`` against a CuPy formulation: ours at ``pct`` % of the copy rate at least
RUNS = Workload(
    n=2**28,
    tour=2**27,
    small=2**14,
    dtypes=("int32", "float32"),
    data="runs",
    sizes=(2**24, 2**28),
    peers=("cupy",),
    params={"mean": 16, "pct": 70},
)
