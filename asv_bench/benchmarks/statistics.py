"""statistics benchmarks (the workloads of ``primitives/testing/workloads/statistics.py``): the
headline one-pass reductions over float32 (every 1000th element NaN for the nan-functions), and
var over each axis of a matrix, each against ``cupy``'s twin and ``torch``'s where it has the
function (each peer a benchmark of its own). GPU only (see ``_common``); times are medians of
CUDA-event timings; GB/s counts the bytes read."""

from ._common import _Timed, make, public, require_cuda, require_cupy, size, workloads

spec = workloads("statistics")
FUNCTIONS = list(spec.FLAT.params["functions"])
#: torch's twins of the functions (absent: torch has none)
TORCH = {"nansum": "nansum", "nanmean": "nanmean", "var": "var", "std": "std"}


class _Module(_Timed):
    """Every class of this module, measured once in one process (see ``_common._Timed``)."""

    def setup_cache(self):
        return _Timed.measure(_Module)

    setup_cache.timeout = 1800


def _input(func, n):
    x = make(spec.FLAT.data, size(n), "float32")
    if func.startswith("nan"):
        x[:: spec.FLAT.params["nan"]] = float("nan")
    return x


def _torch(name, x, **kw):
    try:
        import torch
    except ImportError as exc:
        raise NotImplementedError("torch peer: PyTorch is not installed") from exc
    t, fn = torch.from_dlpack(x), getattr(torch, name)
    if name in ("var", "std"):
        return lambda: fn(t, correction=0, **kw)
    return lambda: fn(t, **kw)


class Flat(_Module):
    """Ours over every element."""

    params = [FUNCTIONS, list(spec.FLAT.sweep())]
    param_names = ["function", "n"]

    def prepare(self, function, n):
        require_cuda()
        x = _input(function, n)
        fn = public(function)
        self.fn = lambda: fn(x)
        self.bytes = x.nbytes
        self.fn()


class CupyFlat(_Module):
    """The peer: CuPy's twin on the same data."""

    params = [FUNCTIONS, list(spec.FLAT.sweep())]
    param_names = ["function", "n"]

    def prepare(self, function, n):
        cupy = require_cupy()
        x = _input(function, n)
        fn = getattr(cupy, function)
        self.fn = lambda: fn(x)
        self.bytes = x.nbytes
        self.fn()


class TorchFlat(_Module):
    """The peer: torch's twin on the same memory (DLPack), where torch has the function."""

    params = [[f for f in FUNCTIONS if f in TORCH], list(spec.FLAT.sweep())]
    param_names = ["function", "n"]

    def prepare(self, function, n):
        require_cupy()
        x = _input(function, n)
        self.fn = _torch(TORCH[function], x)
        self.bytes = x.nbytes
        self.fn()


class Axis(_Module):
    """var and nansum over axis 1 (contiguous rows) and axis 0 (columns) of a float32 matrix,
    ours and the peers."""

    params = [["primitives", "cupy", "torch"], list(spec.AXIS.params["functions"]), [1, 0]]
    param_names = ["contender", "function", "axis"]

    def prepare(self, contender, function, axis):
        require_cuda()
        rows = spec.AXIS.params["rows"]
        x = make(spec.AXIS.data, (rows, spec.AXIS.n // rows), "float32")
        if contender == "primitives":
            fn = public(function)
            self.fn = lambda: fn(x, axis=axis)
        elif contender == "cupy":
            cupy = require_cupy()
            fn = getattr(cupy, function)
            self.fn = lambda: fn(x, axis=axis)
        else:
            self.fn = _torch(TORCH[function], x, dim=axis)
        self.bytes = x.nbytes
        self.fn()
