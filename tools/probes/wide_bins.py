"""Wide histograms by buckets against the partial privatization, and unique's counts with each:

    python -m tools.probes.wide_bins [log2 n]

Where the production policy's ``bucketed_from_bins`` belongs (0: the bucketed variant only when
asked for by name). Three tables, each interleaved (primitives._core.timing.bench_many, 5 rounds
x (5 warm-ups + 20 samples) on a GPU; a small n runs on the emulator: a check of the probe):

- ``histogram`` of n float32 samples uniform in [0, 1) (2^28 by default), 2^16 .. 2^24 bins:
  ``partial_privatized`` (the bins beyond shared memory by global atomics), ``bucketed`` (the
  bins grouped by ranges of 65,536, each range counted in shared memory), ``global_vectorized``;
  ms and GB/s of samples read;
  then ``bucketed`` and ``partial_privatized`` again with their 16-bit counters' bounded adds
  (the production policy's ``bucket_tally_bounded`` and ``packed_bounded``: adds that return
  nothing, settled between rounds);
- partial_privatized at 2^16, 2^17 and 2^18 bins with the even binner's inner edges (those of
  the samples in an edge band) computed as linspace made them and loaded (the production
  policy's ``f32_edges_computed``);
- 65,536 bins, where partial_privatized's time goes: n float32 uniform in [0, 1) (the figure),
  the same at the bins' centres (no sample near an edge: no edge loads), n / 2 uint16 keys over
  all 65,536 values by ``bincount`` (no float binning at all), each with the 16-bit counters'
  adds returning their word (the policy's) and bounded (``packed_bounded``: adds that return
  nothing, settled between rounds), and the bucketed tally's kind of work (the uint16 keys by
  ``bucketed``, returning and bounded adds), ``histogram2d`` 256 x 256 of n / 4 float32 pairs
  (the dd policy's ``packed_bounded``), and the uniform samples (returning adds) with the
  production policy's ``f32_edge_band`` at 8 and 4 (the even binner compares more samples with
  an edge than at the policy's 3: a quarter of them at 8, an eighth at 4, 3/32 at 3; the edges
  loaded against computed: the table above); plans made under each policy, interleaved;
- ``bincount`` of n / 2 uint32 keys uniform in [0, 2^20): the same variants;
- ``unique(return_counts=True)`` of those keys (the issue's counts case) under the policy in
  force, with partial_privatized's bounded adds, and with ``bucketed_from_bins`` = 2^17 (its
  tally's adds returning and bounded), each in a run of its own with ``torch.unique``
  interleaved (where torch is installed): ms and the ratio to torch (the issue asks <= 0.5).

Every variant's answer is checked against the first's before timing.
"""

from __future__ import annotations

import contextlib
import sys

import numpy as np

import primitives as prim
from primitives._core import backend as _backend, timing as _timing

backend = _backend.get_backend()
xp = backend.xp  # CuPy on a GPU, NumPy on the emulator
ROUNDS = (
    dict(rounds=5, warmup=5, repeat=20) if backend.is_cuda else dict(rounds=1, warmup=0, repeat=1)
)
VARIANTS = ("partial_privatized", "bucketed", "global_vectorized")
#: the threshold tried for unique's counts (the first power of two past 2 x 58,111 bins)
BUCKETED_FROM = 1 << 17


def _same(results):
    first = results[0]
    return all(bool((r == first).all()) for r in results[1:])


@contextlib.contextmanager
def _bounded(on):
    """The histogram policies with the 16-bit counters' bounded adds ``on``: partial_privatized's
    and the bucketed tally's (production), histogram2d's and histogramdd's (dd); an override
    entered around checks and timing alike, not per call."""
    with (
        prim.tuning.override(
            "histograms", selector="production", packed_bounded=on, bucket_tally_bounded=on
        ),
        prim.tuning.override("histograms", selector="dd", packed_bounded=on),
    ):
        yield


