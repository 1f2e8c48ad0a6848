"""SpMV figures (:mod:`primitives.testing.workloads.sparse`): every suite matrix at full size
(>= 2^22 rows), float32 and float64, every variant and ``auto`` against cuSPARSE
(``cupyx.scipy.sparse`` CSR @ x), with each format's footprint; the merge-path tile and
csr_vector width sweeps behind the defaults; then ``auto`` against cuSPARSE over the widened
suite (``primitives.testing.matrices.WIDE`` at full size, both dtypes: the issue's "every matrix
of the wide suite").

Every result is checked against the float64 cupyx product with ``primitives.sparse.reference``'s
bound before it is timed. GB/s counts the bytes of the format's arrays plus x and y once (its
footprint); "eff. GB/s" counts the CSR bytes for every format, so rows compare the same work.
The sweeps set the policy under test with ``prim.tuning.override`` and time the plan it makes.
Besides the Markdown tables, ``run`` writes ``spmv_figures.csv`` (to $OUT when set) for
``plot``: ``python -m tools.figures.sparse plot spmv_figures.csv docs/spmv_formats.svg``.
"""

import csv
import os
import sys

import numpy as np

import primitives as prim
from primitives import sparse
from primitives.sparse import FORMAT_OF, LANES, VARIANTS, choose_variant, matches, reference
from primitives.testing import matrices as _matrices
from primitives.testing.workloads import sparse as spec

FIELDS = [
    "matrix",
    "dtype",
    "rows",
    "nnz",
    "variant",
    "format",
    "footprint",
    "ms",
    "csr_bytes",
    "xy_bytes",
]


def run(ctx):
    import cupy

    pool = cupy.get_default_memory_pool()
    rows_out = []
    headline, per_variant, targets, sweeps = [], [], [], []
    for name in spec.SUITE.params["matrices"]:
        try:
            _matrix(ctx, name, rows_out, headline, per_variant, targets, sweeps)
        except Exception:  # report and go on with the next matrix  # noqa: BLE001
            import traceback

            traceback.print_exc()
            headline.append((name, "FAILED (see the log)") + ("",) * 9)
        pool.free_all_blocks()
        _write_csv(rows_out)
    ctx.rows(
        [
            "matrix",
            "rows",
            "nonzeros",
            "row length mean / max / cv, span",
            "dtype",
            "auto runs",
            "auto ms",
            "cuSPARSE ms",
            "ratio auto/cuSPARSE",
            "GB/s",
            "% copy",
        ],
        headline,
        "auto against cuSPARSE (cupyx.scipy.sparse CSR @ x), same run; GB/s: CSR "
        "arrays + x + y over auto's time",
    )
    ctx.rows(
        ["dtype", "csr_vector / merge_path", "csr_scalar / merge_path"],
        targets,
        "merge_path speedup on the power-law matrix",
    )
    ctx.rows(
        ["matrix", "variant", "format", "MB", "x CSR", "ms", "GB/s", "eff. GB/s", "vs cuSPARSE"],
        per_variant,
        "every variant: footprint (MB and x CSR), time, GB/s of its own footprint + x + y, "
        "effective GB/s (CSR bytes), time over cuSPARSE's",
    )
    ctx.rows(
        ["matrix", "setting", "ms"],
        sweeps,
        "tuning sweeps (ms): merge_path tile (threads x items), csr_vector lanes",
    )
    path = _write_csv(rows_out)
    ctx.lines += ["", f"(raw numbers: {os.path.basename(path)})"]
    wide = []
    for name in _matrices.WIDE:
        try:
            _wide(ctx, name, wide)
        except Exception:  # report and go on with the next matrix  # noqa: BLE001
            import traceback

            traceback.print_exc()
            wide.append((name, "FAILED (see the log)") + ("",) * 7)
        pool.free_all_blocks()
    target = spec.WIDE.params["target"]
    ctx.rows(
        [
            "matrix",
            "dtype",
            "rows",
            "nonzeros",
            "row length mean / max / cv",
            "auto runs",
            "auto ms",
            "cuSPARSE ms",
            f"ratio (<= {target})",
        ],
        wide,
        "the widened suite (primitives.testing.matrices.WIDE, full size): auto against cuSPARSE, "
        "same run",
    )
    ratios = [float(r[-1].strip("*")) for r in wide if r[-1] and r[-1][0].isdigit()]
    met = len(ratios) == 2 * len(_matrices.WIDE) and max(ratios) <= target
    worst = f"{max(ratios):.3f}" if ratios else "none"
    ctx.lines += [
        "",
        f"widened suite: worst auto / cuSPARSE {worst}; met: {'yes' if met else 'no'}",
    ]


