"""searchsorted benchmarks: float32 queries into a sorted float32 array four times as long, each
variant against ``cupy.searchsorted`` and ``torch.searchsorted`` (each peer its own benchmark).
GPU only (see ``_common``); times are medians of CUDA-event timings; GB/s counts the queries read
and the int64 results written once."""

from ._common import _Timed, device_data, public, require_cuda, require_cupy, size, variants, xp


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


class Searchsorted(_Module):
    params = [
        ["auto"] + variants("searching") + ["cupy.searchsorted", "torch.searchsorted"],
        [2**24, 2**26],
    ]
    param_names = ["variant", "n"]

    def prepare(self, variant, n):
        require_cuda()
        n = size(n)
        m = max(1, n // 4)
        a = xp().sort(device_data(n, "float32"))
        v = device_data(m, "float32", seed=7)
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