def histograms(n, bounded=False, variants=VARIANTS):
    """``{bins: {variant: ms}}`` for n float32 samples in [0, 1), the bucketed tally's adds
    ``bounded`` or not."""
    rng = np.random.default_rng(3)
    x = xp.asarray(rng.random(n, dtype=np.float32))
    rows = {}
    with _bounded(bounded):
        for b in (16, 17, 18, 20, 22, 24):
            nb = 1 << b
            fns = {
                v: (lambda v=v: prim.histogram(x, nb, (0.0, 1.0), variant=v)[0]) for v in variants
            }
            assert _same([f() for f in fns.values()]), nb
            rows[nb] = _timing.bench_many(fns, **ROUNDS)
    return rows


def _planned(fn, arrays, *args, bounded=False, fields=None, **kw):
    """``fn(*arrays, *args, **kw)`` as a plan made under the policies with the 16-bit counters'
    bounded adds ``bounded`` (:func:`_bounded`) and the production policy's ``fields`` (the even
    bins' ``f32_edge_band``, ``f32_edges_computed``), called without an override."""
    fields = fields or {}
    with _bounded(bounded), prim.tuning.override("histograms", selector="production", **fields):
        p = prim.plan(fn, *arrays, *args, **kw)
    return lambda: p(*arrays)