def _products(structure, dtypes):
    """For each dtype of ``dtypes``, a product's operands over ``structure`` (indptr, indices,
    shape: a generator's of ``primitives.testing.matrices``, taken as int32) with random values:
    ``(dt, shape, data, csr, peer, x, want, bound)``, the library's CSR and cuSPARSE's over the
    same arrays, x, and the float64 oracle's answer and bound (``primitives.sparse.reference``)."""
    import cupy
    import cupyx.scipy.sparse as cxs

    ip, ix, shape = structure
    ip32, ix32 = ip.astype(np.int32), ix.astype(np.int32)
    del ip, ix, structure
    for dt in map(np.dtype, dtypes):
        data = _matrices.values(ix32.size, dt, xp=cupy, seed=3)
        csr = sparse.CSR._from_arrays(data, ix32, ip32, shape)
        peer = cxs.csr_matrix((data, ix32, ip32), shape=shape)
        x = _matrices.values(shape[1], dt, xp=cupy, seed=5)
        A64 = cxs.csr_matrix((data.astype(np.float64), ix32, ip32), shape=shape)
        want, bound = reference(A64, x, dtype=dt)
        del A64
        yield dt, shape, data, csr, peer, x, want, bound


def _matrix(ctx, name, rows_out, headline, per_variant, targets, sweeps):
    import cupy

    pool = cupy.get_default_memory_pool()
    # the int64 structure lives in the generator only, freed once it holds the int32 copy
    cases = _products(
        _matrices.generate(name, spec.SUITE.params["scale"], xp=cupy), spec.SUITE.dtypes
    )
    for dt, shape, data, csr, peer, x, want, bound in cases:
        st = csr.row_stats()
        forms = {"csr": csr, "coo": sparse.COO(csr), "hyb": sparse.HYB(csr)}
        try:
            forms["ell"] = sparse.ELL(csr)
        except ValueError:
            forms["ell"] = None
        auto = choose_variant(csr)
        fns = {"auto": lambda: prim.spmv(csr, x)}  # noqa: F821 - bound when the lambda runs (deleted after)
        for v in VARIANTS:
            M = forms[FORMAT_OF[v]]
            if M is not None:
                fns[v] = lambda M=M, v=v: prim.spmv(M, x, variant=v)  # noqa: F821 - bound when the lambda runs (deleted after)
        fns["cuSPARSE"] = lambda: peer @ x  # noqa: F821 - bound when the lambda runs (deleted after)
        for v, fn in fns.items():
            ok, i = matches(fn(), want, bound)
            assert ok, f"{name} {dt.name} {v}: wrong at row {i}"
        slow = {
            v for v in fns if v in ("csr_scalar", "csr_vector") and st.max > 64 * max(st.mean, 1)
        }
        t = ctx.bench({v: f for v, f in fns.items() if v not in slow})
        if slow:  # a few hot rows make these take milliseconds: fewer repetitions
            t.update(ctx.bench({v: fns[v] for v in slow}, rounds=2, warmup=2, repeat=5))
        xy = (shape[0] + shape[1]) * dt.itemsize
        label = f"{name} {dt.name}"
        gbs = ctx.peer_record(
            f"spmv auto ({auto}), {name} {dt.name}",
            csr.nnz,
            t["auto"],
            csr.nbytes + xy,
            "cuSPARSE",
            t["cuSPARSE"],
        )
        headline.append(
            (
                name,
                f"{shape[0]}",
                f"{csr.nnz / 1e6:.1f}M",
                f"{st.mean:.1f} / {st.max} / {st.cv:.2f} / {st.span:.3f}",
                dt.name,
                auto,
                f"{t['auto']:.4f}",
                f"{t['cuSPARSE']:.4f}",
                f"{t['auto'] / t['cuSPARSE']:.3f}",
                f"{gbs:.0f}",
                f"{100 * gbs / ctx.copy:.1f}%",
            )
        )
        print("spmv:", " | ".join(headline[-1]), flush=True)
        for v in fns:
            fmt = "csr" if v in ("auto", "cuSPARSE") else FORMAT_OF[v]
            M = forms[fmt]
            own = (M.nbytes + xy) / (t[v] * 1e-3) / 1e9
            eff = (csr.nbytes + xy) / (t[v] * 1e-3) / 1e9
            per_variant.append(
                (
                    label,
                    v,
                    fmt,
                    f"{M.nbytes / 1e6:.0f}",
                    f"{M.nbytes / csr.nbytes:.2f}",
                    f"{t[v]:.4f}",
                    f"{own:.0f}",
                    f"{eff:.0f}",
                    f"{t[v] / t['cuSPARSE']:.3f}",
                )
            )
            rows_out.append(
                dict(
                    matrix=name,
                    dtype=dt.name,
                    rows=shape[0],
                    nnz=csr.nnz,
                    variant=v,
                    format=fmt,
                    footprint=M.nbytes,
                    ms=t[v],
                    csr_bytes=csr.nbytes,
                    xy_bytes=xy,
                )
            )
        if name == "powerlaw":
            targets.append(
                (
                    dt.name,
                    f"{t['csr_vector'] / t['merge_path']:.2f}x",
                    f"{t['csr_scalar'] / t['merge_path']:.2f}x",
                )
            )
        sweeps += _sweep(ctx, csr, x, want, bound, label, st)
        del forms, fns, csr, peer, data, x, want, bound
        pool.free_all_blocks()
    pool.free_all_blocks()


