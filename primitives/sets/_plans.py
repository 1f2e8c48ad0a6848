"""Sets plans: kernel names of ``kernels/sets/runs.cu`` and the look-back plan that runs them.

A :class:`RunsPlan` per (key dtype, what it writes, value and accumulator dtypes, op, n, policy,
stream) holds the tile counter, the tile states and the count of runs, made once, and its launch
checked once. A call is one launch and one read of the count (the results' length).

Keys are read as the unsigned word of their size (bool and the integers: equal words are equal
keys) except the floats, which compare as numbers (float16 as its bit patterns, by the kernel's
RUN_F16 rule): :data:`KEY_DTYPES` and :func:`key_kind`.
"""

from __future__ import annotations

import numpy as np

from .._core import dtypes as _dtypes, launch as _launch, loader as _loader, ops as _ops
from .._core import lookback as _lookback, plans as _plans
from . import _policy

SOURCE = "sets/runs.cu"
#: the key dtypes, in the documentation's order
KEY_DTYPES = _dtypes.REAL
KEY_SET = frozenset(KEY_DTYPES)
INDEX_DTYPE = np.dtype(np.int64)
#: what a launch writes (the kernel's VALS): keys; keys and counts (from the runs' first
#: indices); keys and reductions
KEYS, COUNTS, VALUES = 0, 1, 2
RUN_INT, RUN_F16, RUN_FLOAT = 0, 1, 2
_WORDS = {
    1: np.dtype(np.uint8),
    2: np.dtype(np.uint16),
    4: np.dtype(np.uint32),
    8: np.dtype(np.uint64),
}
OPS = ("sum", "prod", "min", "max")
_CTYPES = _dtypes.KERNEL_CTYPES
#: the value dtypes the kernel reads as they are (others are converted first, see _api)
VALUE_KERNEL_DTYPES = _dtypes.NUMERIC + _dtypes.COMPLEX


def key_kind(dt):
    """(C++ key type, kind, dtype the keys are viewed as) of key dtype ``dt``."""
    dt = np.dtype(dt)
    if dt == np.float16:
        return "unsigned short", RUN_F16, _WORDS[2]
    if dt.kind == "f":
        return _CTYPES[dt], RUN_FLOAT, dt
    word = _WORDS[dt.itemsize]
    return _CTYPES[word], RUN_INT, word


def value_ops(in_dt):
    """(op, accumulator dtype) of every op the kernel runs on values of ``in_dt`` as they are."""
    ops = ("sum", "prod") if in_dt.kind == "c" else OPS
    return tuple((op, _dtypes.reduce_result_dtype(in_dt, op)) for op in ops)


def kernel_name(key_dt, vals, in_dt, acc_dt, op, pol):
    kc, kind, _ = key_kind(key_dt)
    if vals != VALUES:  # the scan only counts heads: the smallest pair (one packed descriptor)
        in_c = acc_c = "int"
        op_t = "prim::Sum<int>"
        acc_bytes = 0
    else:
        in_c, acc_c = _CTYPES[in_dt], _CTYPES[acc_dt]
        op_t = _ops.functor(op, acc_c)
        acc_bytes = np.dtype(acc_dt).itemsize
    mb = _policy.min_blocks_for(np.dtype(key_dt).itemsize, acc_bytes, pol)
    return (
        f"runs_lookback<{kc}, {kind}, {in_c}, {acc_c}, {op_t}, {vals}, {pol.block}, "
        f"{pol.items}, {mb}, {pol.warp_out}, {pol.prefetch}>"
    )


def names(module, pol):
    """Module ``(key C++ type, kind, value dtype or None)``: keys and counts (None), or the
    reductions of values of one dtype under every op."""
    kc, kind, in_dt = module
    key_dt = _MODULE_KEY[(kc, kind)]
    if in_dt is None:
        return [kernel_name(key_dt, v, None, None, None, pol) for v in (KEYS, COUNTS)]
    return [kernel_name(key_dt, VALUES, in_dt, a, op, pol) for op, a in value_ops(in_dt)]


