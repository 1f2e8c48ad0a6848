"""Measure the performance figures of docs/performance.md against the peers, in one run.

    python tools/figures.py [--out FILE]

Needs a GPU, CuPy, and (for the CUB column) ``cuda-cccl``'s ``cuda.compute``. Every timing is the
median of per-call CUDA-event times after warm-up, the contenders measured in five interleaved
rounds (:func:`primitives._timing.bench_many`) on random data; each result is checked against the
NumPy oracle first. Prints a Markdown table; ratios are computed
within this one run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys

import numpy as np

import primitives as prim
from primitives import _backend, _oracle, _timing, reduction

REPS = {"rounds": 5, "warmup": 5, "repeat": 20}


def cub_reduce(x, out, op, h_init):
    import cuda.compute as cc

    red = cc.make_reduce_into(d_in=x, d_out=out, op=op, h_init=h_init)
    nbytes = red(temp_storage=None, d_in=x, d_out=out, num_items=x.size, op=op, h_init=h_init)
    import cupy

    tmp = cupy.empty(max(1, nbytes), cupy.uint8)
    return lambda: red(temp_storage=tmp, d_in=x, d_out=out, num_items=x.size, op=op,
                       h_init=h_init)


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import cupy

    backend = _backend.get_backend()
    assert backend.is_cuda, "figures need the CUDA backend"
    info = prim.backend_info()
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "(uncommitted tree)"
    try:
        import cuda.compute as cc
    except Exception as exc:  # report, keep going without the CUB column
        cc = None
        print(f"cuda.compute unavailable: {exc}", file=sys.stderr)

    copy = _timing.copy_bandwidth(1 << 31)
    rng = np.random.default_rng(7)
    lines = [
        f"device: {info['device']} ({info['sm_count']} SMs), CuPy {cupy.__version__}, "
        f"commit {commit}",
        f"measured copy bandwidth (read + write, 2 GiB): {copy:.0f} GB/s",
        "",
        "| work | n | primitives ms | peer | peer ms | ratio (ours/peer) | GB/s read | % copy |",
        "|---|---|---|---|---|---|---|---|",
    ]

    def row(work, n, ours_ms, nbytes, peer, peer_ms):
        gbs = nbytes / (ours_ms * 1e-3) / 1e9
        ratio = f"{ours_ms / peer_ms:.3f}" if peer_ms else "-"
        pm = f"{peer_ms:.4f}" if peer_ms else "-"
        lines.append(f"| {work} | 2^{n.bit_length() - 1} | {ours_ms:.4f} | {peer} | {pm} | "
                     f"{ratio} | {gbs:.0f} | {100 * gbs / copy:.1f}% |")
        print(lines[-1], flush=True)

    def checked(fn, host, op, acc, variant):
        got = fn()
        depth = reduction._error_depth(variant, host.size, np.dtype(acc))
        ok, want, bound = _oracle.reduce_matches(got.get(), host, op, acc, depth)
        assert ok, f"{variant} {op}: got {got}, want {want} (bound {bound})"

    # production sum / max float32 and sum int32 at 2^28 against CuPy (CUB inside) and CUB
    n = 1 << 28
    xf_h = rng.random(n, dtype=np.float32) + np.float32(0.5)
    xf = cupy.asarray(xf_h)
    xi_h = rng.integers(-(2**31), 2**31 - 1, n, dtype=np.int32)
    xi = cupy.asarray(xi_h)
    for op, x, host, acc in (("sum", xf, xf_h, np.float32), ("max", xf, xf_h, np.float32),
                             ("sum", xi, xi_h, np.int64)):
        checked(lambda: prim.reduce(x, op), host, op, acc, "production")
        fns = {"ours": lambda: prim.reduce(x, op),
               f"cupy.{op}": {"sum": lambda: cupy.sum(x), "max": lambda: cupy.max(x)}[op]}
        if cc is not None:
            out = cupy.empty(1, dtype=acc)
            kind = cc.OpKind.PLUS if op == "sum" else cc.OpKind.MAXIMUM
            init = np.zeros(1, acc) if op == "sum" else np.array([-np.inf], acc)
            fns["CUB reduce_into"] = cub_reduce(x, out, kind, init)
        t = _timing.bench_many(fns, **REPS)
        for peer in list(fns)[1:]:
            row(f"{op} {x.dtype.name} production", n, t["ours"], x.nbytes, peer, t[peer])

    # the ladder at 2^26 float32: ratios to alpha
    n = 1 << 26
    xl_h = xf_h[:n]
    xl = xf[:n]
    for v in reduction.VARIANTS:
        checked(lambda: prim.sum(xl, variant=v), xl_h, "sum", np.float32, v)
    times = _timing.bench_many(
        {v: (lambda v=v: prim.sum(xl, variant=v)) for v in reduction.VARIANTS}, **REPS)
    lines += ["", "| ladder variant (sum float32, 2^26) | ms | GB/s read | % copy | vs alpha |",
              "|---|---|---|---|---|"]
    for v, ms in times.items():
        gbs = xl.nbytes / (ms * 1e-3) / 1e9
        lines.append(f"| {v} | {ms:.4f} | {gbs:.0f} | {100 * gbs / copy:.1f}% | "
                     f"{times['alpha'] / ms:.2f}x |")
    text = "\n".join(lines)
    print("\n" + text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