def breakdown(n):
    """``{case: ms}``: 65,536 bins by partial_privatized on float32 samples anywhere or at the
    bins' centres and on uint16 keys, its 16-bit counters' adds returning and bounded, and the
    uint16 keys by bucketed (its tally's adds returning and bounded), interleaved."""
    rng = np.random.default_rng(4)
    nb = 1 << 16
    x = xp.asarray(rng.random(n, dtype=np.float32))
    centres = xp.asarray(((rng.integers(0, nb, n) + 0.5) / nb).astype(np.float32))
    k16 = xp.asarray(rng.integers(0, nb, n // 2, dtype=np.uint16))
    px, py = x[: n // 4], centres[n // 4 : n // 2]  # histogram2d's pairs: n / 4 of them
    sq = [[0.0, 1.0], [0.0, 1.0]]
    fns = {}
    for bounded in (False, True):
        adds = "bounded" if bounded else "returning"
        part = dict(variant="partial_privatized", bounded=bounded)
        fns[f"float32 uniform, {adds}"] = _planned(prim.histogram, (x,), nb, (0.0, 1.0), **part)
        fns[f"float32 at centres, {adds}"] = _planned(
            prim.histogram, (centres,), nb, (0.0, 1.0), **part
        )
        fns[f"uint16 keys (n / 2), {adds}"] = _planned(prim.bincount, (k16,), minlength=nb, **part)
        fns[f"uint16 keys (n / 2), bucketed {adds}"] = _planned(
            prim.bincount, (k16,), minlength=nb, variant="bucketed", bounded=bounded
        )
        fns[f"histogram2d 256 x 256 (n / 4 pairs), {adds}"] = _planned(
            prim.histogram2d, (px, py), 256, sq, bounded=bounded
        )
    part = dict(variant="partial_privatized")
    for band in (8, 4):  # wider bands than the policy's: more samples compared with an edge
        fns[f"float32 uniform, returning, edge band {band}"] = _planned(
            prim.histogram, (x,), nb, (0.0, 1.0), fields={"f32_edge_band": band}, **part
        )
    want = np.bincount(_backend.to_host(k16), minlength=nb)
    hist = np.histogram(_backend.to_host(x), nb, (0.0, 1.0))[0]
    hist2 = np.histogram2d(_backend.to_host(px), _backend.to_host(py), 256, sq)[0]
    for case, f in fns.items():
        got = f()
        got = _backend.to_host(got if case.startswith("uint16") else got[0])
        if case.startswith("uint16"):
            assert bool((got == want).all()), case
        elif case.startswith("float32 uniform"):
            assert bool((got == hist).all()), case
        elif case.startswith("histogram2d"):
            assert bool((got == hist2).all()), case
    return _timing.bench_many(fns, **ROUNDS)


#: the even binner's inner edges in its bands: the production policy's f32_edges_computed
EDGE_RULES = {"edges computed": True, "edges loaded": False}


def edge_rules(n):
    """``{bins: {rule: ms}}``: partial_privatized on n float32 samples in [0, 1) into 2^16, 2^17
    and 2^18 bins with the inner edges of the bands computed and loaded (plans, interleaved)."""
    rng = np.random.default_rng(6)
    x = xp.asarray(rng.random(n, dtype=np.float32))
    rows = {}
    for b in (16, 17, 18):
        nb, fns = 1 << b, {}
        for label, on in EDGE_RULES.items():
            fns[label] = _planned(
                prim.histogram,
                (x,),
                nb,
                (0.0, 1.0),
                fields={"f32_edges_computed": on},
                variant="partial_privatized",
            )
        assert _same([f()[0] for f in fns.values()]), nb
        rows[nb] = _timing.bench_many(fns, **ROUNDS)
    return rows


def keys(n):
    rng = np.random.default_rng(5)
    return xp.asarray(rng.integers(0, 1 << 20, n, dtype=np.uint32))


def bincounts(k):
    """``{variant: ms}`` for bincount of the keys ``k``."""
    fns = {v: (lambda v=v: prim.bincount(k, variant=v)) for v in VARIANTS}
    assert _same([f() for f in fns.values()])
    return _timing.bench_many(fns, **ROUNDS)


#: unique's counts: the production policy's fields each run replaces (None: the policy in force)
UNIQUE_RUNS = {
    "policy in force": None,
    "bounded adds": dict(packed_bounded=True),
    "bucketed from 2^17": dict(bucketed_from_bins=BUCKETED_FROM),
    "bucketed from 2^17, bounded tally": dict(
        bucketed_from_bins=BUCKETED_FROM, bucket_tally_bounded=True
    ),
}


def uniques(k):
    """``{label: {"ours": ms, "torch": ms or None}}`` for unique(k, return_counts=True) under each
    of :data:`UNIQUE_RUNS` (an override around the run's checks and timing), each run with
    ``torch.unique`` interleaved."""
    try:
        import torch

        t = torch.from_dlpack(k) if backend.is_cuda else None
    except ImportError:
        t = None
    want = prim.unique(k, return_counts=True, variant="rle")
    rows = {}
    for label, fields in UNIQUE_RUNS.items():
        fns = {"ours": lambda: prim.unique(k, return_counts=True)}
        if t is not None:
            fns["torch"] = lambda: torch.unique(t, sorted=True, return_counts=True)
        with (
            prim.tuning.override("histograms", selector="production", **fields)
            if fields
            else contextlib.nullcontext()
        ):
            got = fns["ours"]()
            ms = _timing.bench_many(fns, **ROUNDS)
        assert bool((got[0] == want[0]).all()) and bool((got[1] == want[1]).all()), label
        rows[label] = {"ours": ms["ours"], "torch": ms.get("torch")}
    return rows


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    n = 1 << int(argv[0]) if argv else (1 << 28 if backend.is_cuda else 1 << 18)
    print(f"histogram, {n} float32 in [0, 1): ms (GB/s of samples read)")
    for bounded in (False, True):
        variants = ("partial_privatized", "bucketed") if bounded else VARIANTS
        print(f"  the 16-bit counters' {'bounded' if bounded else 'returning'} adds:")
        for nb, t in histograms(n, bounded, variants).items():
            cells = ", ".join(f"{v} {ms:.4f} ({4 * n / ms / 1e6:.0f})" for v, ms in t.items())
            print(f"  {nb} bins: {cells}")
    print("partial_privatized, the bands' inner edges (returning adds): ms")
    for nb, t in edge_rules(n).items():
        print(f"  {nb} bins: " + ", ".join(f"{w} {ms:.4f}" for w, ms in t.items()))
    print("65,536 bins, where the time goes: ms")
    for case, ms in breakdown(n).items():
        print(f"  {case}: {ms:.4f}")
    k = keys(n // 2)
    t = bincounts(k)
    cells = ", ".join(f"{v} {ms:.4f}" for v, ms in t.items())
    print(f"bincount, {n // 2} uint32 in [0, 2^20): {cells}")
    for label, r in uniques(k).items():
        theirs = r["torch"]
        ratio = f", torch {theirs:.4f}, ours / torch {r['ours'] / theirs:.3f}" if theirs else ""
        print(f"unique(return_counts=True), {label}: {r['ours']:.4f} ms{ratio}")


if __name__ == "__main__":
    main()
