"""NumPy-API figures: narrow-dtype sums, reductions and scans over axes (C and F order, short and
long rows), argmin/argmax and histogram2d against CuPy's twins on the same data.

Each case checks that ours and CuPy's give the same result, then times both in interleaved
rounds. "bytes" is the least the operation must move (every input read once, every output
written once); "% limit" is the time those bytes take at the measured copy rate over ours.
``target`` is the stricter of what the issues that asked for the case require of it; "met" says
whether this run meets it. :func:`cases` is shared with ``python -m tools.tune.axis`` (the
policy sweeps).
"""

from __future__ import annotations

import dataclasses

import numpy as np

import primitives as prim

#: the page section's first words under its header line
CAPTION = (
    "NumPy's everyday calls against CuPy's twins. \"bytes\": the least the call must move "
    '(inputs read once, outputs written once; cumsum of int32 writes int64); "% limit": '
    'the time those bytes take at the copy rate over ours; "target": the stricter of what '
    "the NumPy-API issue asks (its figures set on an H100) and what the everyday-shapes issue "
    "asks (every reduction and scan over axes at 80% of the limit or more and no slower than "
    "CuPy; histogram2d at 60%)."
)


@dataclasses.dataclass(frozen=True)
class Case:
    name: str
    make: object  # make(cp, rng) -> (ours, peer, bytes moved): two callables and an int
    min_pct: float = 0.0  # % of the limit ours must reach
    min_speedup: float = 0.0  # CuPy's time over ours must reach this

    def target(self):
        parts = []
        if self.min_pct:
            parts.append(f">= {self.min_pct:.0f}% limit")
        if self.min_speedup:
            parts.append(f">= {self.min_speedup:g}x CuPy")
        return ", ".join(parts)

    def met(self, pct, speedup):
        return pct >= self.min_pct and speedup >= self.min_speedup


def _f32(cp, rng, shape):
    return rng.random(shape, dtype=np.float32) + np.float32(0.5)


def _narrow(dtype):
    def make(cp, rng):
        if dtype == np.bool_:
            x = rng.random(2**30, dtype=np.float32) < 0.5
        else:
            x = rng.integers(-100, 100, 2**30, dtype=np.int32).astype(np.int8)
        return (lambda: prim.sum(x)), (lambda: cp.sum(x)), x.nbytes

    return make


def _axis_sum(shape, order, axis):
    def make(cp, rng):
        x = _f32(cp, rng, shape)
        if order == "F":
            x = cp.asfortranarray(x)
        axes = axis if isinstance(axis, tuple) else (axis,)
        out_bytes = x.nbytes // int(np.prod([shape[a] for a in axes]))
        return (
            (lambda: prim.sum(x, axis=axis)),
            (lambda: cp.sum(x, axis=axis)),
            x.nbytes + out_bytes,
        )

    return make


def _axis_cumsum(axis):
    def make(cp, rng):
        x = rng.integers(0, 100, (2**12, 2**16), dtype=np.int32)
        out_bytes = x.size * 8  # NumPy's cumsum of int32 is int64
        return (
            (lambda: prim.cumsum(x, axis=axis)),
            (lambda: cp.cumsum(x, axis=axis)),
            x.nbytes + out_bytes,
        )

    return make


def _arg(name):
    def make(cp, rng):
        x = _f32(cp, rng, 2**28)
        return (lambda: getattr(prim, name)(x)), (lambda: getattr(cp, name)(x)), x.nbytes

    return make


