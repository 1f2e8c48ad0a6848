"""First-call time of every public function and of CuPy's twins, each in a fresh process with
empty kernel caches (the zero-wait start figures).

    python -m tools.probes.first_call [--only NAME ...] [--binaries DIR|off] [--n N] [--out FILE]
                                      [--profile] [--trace]
    python -m tools.probes.first_call --steps [--only NAME ...]   # the kernels, the compile steps
    python /path/to/tools/probes/first_call.py ...   # from another folder: an installed package

The children import ``primitives`` as Python finds it from the current folder: run it as a file
from a folder other than the repository's to time an installed wheel rather than the sources.

For each function a new Python process imports primitives (or CuPy), makes its input (n = 2^20
by default, random, made on the host and copied to the device: no CuPy kernel is compiled before
the call, which would leave CuPy's compiler warmed for it, or in it), synchronizes, then times its
first call to the end of its work (wall-clock, synchronized): the compile, load and launch a new
user waits for; the import is not counted. Every process gets an empty temporary ``HOME``, CuPy
kernel cache and primitives cache, so nothing compiled by an earlier process is reused. The table
says where the call's kernels came from (``primitives._core.loader.kernel_origins``: ``shipped``
binaries of the package, or ``compiled``) and how many kernels CuPy compiled for it (its own
elementwise and reduction kernels, files of its cache). ``--binaries`` chooses the kernel
binaries the package loads (``PRIMITIVES_KERNEL_BINARIES``; default: the package's own, where
the installed wheel has them). Every function of ``primitives.__all__`` that launches kernels has
a call here (a test of the list: :data:`NOT_KERNELS` names the others). Runs on the emulator too
(then it times the host compiler).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

#: the names of ``primitives.__all__`` that launch no kernel of their own
NOT_KERNELS = frozenset(
    {
        "backend_info",
        "KernelCompileError",
        "__version__",
        "clear_caches",
        "cache_info",
        "tuning",
        "Op",
    }
)

#: name -> (setup statements making ``x``, ``y``..., the first call); ``xp`` is the array module
CALLS = {
    "sum": ("x = rnd(n, 'float32')", "prim.sum(x)"),
    "min": ("x = rnd(n, 'float32')", "prim.min(x)"),
    "prod": ("x = rnd(n, 'float64')", "prim.prod(x)"),
    "mean": ("x = rnd(n, 'float32')", "prim.mean(x)"),
    "argmax": ("x = rnd(n, 'float32')", "prim.argmax(x)"),
    "sum axis=0": ("x = rnd(n, 'float32').reshape(-1, 256)", "prim.sum(x, axis=0)"),
    "cumsum": ("x = rnd(n, 'int32')", "prim.cumsum(x)"),
    "cumsum axis=0": ("x = rnd(n, 'int32').reshape(-1, 256)", "prim.cumsum(x, axis=0)"),
    "exclusive_scan": ("x = rnd(n, 'float32')", "prim.exclusive_scan(x)"),
    "compact": ("x = rnd(n, 'float32'); m = dev(host(n, 'float32') > 0.5)", "prim.compact(x, m)"),
    "segmented_reduce": (
        "x = rnd(n, 'float32'); o = dev(np.arange(0, n + 1, 1024))",
        "prim.segmented_reduce(x, o)",
    ),
    "sort": ("x = rnd(n, 'uint32')", "prim.sort(x)"),
    "argsort": ("x = rnd(n, 'uint32')", "prim.argsort(x)"),
    "histogram": ("x = rnd(n, 'float32')", "prim.histogram(x, 100, (0, 1))"),
    "bincount": ("x = dev(host(n, 'int32') % 1000)", "prim.bincount(x)"),
    "histogram2d": (
        "x = rnd(n, 'float32'); y = rnd(n, 'float32')",
        "prim.histogram2d(x, y, 64, [[0, 1], [0, 1]])",
    ),
    "spmv": (
        "import scipy.sparse as sp; A = prim.sparse.CSR(sp.random(n >> 6, n >> 6, "
        "density=1e-3, format='csr', dtype='float32', random_state=1)); "
        "x = rnd(n >> 6, 'float32')",
        "prim.spmv(A, x)",
    ),
    "reduce": ("x = rnd(n, 'float32')", "prim.reduce(x, 'max')"),
    "max": ("x = rnd(n, 'float32')", "prim.max(x)"),
    "any": ("x = dev(host(n, 'float32') > 0.5)", "prim.any(x)"),
    "all": ("x = dev(host(n, 'float32') > 0.5)", "prim.all(x)"),
    "argmin": ("x = rnd(n, 'float32')", "prim.argmin(x)"),
    "inclusive_scan": ("x = rnd(n, 'float32')", "prim.inclusive_scan(x)"),
    "cumprod": ("x = rnd(n, 'float64')", "prim.cumprod(x)"),
    "compact_indices": ("m = dev(host(n, 'float32') > 0.5)", "prim.compact_indices(m)"),
    "segmented_scan": (
        "x = rnd(n, 'float32'); o = dev(np.arange(0, n + 1, 1024))",
        "prim.segmented_scan(x, offsets=o)",
    ),
    "histogram_even": ("x = rnd(n, 'float32')", "prim.histogram_even(x, 100, 0.0, 1.0)"),
    "histogram_channels": ("x = rnd(n, 'uint8').reshape(-1, 4)", "prim.histogram_channels(x)"),
    "histogramdd": ("x = rnd(n, 'float32').reshape(-1, 4)", "prim.histogramdd(x, 8, [(0, 1)] * 4)"),
    "radix_sort": ("x = rnd(n, 'uint32'); v = rnd(n, 'uint32')", "prim.radix_sort(x, v)"),
    "segmented_sort": (
        "x = rnd(n, 'float32'); o = dev(np.arange(0, n + 1, 1024))",
        "prim.segmented_sort(x, o)",
    ),
    "topk": ("x = rnd(n, 'float32')", "prim.topk(x, 16)"),
    "partition": ("x = rnd(n, 'float32')", "prim.partition(x, 1000)"),
    "argpartition": ("x = rnd(n, 'float32')", "prim.argpartition(x, 1000)"),
    "unique": ("x = dev(host(n, 'uint32') % 1000)", "prim.unique(x, return_counts=True)"),
    "run_length_encode": (
        "x = dev(np.sort(host(n, 'uint32') % 1000))",
        "prim.run_length_encode(x)",
    ),
    "reduce_by_key": (
        "k = dev(np.sort(host(n, 'int32') // 16)); x = rnd(n, 'float32')",
        "prim.reduce_by_key(k, x)",
    ),
    "searchsorted": (
        "a = dev(np.sort(host(n, 'float32'))); v = rnd(n, 'float32')",
        "prim.searchsorted(a, v)",
    ),
    "plan": ("x = rnd(n, 'float32')", "prim.plan(prim.sum, x)(x)"),
    "percentile": ("x = rnd(n, 'float32')", "prim.percentile(x, 90)"),
    "nanpercentile": ("x = rnd(n, 'float32')", "prim.nanpercentile(x, 90)"),
    "quantile": ("x = rnd(n, 'float32')", "prim.quantile(x, 0.9)"),
    "nanquantile": ("x = rnd(n, 'float32')", "prim.nanquantile(x, 0.9)"),
    "lexsort": ("x = rnd(n, 'uint32'); y = dev(host(n, 'uint32') % 16)", "prim.lexsort((x, y))"),
    "sparse": (
        "import scipy.sparse as sp; A = prim.sparse.CSR(sp.random(n >> 6, n >> 6, "
        "density=1e-3, format='csr', dtype='float32', random_state=1)); "
        "x = rnd(n >> 6, 'float32')",
        "prim.sparse.spmv(A, x)",
    ),
    "cupy.sum": ("x = rnd(n, 'float32')", "xp.sum(x)"),
    "cupy.cumsum": ("x = rnd(n, 'int32')", "xp.cumsum(x)"),
    "cupy.sort": ("x = rnd(n, 'uint32')", "xp.sort(x)"),
    "cupy.histogram": ("x = rnd(n, 'float32')", "xp.histogram(x, 100, (0, 1))"),
    "nansum": ("x = rnd(n, 'float32')", "prim.nansum(x)"),
    "nanprod": ("x = rnd(n, 'float32')", "prim.nanprod(x)"),
    "nanmin": ("x = rnd(n, 'float32')", "prim.nanmin(x)"),
    "nanmax": ("x = rnd(n, 'float32')", "prim.nanmax(x)"),
    "nanargmin": ("x = rnd(n, 'float32')", "prim.nanargmin(x)"),
    "nanargmax": ("x = rnd(n, 'float32')", "prim.nanargmax(x)"),
    "nanmean": ("x = rnd(n, 'float32')", "prim.nanmean(x)"),
    "nancumsum": ("x = rnd(n, 'float32')", "prim.nancumsum(x)"),
    "nancumprod": ("x = rnd(n, 'float32')", "prim.nancumprod(x)"),
    "var": ("x = rnd(n, 'float32')", "prim.var(x)"),
    "std": ("x = rnd(n, 'float32')", "prim.std(x)"),
    "nanvar": ("x = rnd(n, 'float32')", "prim.nanvar(x)"),
    "nanstd": ("x = rnd(n, 'float32')", "prim.nanstd(x)"),
    "ptp": ("x = rnd(n, 'float32')", "prim.ptp(x)"),
    "count_nonzero": ("x = rnd(n, 'float32')", "prim.count_nonzero(x)"),
    "average": ("x = rnd(n, 'float32')", "prim.average(x)"),
    "median": ("x = rnd(n, 'float32')", "prim.median(x)"),
    "nanmedian": ("x = rnd(n, 'float32')", "prim.nanmedian(x)"),
}

CHILD = r"""
import json, os, sys, time
import numpy as np
import primitives as prim
from primitives._core import backend as _b, loader as _loader
b = _b.get_backend()
xp = b.xp
def sync():
    if b.is_cuda:
        xp.cuda.Device().synchronize()
