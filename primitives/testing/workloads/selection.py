"""The selection family's workloads: float32 keys, never zero (``positive`` data), and the
speed-ups over each peer that the top-k issue targets."""

from . import Workload

#: topk of a 1-D array for each k (the tour: the first), against torch.topk and
#: cupy.argpartition (prim.sort of the whole array where k is large); ``table``: the variants
#: the figures time side by side at the first k
TOPK = Workload(
    n=2**28,
    small=2**14,
    peers=("torch", "cupy"),
    params={
        "k": (16, 1024, 2**20),
        "targets": {
            16: (("torch.topk", 8), ("cupy.argpartition", 30)),
            1024: (("torch.topk", 8), ("cupy.argpartition", 30)),
            2**20: (("torch.topk", 2), ("prim.sort", 2)),
        },
        "table": ("filter", "small_k", "radix_select", "sort"),
    },
)
#: topk of each row of ``cols`` over n keys, against torch.topk(dim=-1)
ROWS = Workload(
    n=2**28,
    small=2**14,
    peers=("torch",),
    params={"cols": 4096, "k": 32, "targets": (("torch.topk(dim=-1)", 5),)},
)
#: argpartition at each ``kth`` against cupy.argpartition: small kth (a top-k selection) and the
#: middle (a partition by the selected value)
PARTITION = Workload(n=2**28, peers=("cupy",), params={"kth": (16, 2**20, 2**27)})
#: median and quantile at ``q`` of a 1-D float32 array (uniform in [0, 1): the ranks' top
#: digits hold many keys), against cupy.median / cupy.quantile and torch.median /
#: torch.quantile (which refuses inputs past 2^24 elements); ``targets``: the speed-ups over
#: each peer, by function
QUANTILE = Workload(
    n=2**28,
    small=2**15,
    data="unit",
    peers=("cupy", "torch"),
    params={
        "q": (0.01, 0.5, 0.99),
        "functions": ("median", "quantile"),
        "targets": {
            "median": (("cupy.median", 4), ("torch.median", 4)),
            "quantile": (("cupy.quantile", 4), ("torch.quantile", 4)),
        },
    },
)
