"""The searching family's workloads."""

from . import Workload

#: n / ``per_query`` float32 queries into a sorted float32 array of n (never zero): every variant
#: and auto against cupy.searchsorted and torch.searchsorted; the issue's target: ours
#: ``speedup`` times faster than both
QUERIES = Workload(
    n=2**26,
    small=2**12,
    sizes=(2**24, 2**26),
    peers=("cupy", "torch"),
    params={"per_query": 4, "speedup": 2.0},
)
