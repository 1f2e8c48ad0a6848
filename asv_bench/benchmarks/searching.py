"""searchsorted benchmarks (the workload of ``primitives/testing/workloads/searching.py``):
float32 queries into a sorted float32 array four times as long, each variant against
``cupy.searchsorted`` and ``torch.searchsorted`` (each peer its own benchmark). GPU only (see
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
        w = spec.QUERIES
        n = size(n)
        m = max(1, n // w.params["per_query"])
        a = xp().sort(make(w.data, n, "float32"))
        v = make(w.data, m, "float32", seed=1)
        if variant == "cupy.searchsorted":
            cupy = require_cupy()
            self.fn = lambda: cupy.searchsorted(a, v)
        elif variant == "torch.searchsorted":
            require_cupy()
            try:
                import torch
            except ImportError as exc:
                raise NotImplementedError("torch peer: PyTorch is not installed") from exc
            ta, tv = torch.from_dlpack(a), torch.from_dlpack(v)
            self.fn = lambda: torch.searchsorted(ta, tv)
        else:
            search = public("searchsorted")
            self.fn = lambda: search(a, v, variant=variant)
        self.bytes = m * (4 + 8)
        self.fn()
