"""The sorting family's workloads: keys of every bit pattern (``bits`` data), and the suite of
key distributions (:data:`DISTRIBUTIONS`, made by :func:`distribution`)."""

import numpy as np

from . import Workload

#: keys of each dtype: every variant (on the first dtype; the block sort where they fit its one
#: block), cupy.sort and CUB; the asv suite times ``asv_dtypes`` over ``sizes``
KEYS = Workload(
    n=2**27,
    small=2**13,
    dtypes=("uint32", "int32", "float32", "uint64"),
    data="bits",
    sizes=(2**22, 2**27),
    peers=("cupy", "cub"),
    params={"asv_dtypes": ("uint32", "float32", "uint64")},
)
#: a small call, where one launch is the whole cost: the block sort's one launch against
#: onesweep's histogram, plan and passes (at most n keys in the tour, each of ``sizes`` in asv)
SMALL = Workload(
    n=10_000,
    dtypes=("uint32",),
    data="bits",
    sizes=(2**10, 10**4),
    variants=("auto", "block", "onesweep"),
    peers=("cupy",),
)
#: uint32 keys with uint32 values (radix_sort) and argsort (int64 result)
PAIRS = Workload(
    n=2**27,
    small=2**13,
    dtypes=("uint32",),
    data="bits",
    sizes=(2**22, 2**27),
    peers=("cupy", "cub"),
)
#: equal segments of ``segment`` keys (each of ``lengths`` in the asv suite)
SEGMENTED = Workload(
    n=2**27,
    small=2**13,
    dtypes=("uint32",),
    data="bits",
    peers=("cupy", "cub"),
    params={"segment": 128, "lengths": (128, 2048)},
)
#: ``sort(x, axis=-1)`` of a (rows, cols) float32 array: every row sorted on its own, against
#: cupy.sort(axis=-1) and torch.sort(dim=-1); the figures time rows of ``other_cols`` keys too
#: (each kernel of the row sort: a lane, a warp, a block of 1024 per row)
ROWS = Workload(
    n=2**27,
    small=2**14,
    dtypes=("float32",),
    data="bits",
    peers=("cupy", "torch"),
    params={"cols": 4096, "other_cols": (32, 256, 16384)},
)
#: ``lexsort`` of ``keys`` uint32 keys of n each (the last primary), against cupy.lexsort (torch
#: has none); ``target``: at least that many times faster than the peer
LEXSORT = Workload(
    n=2**27,
    small=2**13,
    dtypes=("uint32",),
    data="bits",
    peers=("cupy",),
    params={"keys": 2, "target": ("cupy.lexsort", 2)},
)
#: complex64 keys (standard normal real and imaginary parts) sorted in NumPy's lexicographic
#: order against cupy.sort (the parity issue asks no slower)
COMPLEX = Workload(n=2**27, small=2**13, dtypes=("complex64",), data="bits", peers=("cupy",))
#: the key-distribution suite: n keys of each of :func:`distribution`'s ``names``, sorted
#: (``sort``), as pairs with uint32 values (``radix_sort``) and argsorted (``argsort``), each
#: against CUB's radix sort of the same keys (argsort against CUB's pairs with an int64 index);
#: ``target``: each at most ``cub`` times CUB's time and ``uniform`` times ours on uniform uint32
DISTRIBUTIONS = Workload(
    n=2**27,
    small=2**13,
    dtypes=("uint32", "float32", "uint64"),
    data="distribution",
    peers=("cub",),
    params={
        "names": (
            "uniform uint32",
            "each bit set with p = 1/8",
            "each bit set with p = 1/4",
            "256 distinct",
            "sorted",
            "reversed",
            "nearly sorted (1% replaced)",
            "all equal",
            "Zipf(1.2)",
            "float32 uniform [0, 1)",
            "float32 standard normal",
            "uint64 uniform",
        ),
        "target": {"cub": 1.0, "uniform": 1.15},
    },
)


def distribution(name, n, xp, seed=0):
    """n keys of the suite's distribution ``name`` (one of ``DISTRIBUTIONS.params["names"]``),
    made with ``xp`` (NumPy, or CuPy on the device):

    * uniform uint32 / uint64: every bit pattern alike;
    * each bit set with p = 1/8 (1/4): the AND of three (two) uniform words, so each digit's
      values skewed towards 0 alike in every pass (the largest digit's share 0.34 (0.10));
    * 256 distinct: 256 values ``i * 0x9E3779B1`` (mod 2^32), spread over every digit;
    * sorted, reversed, nearly sorted (1% of the places given uniform words);
    * all equal: every key 77;
    * Zipf(1.2): ``floor(u ** -5)`` for u uniform in (0, 1], saturated at 2^32 - 1 (the discrete
      power law ``P(key >= k) = k ** -0.2``): the high digits almost all 0, the low ones skewed;
    * float32 uniform [0, 1) and float32 standard normal.
    """
    rng = xp.random.default_rng(seed)

    def words():  # uniform uint32: floor(u * 2^32), u of 53 bits
        return (rng.random(n) * 2.0**32).astype(np.uint64).astype(np.uint32)

    if name == "uniform uint32":
        return words()
    if name == "each bit set with p = 1/8":
        return words() & words() & words()
    if name == "each bit set with p = 1/4":
        return words() & words()
    if name == "256 distinct":
        return (rng.random(n) * 256).astype(np.uint32) * np.uint32(0x9E3779B1)
    if name in ("sorted", "reversed", "nearly sorted (1% replaced)"):
        keys = xp.sort(words())
        if name == "reversed":
            return xp.ascontiguousarray(keys[::-1])
        if name == "nearly sorted (1% replaced)":
            m = n // 100
            keys[(rng.random(m) * n).astype(np.int64)] = words()[:m]
        return keys
    if name == "all equal":
        return xp.full(n, 77, np.uint32)
    if name == "Zipf(1.2)":
        u = 1.0 - rng.random(n)  # (0, 1]
        return xp.minimum(xp.floor(u**-5.0), 2.0**32 - 1).astype(np.uint32)
    if name == "float32 uniform [0, 1)":
        return rng.random(n, dtype=np.float32)
    if name == "float32 standard normal":
        return rng.standard_normal(n, dtype=np.float32)
    if name == "uint64 uniform":
        return (words().astype(np.uint64) << np.uint64(32)) | words().astype(np.uint64)
    raise ValueError(f"workloads: no key distribution {name!r}")