def host(n, dt):
    h = np.random.default_rng(1).random(n)
    return (h * 2**31).astype(dt) if np.dtype(dt).kind in 'iu' else h.astype(dt)
def dev(h):
    return xp.asarray(h)
def rnd(n, dt):
    return dev(host(n, dt))
n = {n}
{setup}
sync()
cupy_cache = os.environ["CUPY_CACHE_DIR"]
def cupy_kernels():
    return sum(len(f) for _, _, f in os.walk(cupy_cache)) if os.path.isdir(cupy_cache) else 0
c0 = cupy_kernels()
prof = None
if os.environ.get("PRIMITIVES_FIRST_CALL_PROFILE"):
    import cProfile
    prof = cProfile.Profile()
    prof.enable()
t = time.perf_counter()
r = {call}
sync()
dt = time.perf_counter() - t
out = {{"s": dt, "backend": b.name, "origins": _loader.kernel_origins()}}
if b.is_cuda:
    from primitives._core import lazy as _lazy
    out["compiles"] = [
        [c[0], c[1], c[2], c[3] - t, c[4] - t] for c in _lazy.compiles(t) if c[4] - t <= dt
    ]
if prof is not None:
    import io, pstats
    prof.disable()
    text = io.StringIO()
    pstats.Stats(prof, stream=text).sort_stats("cumulative").print_stats(25)
    out["profile"] = text.getvalue()
