"""Reduction tuning, as data (see :mod:`primitives.tuning`).

Selectors: ``"ladder"`` (alpha..epsilon), ``"zeta"``, ``"production"``. One provenance line per
tuned value; the experiments behind them are in docs/perf-log/.
"""

from __future__ import annotations

import dataclasses

from .._core import policy as _policy


@dataclasses.dataclass(frozen=True)
class LadderPolicy:
    block: int  # threads per block (dynamic shared memory: one accumulator per thread)


@dataclasses.dataclass(frozen=True)
class ZetaPolicy:
    block: int  # threads per block, a template parameter (the tree unrolled at compile time)


@dataclasses.dataclass(frozen=True)
class ProductionPolicy:
    block: int  # threads per block
    vectors: int  # 16-byte loads in flight per thread
    blocks_per_sm: int  # cap on resident blocks per multiprocessor


TABLE = _policy.register("reduction", {
    # the classic ladder's textbook block size (not tuned)
    ("default", "ladder"): LadderPolicy(block=256),
    # zeta: 256 threads, as in the textbook (not tuned)
    ("default", "zeta"): ZetaPolicy(block=256),
    ("default", "production"): ProductionPolicy(
        block=1024,  # H100, sum float32 2^28: 256/512/1024 swept with 2/4/8 loads (tune_reduce --sweep)
        vectors=4,  # H100, sum float32 2^28: 3.1 TB/s at 4 loads, 2 and 8 slower
        blocks_per_sm=2,  # H100, sum float32/int32 2^28: 2 per SM best of 1, 2, 4, occupancy
    ),
}, doc="block sizes of the ladder and zeta; the production kernel's block, loads and grid cap")


def ladder():
    return _policy.current("reduction", "ladder")


def zeta():
    return _policy.current("reduction", "zeta")


def production():
    return _policy.current("reduction", "production")
