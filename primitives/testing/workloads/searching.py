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

#: the orders of the queries measured (the figures' and the asv suite's cases): as drawn, sorted,
#: and sorted with one query in every 100 swapped with one 1 to 63 places on (the everyday-shapes
#: issue's target: sorted queries at most half of cupy.searchsorted's time)
ORDERS = ("random", "sorted", "nearly sorted")


def ordered(xp, v, order, seed=7):
    """The queries ``v`` (1-D, of NumPy or CuPy: ``xp``) in ``order``, one of :data:`ORDERS`: a
    new array, ``v`` unchanged."""
    if order == "random":
        return v.copy()
    s = xp.sort(v)
    if order == "sorted":
        return s
    if order != "nearly sorted":
        raise ValueError(f"ordered: order must be one of {ORDERS}, got {order!r}")
    # one swap in each run of 100 queries: i in its first 36, j 1 to 63 places on (in the run,
    # so that no query takes part in two swaps: a permutation)
    k = s.size // 100
    if k:
        rs = xp.random.RandomState(seed)
        i = xp.arange(k) * 100 + rs.randint(0, 36, k)
        j = i + rs.randint(1, 64, k)
        s[i], s[j] = s[j], s[i]
    return s