#: a key dtype of every (C++ key type, kind): the modules' representatives
_MODULE_KEY = {key_kind(d)[:2]: d for d in reversed(KEY_DTYPES)}
#: the key dtypes reduce_by_key's kernels read as they are; narrower keys (bool, 8- and 16-bit
#: integers, float16) are widened first (:func:`value_keys`), so that the reductions' many
#: instantiations are made for four key types only
VALUE_KEY_DTYPES = tuple(np.dtype(d) for d in (np.uint32, np.uint64, np.float32, np.float64))
MODULES = tuple((kc, kind, None) for (kc, kind) in _MODULE_KEY) + tuple(
    (*key_kind(d)[:2], v) for d in VALUE_KEY_DTYPES for v in VALUE_KERNEL_DTYPES
)


def value_key_dtype(dt):
    """The dtype reduce_by_key's kernels read keys of ``dt`` as: 4- and 8-byte keys as they are;
    the others widened, each to a dtype whose equality is theirs (float16 to float32, integers
    and bool to 32-bit integers of their signedness)."""
    if dt.itemsize >= 4:
        return dt
    if dt == np.float16:
        return np.dtype(np.float32)
    return np.dtype(np.int32 if dt.kind == "i" else np.uint32)


def value_keys(karr):
    """``karr`` as reduce_by_key's kernels read it (:func:`value_key_dtype`)."""
    dt = value_key_dtype(karr.dtype)
    return karr if dt == karr.dtype else karr.astype(dt)


for _pol in _policy.TABLE.policies():  # every policy of the table, for the NVRTC check
    for _m in MODULES:
        _loader.register(SOURCE, names(_m, _pol))


