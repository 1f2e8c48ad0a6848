"""The sorting family's workloads: keys of every bit pattern (``bits`` data)."""

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