def _axis_arg(name, shape, order, axis):
    def make(cp, rng):
        x = _f32(cp, rng, shape)
        if order == "F":
            x = cp.asfortranarray(x)
        out_bytes = 8 * (x.size // shape[axis])  # int64 indices
        return (
            (lambda: getattr(prim, name)(x, axis=axis)),
            (lambda: getattr(cp, name)(x, axis=axis)),
            x.nbytes + out_bytes,
        )

    return make


def _hist2d(cp, rng):
    x, y = _f32(cp, rng, 2**26) - 0.5, _f32(cp, rng, 2**26) - 0.5
    rng2 = [[0, 1], [0, 1]]
    return (
        (lambda: prim.histogram2d(x, y, 256, rng2)[0]),
        (lambda: cp.histogram2d(x, y, 256, rng2)[0]),
        x.nbytes + y.nbytes + 256 * 256 * 8,
    )


def cases():
    """The figures' cases, with the targets of the NumPy-complete API issue."""
    out = [
        Case("sum 2^30 bool", _narrow(np.bool_), 90),
        Case("sum 2^30 int8", _narrow(np.int8), 90),
    ]
    for order in ("C", "F"):
        for axis in (0, 1):
            c_rows = order == "C" and axis == 0  # CuPy's slow case: 3.5x asked
            out.append(
                Case(
                    f"sum(axis={axis}) {order} (65536, 4096) float32",
                    _axis_sum((2**16, 2**12), order, axis),
                    85,
                    3.5 if c_rows else 1.0,
                )
            )
    for shape in ((2**26, 2), (2**24, 8), (2**22, 32), (2**8, 2**20)):
        out.append(Case(f"sum(axis=1) C {shape} float32", _axis_sum(shape, "C", 1), 80, 1.0))
    out += [  # the everyday-shapes issue's own sums over axes
        Case("sum(axis=0) C (16777216, 8) float32", _axis_sum((2**24, 8), "C", 0), 80, 1.0),
        Case(
            "sum(axis=(1, 2)) (256, 512, 512) float32",
            _axis_sum((256, 512, 512), "C", (1, 2)),
            80,
            1.0,
        ),
    ]
    out += [
        Case("cumsum(axis=0) (4096, 65536) int32", _axis_cumsum(0), 80, 10),
        Case("cumsum(axis=1) (4096, 65536) int32", _axis_cumsum(1), 80, 6),
        Case("argmax 2^28 float32", _arg("argmax"), 90, 1.0),
        Case("argmin 2^28 float32", _arg("argmin"), 90, 1.0),
    ]
    for name in ("argmax", "argmin"):
        for order in ("C", "F"):
            for axis in (0, 1):
                out.append(
                    Case(
                        f"{name}(axis={axis}) {order} (65536, 4096) float32",
                        _axis_arg(name, (2**16, 2**12), order, axis),
                        85,
                        1.0,
                    )
                )
    for axis in (0, 1, 2):
        out.append(
            Case(
                f"argmax(axis={axis}) (256, 512, 512) float32",
                _axis_arg("argmax", (256, 512, 512), "C", axis),
                85,
                1.0,
            )
        )
    out += [Case("histogram2d 2^26 float32 pairs, 256 x 256", _hist2d, 60, 10)]
    return out


def same(cp, a, b):
    """Whether ours and CuPy's results agree (float sums within rounding)."""
    a, b = cp.asnumpy(cp.asarray(a)), cp.asnumpy(cp.asarray(b))
    return a.shape == b.shape and np.allclose(
        a.astype(np.float64), b.astype(np.float64), rtol=1e-3, atol=1e-3
    )


def measure(ctx, case, cp, rng, peer=True):
    """(ours ms, CuPy ms or None, bytes, results agree) of one case."""
    ours, theirs, nbytes = case.make(cp, rng)
    ok = same(cp, ours(), theirs())
    t = ctx.bench({"ours": ours, "cupy": theirs} if peer else {"ours": ours})
    cp.get_default_memory_pool().free_all_blocks()
    return t["ours"], t.get("cupy"), nbytes, ok


def run(ctx, only=""):
    import cupy as cp

    rng = cp.random.default_rng(2026)
    ctx.lines += ["", CAPTION]
    ctx.table(
        [
            "case",
            "ours ms",
            "cupy ms",
            "speed-up",
            "bytes",
            "% limit",
            "target",
            "met",
            "same result",
        ]
    )
    for case in cases():
        if only not in case.name:
            continue
        ours, peer_ms, nbytes, ok = measure(ctx, case, cp, rng)
        limit_ms = nbytes / (ctx.copy * 1e9) * 1e3
        pct, speedup = 100 * limit_ms / ours, peer_ms / ours
        ctx.add(
            case.name,
            f"{ours:.4f}",
            f"{peer_ms:.4f}",
            f"{speedup:.2f}x",
            f"{nbytes / 2**20:.0f} MiB",
            f"{pct:.0f}%",
            case.target(),
            "yes" if case.met(pct, speedup) else "**no**",
            "yes" if ok else "**NO**",
        )