def pair_bytes(acc_dt):
    """sizeof(prim::RunPair<AccT>): the value, two 32-bit halves of the count, padding."""
    align = max(4, acc_dt.itemsize)  # complex: alignas(its size)
    size = acc_dt.itemsize + 8
    return -(-size // align) * align


#: the kernel's static shared memory limit, which its exchange buffers must fit
STATIC_SMEM = 48 * 1024


def exchange_bytes(key_dt, vals, in_dt, pol):
    """Bytes of the kernel's exchange buffers: a tile of the widest 4- or 8-byte type it
    exchanges (keys; values of VALUES)."""
    key_dt = np.dtype(key_dt)
    widths = [key_dt.itemsize if key_dt.itemsize >= 4 else 1]
    if vals == VALUES and in_dt.kind != "c":
        widths.append(in_dt.itemsize)
    return pol.block * pol.items * max(widths)


class RunsPlan(_lookback.LookbackPlan):
    """The run kernel over n keys of ``key_dt``: ``vals`` KEYS (the first key of each run),
    COUNTS (and the run lengths, int64) or VALUES (and the ``op``-sums of values of ``in_dt``
    into ``acc_dt``)."""

    def __init__(self, backend, key_dt, vals, in_dt, acc_dt, op, n, pol):
        nbytes = exchange_bytes(key_dt, vals, in_dt, pol)
        if nbytes > STATIC_SMEM - 1024:
            raise ValueError(
                f"sets: a tile of {pol.block} x {pol.items} needs {nbytes} bytes of "
                f"exchange buffers, over the kernel's {STATIC_SMEM} bytes of static "
                f"shared memory; use a smaller block or fewer items"
            )
        kc, kind, self.word = key_kind(key_dt)
        module = (kc, kind, in_dt if vals == VALUES else None)
        name = kernel_name(key_dt, vals, in_dt, acc_dt, op, pol)
        if vals == COUNTS:  # the lengths kernel, which the first call launches after this one
            prefetch_runs(key_dt, True, pol)
        if isinstance(op, _ops.Op):  # a user operator's own source
            k = _ops.kernel(SOURCE, op, acc_dt, name)
        else:
            k = _loader.load(SOURCE, names(module, pol))(name)
        self.acc_dt = acc_dt if vals == VALUES else np.dtype(np.int32)  # the scanned value's
        self.out_dt = INDEX_DTYPE if vals == COUNTS else self.acc_dt  # values_out's
        xp = backend.xp
        super().__init__(
            k, _launch.cdiv(n, pol.block * pol.items), pol.block, n, xp, pair_bytes(self.acc_dt)
        )
        # the number of runs, written by the block of the last tile: the one value the host
        # reads back, as soon as that block has written it
        self.count = _launch.HostCount(backend)
        # the values a launch without them reads: a one-element stand-in of InT
        self.stand_in = _launch.stand_in(backend, in_dt if vals == VALUES else self.acc_dt)
        self.stand_out = _launch.stand_in(backend, self.acc_dt)
        self.empty, self.n, self.vals, self.key_dt = xp.empty, n, vals, np.dtype(key_dt)
        # the kernel reads and writes the keys' words; only float16 keys, read as their bit
        # patterns, take a view (the others are passed as they are)
        w = np.dtype(self.word)
        self.words = w if (self.key_dt.kind == "f") != (w.kind == "f") else None
        S = _plans.Launch.SLOT
        self.prepare(S, S, self.n64, S, S, S, self.count.arg)

    def __call__(self, keys, values=None, equal_nan=False):
        """(first keys of the runs, their counts or op-sums or None) of the contiguous backend
        arrays ``keys`` (and ``values``, VALUES only)."""
        ws, count = self.words, self.count
        kout = self.empty(self.n, dtype=self.key_dt if ws is None else ws)
        vout = self.stand_out if self.vals == KEYS else self.empty(self.n, dtype=self.out_dt)
        m = count.read(
            "sets",
            self.launch,  # the results' length
            keys if ws is None else keys.view(ws),
            self.stand_in if values is None else values,
            np.int32(bool(equal_nan)),
            kout,
            vout,
        )
        keys_out = kout[:m] if ws is None else kout[:m].view(self.key_dt)
        if self.vals == KEYS:
            return keys_out, None
        if self.vals == COUNTS:
            return keys_out, lengths(vout[:m], self.n, self.empty)
        return keys_out, vout[:m]


LENGTHS = "sets/lengths.cu"
_loader.register(LENGTHS, ["run_lengths"])
_LENGTHS_BLOCK = 256


def lengths(starts, n, empty):
    """The lengths of runs from their first indices ``starts`` (contiguous int64 of the
    backend) among n elements (``empty``: the backend's ``empty``): one launch."""
    out = empty(starts.size, dtype=INDEX_DTYPE)
    if out.size:
        k = _loader.load(LENGTHS, ["run_lengths"])("run_lengths")
        _launch.launch(
            k,
            _launch.cover_grid(out.size, _LENGTHS_BLOCK, kernel=k),
            _LENGTHS_BLOCK,
            (starts, _launch.i64(out.size), _launch.i64(n), out),
        )
    return out


def prefetch_runs(key_dt, counts, pol=None):
    """Start compiling the run kernel of sorted keys of ``key_dt`` (with their lengths where
    ``counts``: and the lengths kernel) under ``pol`` (None: the policy in force), where kernels
    compile on first use: unique asks for it before its sort, whose kernels then compile beside
    it; a plan of run lengths, before it loads its run kernel."""
    vals = COUNTS if counts else KEYS
    pol = _policy.current() if pol is None else pol
    _loader.prefetch(SOURCE, [kernel_name(key_dt, vals, None, None, None, pol)])
    if counts:
        _loader.prefetch(LENGTHS, ["run_lengths"])


def runs_plan(backend, key_dt, vals, in_dt, acc_dt, op, n):
    """The plan under the policy in force."""
    pol = _policy.current()
    key = ("sets", np.dtype(key_dt), vals, in_dt, acc_dt, op, n, pol, _plans.stream_key())
    return _plans.PLANS.get(key, lambda: RunsPlan(backend, key_dt, vals, in_dt, acc_dt, op, n, pol))
