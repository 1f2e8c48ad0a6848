"""The compaction family's workloads."""

from . import Workload

#: float32 with about half the elements selected (a ``half`` mask): compact against x[mask],
#: compact_indices against cupy.nonzero
COMPACT = Workload(n=2**28, small=2**14, sizes=(2**24, 2**28), peers=("cupy",))
