"""Selection benchmarks (the workloads of ``primitives/testing/workloads/selection.py``): ``topk``
of float32 (1-D, small and large k) and per row, against ``torch.topk`` and ``cupy.argpartition``
(each a benchmark of its own), and every variant; median and quantile against CuPy's and
torch's. GPU only (see ``_common``); times are medians of
CUDA-event timings; GB/s counts the keys read once.
"""

from ._common import _Timed, make, public, require_cuda, require_cupy, variants, workloads

spec = workloads("selection")


def _torch():
    try:
        import torch
    except Exception as exc:  # not installed
        raise NotImplementedError(f"torch peer: PyTorch is not available ({exc})") from exc
    return torch


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


class TopK(_Module):
    params = [
        variants("selection") + ["torch.topk", "cupy.argpartition"],
        list(spec.TOPK.params["k"]),
    ]
    param_names = ["variant", "k"]

    def prepare(self, variant, k):
        require_cuda()
        x = make(spec.TOPK.data, spec.TOPK.n, "float32")
        k = min(k, x.size)
        if variant == "torch.topk":
            torch = _torch()
            t = torch.from_dlpack(x)
            self.fn = lambda: torch.topk(t, k)
        elif variant == "cupy.argpartition":
            cupy = require_cupy()
            self.fn = lambda: cupy.argpartition(x, x.size - k)
        else:
            topk = public("topk")
            if variant in ("rows", "warp_rows") and x.size > 8192:
                raise NotImplementedError(f"topk variant {variant!r}: rows of at most 8192 float32")
            if variant == "small_k" and k > 256:
                raise NotImplementedError("topk variant 'small_k': k of at most 256")
            self.fn = lambda: topk(x, k, variant=variant)
        self.bytes = x.nbytes
        self.fn()


class TopKRows(_Module):
    params = [variants("selection") + ["torch.topk"], [spec.ROWS.params["k"]]]
    param_names = ["variant", "k"]

    def prepare(self, variant, k):
        require_cuda()
        w = spec.ROWS
        x = make(w.data, (w.n // w.params["cols"], w.params["cols"]), "float32")
        if variant == "torch.topk":
            torch = _torch()
            t = torch.from_dlpack(x)
            self.fn = lambda: torch.topk(t, k, dim=-1)
        else:
            topk = public("topk")
            self.fn = lambda: topk(x, k, variant=variant)
        self.bytes = x.nbytes
        self.fn()


class Partition(_Module):
    params = [["argpartition", "cupy.argpartition"], list(spec.PARTITION.params["kth"])]
    param_names = ["how", "kth"]

    def prepare(self, how, kth):
        require_cuda()
        x = make(spec.PARTITION.data, spec.PARTITION.n, "float32")
        kth = min(kth, x.size - 1)
        if how == "cupy.argpartition":
            cupy = require_cupy()
            self.fn = lambda: cupy.argpartition(x, kth)
        else:
            fn = public("argpartition")
            self.fn = lambda: fn(x, kth)
        self.bytes = x.nbytes + 8 * x.size
        self.fn()


class Quantile(_Module):
    """median and quantile(q=[0.01, 0.5, 0.99]) of 2^28 float32 (the workload ``QUANTILE``):
    prim's radix selection against cupy.median / cupy.quantile and torch.median /
    torch.quantile (which refuses inputs past 2^24 elements: torch.median only there), each a
    benchmark of its own."""

    params = [["median", "quantile"], ["prim", "cupy", "torch"]]
    param_names = ["function", "peer"]

    def prepare(self, function, peer):
        require_cuda()
        w = spec.QUANTILE
        x = make(w.data, w.n, "float32")
        qs = w.params["q"]
        if peer == "cupy":
            cupy = require_cupy()
            q = cupy.asarray(qs)
            self.fn = (
                (lambda: cupy.median(x)) if function == "median" else (lambda: cupy.quantile(x, q))
            )
        elif peer == "torch":
            torch = _torch()
            t = torch.from_dlpack(x)
            if function == "median":
                self.fn = lambda: torch.median(t)
            else:
                q = torch.tensor(qs, device=t.device, dtype=t.dtype)
                self.fn = lambda: torch.quantile(t, q)
                try:
                    self.fn()
                except RuntimeError as exc:  # torch.quantile: inputs of at most 2^24 elements
                    raise NotImplementedError(f"torch.quantile: {exc}") from exc
        else:
            fn = public(function)
            self.fn = (lambda: fn(x)) if function == "median" else (lambda: fn(x, qs))
        self.bytes = x.nbytes
        self.fn()
