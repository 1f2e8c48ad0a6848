"""searchsorted benchmarks (the workload of ``primitives/testing/workloads/searching.py``):
float32 queries into a sorted float32 array four times as long, each variant against
``cupy.searchsorted`` and ``torch.searchsorted`` (each peer its own benchmark), then auto and
the peers on sorted and nearly sorted queries. GPU only (see
``_common``); times are medians of CUDA-event timings; GB/s counts the queries read and the int64
results written once."""

from ._common import _Timed, make, public, require_cuda, require_cupy, size, variants, workloads, xp

spec = workloads("searching")


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


class Searchsorted(_Module):
    params = [
        ["auto"] + variants("searching") + ["cupy.searchsorted", "torch.searchsorted"],
        list(spec.QUERIES.sweep()),
    ]
    param_names = ["variant", "n"]

    def prepare(self, variant, n):
        require_cuda()
        a, v = _arrays(size(n))
        self.fn, self.bytes = _searcher(variant, a, v), v.size * (4 + 8)
        self.fn()


class SearchsortedOrdered(_Module):
    """The same search at the workload's size with the queries sorted or nearly sorted
    (``spec.ORDERS``): auto against the peers."""

    params = [["auto", "cupy.searchsorted", "torch.searchsorted"], list(spec.ORDERS[1:])]
    param_names = ["contender", "queries"]

    def prepare(self, contender, order):
        require_cuda()
        a, v = _arrays(size(spec.QUERIES.n))
        v = spec.ordered(xp(), v, order)
        self.fn, self.bytes = _searcher(contender, a, v), v.size * (4 + 8)
        self.fn()


def _arrays(n):
    """(sorted a of n float32, its n / per_query random float32 queries) on the device."""
    w = spec.QUERIES
    m = max(1, n // w.params["per_query"])
    return xp().sort(make(w.data, n, "float32")), make(w.data, m, "float32", seed=1)


def _searcher(contender, a, v):
    """One call of ``contender`` (a variant of ours, or a peer) on (a, v)."""
    if contender == "cupy.searchsorted":
        cupy = require_cupy()
        return lambda: cupy.searchsorted(a, v)
    if contender == "torch.searchsorted":
        require_cupy()
        try:
            import torch
        except ImportError as exc:
            raise NotImplementedError("torch peer: PyTorch is not installed") from exc
        ta, tv = torch.from_dlpack(a), torch.from_dlpack(v)
        return lambda: torch.searchsorted(ta, tv)
    search = public("searchsorted")
    return lambda: search(a, v, variant=contender)