def _wide(ctx, name, wide):
    """``auto`` against cuSPARSE on widened-suite matrix ``name`` in each dtype (both checked
    against the float64 oracle first), one row each in ``wide``; a ratio over the target
    starred."""
    import cupy

    cases = _products(
        _matrices.generate_wide(name, spec.WIDE.params["scale"], xp=cupy), spec.WIDE.dtypes
    )
    for dt, shape, data, csr, peer, x, want, bound in cases:
        st = csr.row_stats()
        fns = {"auto": lambda: prim.spmv(csr, x), "cuSPARSE": lambda: peer @ x}  # noqa: F821 - bound when the lambda runs
        for v, fn in fns.items():
            ok, i = matches(fn(), want, bound)
            assert ok, f"{name} {dt.name} {v}: wrong at row {i}"
        t = ctx.bench(fns)
        ratio = t["auto"] / t["cuSPARSE"]
        star = "" if ratio <= spec.WIDE.params["target"] else "*"
        wide.append(
            (
                name,
                dt.name,
                f"{shape[0]}",
                f"{csr.nnz / 1e6:.1f}M",
                f"{st.mean:.1f} / {st.max} / {st.cv:.2f}",
                choose_variant(csr),
                f"{t['auto']:.4f}",
                f"{t['cuSPARSE']:.4f}",
                f"{ratio:.3f}{star}",
            )
        )
        print("spmv wide:", " | ".join(wide[-1]), flush=True)
        del fns, csr, peer, data, x, want, bound


