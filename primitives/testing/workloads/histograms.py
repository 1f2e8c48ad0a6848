"""The histograms family's workloads. Samples fall in 256 bins unless a workload names others:
one bin per value of uint8, [0, 1) of float32 (``unit`` data). The asv suite times every one at
its ``sizes``."""

from . import Workload

#: the bins of every workload that names none
BINS = 256

#: uint8 over its 256 values: histogram, histogram_even and bincount against CuPy and CUB
UINT8 = Workload(
    n=2**28, small=2**14, dtypes=("uint8",), data="unit", sizes=(2**26,), peers=("cupy", "cub")
)
#: uint8 all equal: the most contended samples
EQUAL = Workload(
    n=2**28,
    tour=2**26,
    small=2**13,
    dtypes=("uint8",),
    data="equal",
    sizes=(2**26,),
    peers=("cupy", "cub"),
)
#: a real sky image's grey levels (scikit-image's Hubble deep field), tiled
SKY = Workload(n=2**26, small=2**13, dtypes=("uint8",), data="sky", peers=("cupy",))
#: float32 in [0, 1) over each of ``bins`` (auto's choice per bin count) against
#: cupy.histogram and CUB; the tour checks ``variants`` on the first two bin counts
FLOAT32 = Workload(
    n=2**28,
    small=2**14,
    data="unit",
    sizes=(2**26,),
    variants=(
        "global_atomic_interleaved",
        "coarsened_interleaved",
        "aggregated",
        "warp_replicated",
        "partial_privatized",
        "global_vectorized",
    ),
    peers=("cupy", "cub"),
    params={"bins": (256, 4096, 65536, 2**20)},
)
#: every variant side by side on each kind of samples, by name
VARIANTS = Workload(
    n=2**26,
    params={
        "samples": {
            "uint8 uniform": UINT8,
            "uint8 all equal": EQUAL,
            "uint8 sky image": SKY,
            "float32 uniform": FLOAT32,
        }
    },
)
#: one call over the channels of an interleaved RGB uint8 image against a cupy.bincount each
CHANNELS = Workload(
    n=8192 * 8192 * 3,
    dtypes=("uint8",),
    data="unit",
    peers=("cupy",),
    params={"shape": (8192, 8192, 3)},
)
#: histogram2d of float32 pairs in [0, 1)^2, 256 x 256 bins, against cupy.histogram2d
HISTOGRAM2D = Workload(n=2**26, small=2**12, data="unit", peers=("cupy",), params={"bins": 256})
