"""Reduction family: ``reduce``, ``sum``, ``min``, ``max`` and the classic ladder of variants.

Variants (``variant=``), each a named kernel in ``kernels/reduction/reduce.cu``:

============  ==================================================================================
alpha         interleaved addressing, divergent branch (``tid % (2*s) == 0``)
beta          interleaved addressing, strided index (no divergence; shared-memory bank conflicts)
gamma         sequential addressing (conflict-free; half the threads idle at the first step)
delta         first add during load (two elements per thread)
epsilon       delta with the last warp unrolled (``__syncwarp`` between steps: correct on Volta+)
zeta          completely unrolled tree (block size a template), grid sized to the machine,
              many elements per thread
production    16-byte vector loads, shuffle-based block reduction, machine-sized grid, one launch
auto          ``production``
============  ==================================================================================

The ladder variants launch once per level on the block partials until one value is left; zeta
launches twice; production launches once.
"""

from __future__ import annotations

import collections
import math

import numpy as np

from . import _checks, _dtypes, _launch, _loader

__all__ = ["reduce", "sum", "min", "max", "VARIANTS", "OPS"]

VARIANTS = ("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "production")
OPS = ("sum", "min", "max")

_SOURCE = "reduction/reduce.cu"
_OP_TEMPLATE = {"sum": "prim::Sum", "min": "prim::Min", "max": "prim::Max"}
_LADDER_BLOCK = 256  # alpha..epsilon
_ZETA_BLOCK = 256
# production policy: threads per block, 16-byte loads in flight per thread, blocks per SM cap
# (measured on an H100: 1024 threads, 4 loads, 2 blocks per SM reach 3.1 TB/s at 2^28; see
# docs/performance.md)
_PROD_BLOCK = 1024
_PROD_VECS = 4
_PROD_PER_SM = 2
_ITEMS = {"alpha": 1, "beta": 1, "gamma": 1, "delta": 2, "epsilon": 2}

_PAIRS = _dtypes.ACC_PAIRS


def _name(variant, in_dt, acc_dt, op):
    in_c, acc_c = _dtypes.CTYPES[in_dt], _dtypes.CTYPES[acc_dt]
    tail = ""
    if variant == "zeta":
        tail = f", {_ZETA_BLOCK}"
    elif variant == "production":
        tail = f", {_PROD_BLOCK}, {_PROD_VECS}"
    return f"reduce_{variant}<{in_c}, {acc_c}, {_OP_TEMPLATE[op]}<{acc_c}>{tail}>"


def _names(variant):
    return [_name(variant, i, a, op) for i, a in _PAIRS for op in OPS]


for _v in VARIANTS:
    _loader.register(_SOURCE, _names(_v))


def _kernel(variant, in_dt, acc_dt, op):
    # one module per variant: a test or tour touching one variant compiles only that one
    get = _loader.load(_SOURCE, _names(variant))
    return get(_name(variant, in_dt, acc_dt, op))


def _production_grid(kernel, n, in_dt):
    vec = 16 // in_dt.itemsize
    return _launch.cover_grid(n, _PROD_BLOCK, vec * _PROD_VECS, kernel=kernel, per_sm=_PROD_PER_SM)


# Launch plans of the production kernel, per (types, op, n, device, stream): the kernel, its grid,
# the block partials and the last-block ticket (which the kernel leaves at 0). Reusing them keeps
# the host path to one allocation (the result) and one launch; launches on one stream are ordered,
# so reusing the scratch across calls is safe, and another stream gets its own plan.
_plans = collections.OrderedDict()
_MAX_PLANS = 64


def _production(x, in_dt, acc_dt, op, backend):
    key = (in_dt, acc_dt, op, x.size, backend.stream_key())
    plan = _plans.get(key)
    if plan is None:
        k = _kernel("production", in_dt, acc_dt, op)
        grid = _production_grid(k, x.size, in_dt)
        xp = backend.xp
        plan = (k, (grid,), xp.empty(grid, dtype=acc_dt), xp.zeros(1, dtype=np.uint32),
                _launch.i64(x.size))
        out = xp.empty((), dtype=acc_dt)
        _launch.launch(k, grid, _PROD_BLOCK, (x, plan[4], plan[2], plan[3], out))  # validated
        _plans[key] = plan
        if len(_plans) > _MAX_PLANS:
            _plans.popitem(last=False)
        return out
    k, grid, partials, tickets, n64 = plan
    out = backend.xp.empty((), dtype=acc_dt)
    k(grid, (_PROD_BLOCK,), (x, n64, partials, tickets, out))
    return out


def _zeta_grid(kernel, n):
    return _launch.cover_grid(n, _ZETA_BLOCK, 2, kernel=kernel)


def _run(x, in_dt, acc_dt, op, variant, backend):
    """Reduce the non-empty contiguous 1-D device array ``x``; returns a 1-element array."""
    xp = backend.xp
    n = x.size
    if variant == "production":
        return _production(x, in_dt, acc_dt, op, backend)
    if variant == "zeta":
        k = _kernel("zeta", in_dt, acc_dt, op)
        grid = _zeta_grid(k, n)
        partials = xp.empty(grid, dtype=acc_dt)
        _launch.launch(k, grid, _ZETA_BLOCK, (x, partials, _launch.i64(n)))
        if grid == 1:
            return partials
        out = xp.empty(1, dtype=acc_dt)
        k2 = _kernel("zeta", acc_dt, acc_dt, op)
        _launch.launch(k2, 1, _ZETA_BLOCK, (partials, out, _launch.i64(grid)))
        return out
    # the ladder: one launch per level over the previous level's block partials
    items = _ITEMS[variant]
    block = _LADDER_BLOCK
    smem = block * acc_dt.itemsize
    cur, cur_dt = x, in_dt
    while True:
        k = _kernel(variant, cur_dt, acc_dt, op)
        grid = _launch.cover_grid(cur.size, block, items)
        out = xp.empty(grid, dtype=acc_dt)
        _launch.launch(k, grid, block, (cur, out, _launch.i64(cur.size)), shared_mem=smem)
        if grid == 1:
            return out
        cur, cur_dt = out, acc_dt


def _error_depth(variant, n, in_dt=np.dtype(np.float32)):
    """Longest chain of roundings from any input to the result for ``variant`` at size ``n``.

    A float reduction whose additions form a tree of depth ``d`` has error at most
    ``d * eps / (1 - d * eps) * sum(|x|)`` (Higham, *Accuracy and Stability*, sec. 4.2). The tests
    use this bound; it is conservative because it counts the longest chain for every element.
    """
    if n <= 1:
        return 1
    log_block = lambda b: int(math.log2(b))  # noqa: E731
    if variant in _ITEMS:
        items, depth, m = _ITEMS[variant], 0, n
        while m > 1:
            depth += (items - 1) + log_block(_LADDER_BLOCK)
            m = _launch.cdiv(m, _LADDER_BLOCK * items)
        return depth
    if variant == "zeta":
        grid = _zeta_grid(_kernel("zeta", in_dt, in_dt, "sum"), n)
        first = 2 * _launch.cdiv(n, 2 * _ZETA_BLOCK * grid) + log_block(_ZETA_BLOCK)
        second = 2 * _launch.cdiv(grid, 2 * _ZETA_BLOCK) + log_block(_ZETA_BLOCK)
        return first + (second if grid > 1 else 0)
    k = _kernel("production", in_dt, in_dt, "sum")
    grid = _production_grid(k, n, in_dt)
    threads = grid * _PROD_BLOCK
    per_thread = (_launch.cdiv(n, threads) + 16) + 3  # vector body + head/tail + 4-way regroup
    return per_thread + 2 * log_block(_PROD_BLOCK) + _launch.cdiv(grid, _PROD_BLOCK)


def reduce(x, op="sum", *, dtype=None, variant="auto"):
    """Reduce all elements of ``x`` with ``op``.

    Args:
        x: array of int32, int64, uint32, uint64, float32 or float64 (CuPy, NumPy, or anything with
            ``__cuda_array_interface__`` / DLPack). Any ndim: the array is flattened (``axis=None``).
        op: ``"sum"``, ``"min"`` or ``"max"``.
        dtype: accumulator and result dtype. Default as NumPy: ``sum`` widens int32 to int64 and
            uint32 to uint64; ``min``/``max`` keep the input dtype. A ``dtype`` without a native
            kernel for the input converts the input first (one extra pass).
        variant: one of ``primitives.reduction.VARIANTS`` (``"alpha"`` ... ``"zeta"``,
            ``"production"``) or ``"auto"`` (= ``"production"``).

    Returns:
        A 0-d device array for device input (like ``cupy.sum``), a NumPy scalar for host input
        (like ``numpy.sum``).

    Raises:
        TypeError: ``x`` is not an array, or its dtype (bool, complex, float16, ...) or ``dtype``
            is unsupported.
        ValueError: unknown ``op`` or ``variant``; ``min``/``max`` of an empty array (NumPy's
            error: no identity).

    Integer sums wrap around on overflow, as NumPy's do. ``min``/``max`` propagate NaN as
    ``numpy.min``/``numpy.max``. Float sums accumulate in the result dtype in a tree; the error is
    bounded by the tree depth (see the docs). Device input: no host synchronization. Host input:
    one copy in and one out.

    See Also:
        :func:`numpy.sum`, :func:`numpy.min`, :func:`numpy.max`, :func:`cupy.sum`.
    """
    variant = _checks.check_choice(variant, VARIANTS, func="reduce", arg="variant",
                                   auto="production")
    inp, arr, in_dt, acc_dt = _checks.op_input(x, op, dtype, func="reduce")
    if arr.size == 0:
        if op != "sum":
            name = "minimum" if op == "min" else "maximum"
            raise ValueError(
                f"zero-size array to reduction operation {name} which has no identity"
            )
        return inp.scalar(inp.backend.xp.zeros(1, dtype=acc_dt))
    return inp.scalar(_run(arr, in_dt, acc_dt, op, variant, inp.backend))


def sum(x, *, dtype=None, variant="auto"):  # noqa: A001 - mirrors numpy.sum
    """Sum of all elements; see :func:`reduce`."""
    return reduce(x, "sum", dtype=dtype, variant=variant)


def min(x, *, variant="auto"):  # noqa: A001 - mirrors numpy.min
    """Minimum of all elements (NaN propagates); see :func:`reduce`."""
    return reduce(x, "min", variant=variant)


def max(x, *, variant="auto"):  # noqa: A001 - mirrors numpy.max
    """Maximum of all elements (NaN propagates); see :func:`reduce`."""
    return reduce(x, "max", variant=variant)


def tour_sections(gpu, log2n=None):
    """Tour workloads: the whole ladder on float32 sums, and the production kernel against CuPy
    on float32 sum/max and int32 sum at the sizes of the performance figures."""
    from . import _oracle, _tour

    ladder_n = 1 << (log2n or (26 if gpu else 14))
    peer_n = 1 << (log2n or (28 if gpu else 14))
    specs = [("sum", np.float32, ladder_n, VARIANTS)]
    if gpu:
        specs.append(("sum", np.float32, peer_n, ("production",)))
    specs += [("sum", np.int32, peer_n, ("production",)), ("max", np.float32, peer_n,
                                                           ("production",))]
    sections = []
    for op, dtype, n, variants in specs:
        dt = np.dtype(dtype)

        def contenders(op=op, dt=dt, n=n, variants=variants):
            from . import _backend

            xp = _backend.get_backend().xp
            host = _tour.random_data(np.random.default_rng(n), n, dt)
            x = xp.asarray(host)
            acc = _dtypes.sum_dtype(dt) if op == "sum" else dt

            def check(variant):
                depth = n if variant is None else _error_depth(variant, n, dt)
                return lambda got: _oracle.reduce_matches(_tour.to_host(got), host, op, acc,
                                                          depth)[0]

            out = [_tour.Contender(v, (lambda v=v: reduce(x, op, variant=v)), check(v))
                   for v in variants]
            if gpu:
                peer = getattr(xp, op)
                out.append(_tour.Contender(f"cupy.{op} (peer)", lambda: peer(x), check(None)))
            return out

        sections.append(_tour.Section(
            title=f"reduction: {op} {dt.name}, n = 2^{n.bit_length() - 1}",
            nbytes=n * dt.itemsize, contenders=contenders,
            count=len(variants) + (1 if gpu else 0)))
    return sections