def _write_csv(rows_out):
    path = os.path.join(os.environ.get("OUT", "."), "spmv_figures.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS)
        w.writeheader()
        w.writerows(rows_out)
    return path


def _planned(csr, x, variant, selector=None, **fields):
    """The product of ``variant`` under the spmv policy ``selector`` with ``fields`` replaced:
    the plan made inside the override, called as the repeat path calls it (a new y per call)."""
    from primitives.sparse import _plans as _sp

    if selector is None:
        plan = _sp.plan_for(variant, csr)
    else:
        with prim.tuning.override("spmv", selector=selector, **fields):
            plan = _sp.plan_for(variant, csr)
    return lambda: plan(csr, x, None, 1.0, 0.0)


def _sweep(ctx, csr, x, want, bound, label, st):
    fns = {}
    merge = ("merge_path", csr.dtype.name)
    for block, items in ((128, 8), (256, 4), (256, 6), (256, 8), (256, 10), (256, 12)):
        try:
            fns[f"merge_path {block}x{items}"] = _planned(
                csr, x, "merge_path", merge, block=block, items=items
            )
        except (prim.KernelCompileError, ValueError) as exc:  # e.g. a tile past shared memory
            print(f"{label} merge_path {block}x{items}: not run ({str(exc)[:80]})", flush=True)
    if st.max <= 64 * max(st.mean, 1):
        fns["csr_scalar"] = _planned(csr, x, "csr_scalar")
        for lanes in LANES:
            fns[f"csr_vector lanes={lanes}"] = _planned(
                csr, x, "csr_vector", ("csr_vector", csr.dtype.name), lanes=lanes
            )
    for k, fn in fns.items():
        ok, i = matches(fn(), want, bound)
        assert ok, f"{label} {k}: wrong at row {i}"
    t = ctx.bench(fns, rounds=3, warmup=3, repeat=10)
    return [(label, k, f"{ms:.4f}") for k, ms in t.items()]


# ---- the docs plot: footprint against throughput, as a dependency-free SVG ----------------------

_COLORS = {
    "csr_scalar": "#9e9e9e",
    "csr_vector": "#1f77b4",
    "merge_path": "#d62728",
    "ell": "#2ca02c",
    "coo": "#ff7f0e",
    "hyb": "#9467bd",
    "cuSPARSE": "#000000",
}


def plot(csv_path, svg_path, dtype="float32"):
    """Grouped bars per matrix: effective throughput (GFLOP/s, 2 per nonzero) of every variant,
    labelled with its format's bytes per nonzero."""
    with open(csv_path) as f:
        rows = [r for r in csv.DictReader(f) if r["dtype"] == dtype and r["variant"] != "auto"]
    mats = list(dict.fromkeys(r["matrix"] for r in rows))
    variants = [v for v in _COLORS if any(r["variant"] == v for r in rows)]
    gflops = {
        (r["matrix"], r["variant"]): 2 * int(r["nnz"]) / (float(r["ms"]) * 1e-3) / 1e9 for r in rows
    }
    bpn = {(r["matrix"], r["variant"]): int(r["footprint"]) / int(r["nnz"]) for r in rows}
    top = max(gflops.values()) * 1.1
    W, H, left, bottom, topm = 980, 420, 60, 70, 40
    gw = (W - left - 20) / len(mats)
    bw = gw * 0.8 / len(variants)
    ph = H - bottom - topm
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" '
        f'font-family="sans-serif" font-size="11">',
        f'<text x="{W / 2}" y="18" text-anchor="middle" font-size="13">SpMV on an H100, '
        f"{dtype}: GFLOP/s per variant (label: bytes of the format per nonzero)</text>",
    ]
    for k in range(6):
        v = top * k / 5
        yy = topm + ph - ph * k / 5
        out.append(
            f'<line x1="{left}" y1="{yy:.1f}" x2="{W - 20}" y2="{yy:.1f}" '
            f'stroke="#ddd"/><text x="{left - 5}" y="{yy + 4:.1f}" '
            f'text-anchor="end">{v:.0f}</text>'
        )
    for i, mname in enumerate(mats):
        x0 = left + i * gw + gw * 0.1
        for j, v in enumerate(variants):
            g = gflops.get((mname, v))
            if g is None:
                continue
            h = ph * g / top
            xx = x0 + j * bw
            out.append(
                f'<rect x="{xx:.1f}" y="{topm + ph - h:.1f}" width="{bw * 0.9:.1f}" '
                f'height="{h:.1f}" fill="{_COLORS[v]}"><title>{mname} {v}: {g:.0f} '
                f"GFLOP/s, {bpn[(mname, v)]:.1f} B/nnz</title></rect>"
            )
            out.append(
                f'<text x="{xx + bw * 0.45:.1f}" y="{topm + ph - h - 3:.1f}" '
                f'text-anchor="middle" font-size="8">{bpn[(mname, v)]:.0f}</text>'
            )
        out.append(
            f'<text x="{x0 + gw * 0.4:.1f}" y="{topm + ph + 15}" '
            f'text-anchor="middle">{mname}</text>'
        )
    for j, v in enumerate(variants):
        xx = left + j * 125
        out.append(
            f'<rect x="{xx}" y="{H - 28}" width="12" height="12" fill="{_COLORS[v]}"/>'
            f'<text x="{xx + 16}" y="{H - 18}">{v}</text>'
        )
    out.append("</svg>")
    with open(svg_path, "w") as f:
        f.write("\n".join(out) + "\n")


if __name__ == "__main__":
    if len(sys.argv) >= 4 and sys.argv[1] == "plot":
        plot(sys.argv[2], sys.argv[3], *sys.argv[4:])
    else:
        print(__doc__)
