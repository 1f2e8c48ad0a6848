"""The segmented family's workloads."""

from . import Workload

#: equal segments of ``segment`` float32 (``small_segment`` on the emulator), scanned and
#: reduced, against CuPy's row-wise calls and CUB's segmented reduce; the asv suite times
#: ``segments`` segments over n. The tour's n on a GPU is smaller: its float64 oracles of 2^28
#: took the host longer than everything else of the section
EQUAL = Workload(
    n=2**28,
    tour=2**26,
    small=2**14,
    peers=("cupy", "cub"),
    params={"segment": 2**12, "small_segment": 2**6, "segments": (2**10, 2**16)},
)

#: n ragged segments of 0 to ``max_len`` float32 reduced, against a plain sum of the same data
RAGGED = Workload(n=2**22, params={"max_len": 128})