from primitives._core import binaries as _bins
out["package"] = os.path.dirname(prim.__file__)
out["binaries"] = _bins.index() is not None
out["cupy"] = cupy_kernels() - c0
print(json.dumps(out), flush=True)
# no wait at exit for the default-level images compiling behind fast ones (compile tiers): the
# next child has a cache of its own
os._exit(0)
"""


def call_of(name):
    """(setup, call) of ``name``: its entry of :data:`CALLS`, else a function of one array
    (``prim.name(x)``, x float32: the reductions and statistics)."""
    return CALLS.get(name) or ("x = rnd(n, 'float32')", f"prim.{name}(x)")


def public_functions():
    """Every name of ``primitives.__all__`` that launches kernels, in its order."""
    import primitives

    return [n for n in primitives.__all__ if n not in NOT_KERNELS]


#: first calls that compile in more than one step: a kernel chosen from what an earlier one
#: found (bincount's and unique's histogram from the keys' range; segmented_sort's by the
#: longest segment)
STEPS = {"bincount": 2, "unique": 2, "segmented_sort": 2}


def compile_steps(name, n=1 << 12):
    """``(steps, kernels)`` of ``name``'s call made in this process after its plans are cleared:
    the kernels it loads, in order (``(source, instantiation)``), and the steps a first call
    compiles them in where kernels compile on first use: one, and one more for each kernel not
    asked for (``prefetch``) before the load before it, since the call waits for each such
    compile in turn. The same on the emulator as on a GPU (the plans ask and load alike)."""
    import numpy as np

    import primitives as prim
    from primitives._core import backend as _b, loader as _loader

    xp = _b.get_backend().xp

    def host(m, dt):
        h = np.random.default_rng(1).random(m)
        return (h * 2**31).astype(dt) if np.dtype(dt).kind in "iu" else h.astype(dt)

    scope = {"np": np, "prim": prim, "xp": xp, "n": n, "host": host, "dev": xp.asarray}
    scope["rnd"] = lambda m, dt: xp.asarray(host(m, dt))
    setup, call = call_of(name)
    exec(setup, scope)  # noqa: S102 - this module's own table
    events = []
    load, prefetch = _loader.load, _loader.prefetch

    def asked(relpath, names):
        events.extend(("ask", relpath, nm) for nm in names)
        return prefetch(relpath, names)

    def loaded(relpath, names, *args, **kwargs):
        get = load(relpath, names, *args, **kwargs)

        def one(nm):
            events.append(("load", relpath, nm))
            return get(nm)

        return one

    prim.clear_caches()
    _loader.load, _loader.prefetch = loaded, asked
    try:
        eval(call, scope)  # noqa: S307 - this module's own table
    finally:
        _loader.load, _loader.prefetch = load, prefetch
    kernels, steps, asked_so_far, before_last = [], 0, set(), set()
    for kind, relpath, nm in events:
        if kind == "ask":
            asked_so_far.add((relpath, nm))
        elif (relpath, nm) not in kernels:
            kernels.append((relpath, nm))
            steps += (relpath, nm) not in before_last or steps == 0
            before_last = set(asked_so_far)
    return steps, kernels


def first_call(name, binaries=None, n=1 << 20, profile=False):
    """``{"s": seconds, "origins": {...}, "cupy": kernels}`` of ``name``'s first call in a fresh
    process with empty caches (and an error line where it failed)."""
    setup, call = call_of(name)
    with tempfile.TemporaryDirectory() as home:
        env = {
            **os.environ,
            "HOME": home,
            "CUPY_CACHE_DIR": os.path.join(home, "cupy"),
            "PRIMITIVES_CACHE_DIR": os.path.join(home, "prim"),
        }
        if binaries is not None:
            env["PRIMITIVES_KERNEL_BINARIES"] = binaries
        if profile:
            env["PRIMITIVES_FIRST_CALL_PROFILE"] = "1"
        code = CHILD.format(setup=setup, call=call, n=int(n))
        r = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=900
        )
        if r.returncode != 0:
            return None, r.stderr.strip().splitlines()[-1:]
        return json.loads(r.stdout.strip().splitlines()[-1]), None


def trace(compiles):
    """The compiles of one first call, one line each (start, end, level, file, instantiation),
    and a summary: how many, their seconds summed and the end of the last one the call ran."""
    lines = [
        f"    {c[3]:6.3f} {c[4]:6.3f} {'fast' if c[2] else 'default'} {c[0]} {c[1]}"
        for c in sorted(compiles, key=lambda c: c[3])
    ]
    fast = [c for c in compiles if c[2]]
    total = sum(c[4] - c[3] for c in compiles)
    last = max((c[4] for c in fast), default=0.0)
    lines.append(
        f"    {len(compiles)} compiles ({len(fast)} fast), {total:.3f} s summed, "
        f"the last fast one ended at {last:.3f} s"
    )
    return "\n".join(lines)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.probes.first_call")
    ap.add_argument("--only", action="append", metavar="NAME", help="this function alone")
    ap.add_argument(
        "--binaries",
        default=None,
        help="PRIMITIVES_KERNEL_BINARIES for the children (a directory, or off)",
    )
    ap.add_argument("--n", type=int, default=1 << 20, help="elements of the inputs (2^20)")
    ap.add_argument("--no-cupy", action="store_true", help="leave out CuPy's twins")
    ap.add_argument("--out", default=None, help="the table as Markdown")
    ap.add_argument(
        "--profile",
        action="store_true",
        help="run each first call under cProfile and print its 25 costliest functions "
        "(cumulative time; the timed seconds include the profiler's overhead)",
    )
    ap.add_argument(
        "--trace",
        action="store_true",
        help="after each row, the NVRTC compiles that ended within the first call "
        "(primitives._core.lazy.compiles): file, instantiation, level, start and end seconds",
    )
    ap.add_argument(
        "--steps",
        action="store_true",
        help="instead of timing, each call's kernels and the steps a first call compiles them "
        "in (compile_steps; in this process, on the backend it has)",
    )
    args = ap.parse_args(argv)
    if args.steps:
        for name in args.only or public_functions():
            steps, kernels = compile_steps(name)
            print(f"{name}: {steps} step(s), {len(kernels)} kernel(s)", flush=True)
            for relpath, nm in kernels:
                print(f"    {relpath} {nm}", flush=True)
        return
    cupy = [] if args.no_cupy else [c for c in CALLS if c.startswith("cupy.")]
    names = args.only or public_functions() + [c for c in CALLS if " " in c] + cupy
    lines = [
        "| first call (fresh process, empty caches) | seconds | kernels | CuPy kernels compiled |",
        "|---|---|---|---|",
    ]
    print("\n".join(lines), flush=True)
    total = 0.0
    for name in names:
        res, err = first_call(name, args.binaries, args.n, args.profile)
        if res is not None and name == names[0]:  # which package the children import
            print(
                f"(primitives from {res['package']}, backend {res['backend']}, kernel binaries "
                f"{'present' if res['binaries'] else 'absent or stale'})",
                flush=True,
            )
        if res is None:
            lines.append(f"| {name} | failed: {err} | | |")
        else:
            total += res["s"]
            origins = ", ".join(f"{v} {k}" for k, v in sorted(res["origins"].items())) or "none"
            lines.append(f"| {name} | {res['s']:.3f} | {origins} | {res['cupy']} |")
        print(lines[-1], flush=True)
        if res is not None and "profile" in res:
            print(res["profile"], flush=True)
        if res is not None and args.trace:
            print(trace(res.get("compiles", [])), flush=True)
    lines.append(f"| all ({len(names)}) | {total:.3f} | | |")
    print(lines[-1], flush=True)
    if args.out:
        with open(args.out, "w") as f:
            f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
