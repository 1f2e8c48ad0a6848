"""Segment offsets: the one check of CSR-style offsets (segment s is ``[offsets[s],
offsets[s + 1])``) for the segmented scans and reductions and the segmented sort.

The values are checked on the device by one kernel of the package (``kernels/core/offsets.cu``:
decreasing steps, the longest step, the first and last value) and read back in one transfer of
four scalars, so that a first call compiles nothing it does not ship.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import backend as _backend, checks as _checks, launch as _launch, loader as _loader
from . import plans as _plans
from .backend import Array

__all__ = ["segment_offsets", "check_values", "prefetch", "declared_segments"]

SOURCE = "core/offsets.cu"
NAME = "offsets_stats<long long>"
BLOCK = 256
_loader.register(SOURCE, [NAME])


class StatsPlan(_plans.Plan):
    """The statistics of ``k`` int64 offsets: one grid-stride launch over the k - 1 steps."""

    def __init__(self, backend: _backend.Backend, k: int) -> None:
        kern = _loader.load(SOURCE, [NAME])(NAME)
        grid = _launch.cover_grid(max(1, k - 1), BLOCK, kernel=kern)
        slot = _plans.Launch.SLOT
        self.zeros = backend.xp.zeros
        self.launch = _plans.Launch(kern, grid, BLOCK, args=(slot, _launch.i64(k), slot))

    def __call__(self, offsets: Array) -> tuple[int, int, int, int]:
        """(decreasing steps, longest step, first, last) as Python ints."""
        stats = self.zeros(4, dtype=np.int64)
        self.launch(offsets, stats)
        bad, longest, first, last = (int(v) for v in _backend.to_host(stats))
        return bad, longest, first, last


def prefetch() -> None:
    """Start compiling the check's kernel where kernels compile on first use (a caller that
    asks for its own kernels first: they compile side by side)."""
    _loader.prefetch(SOURCE, [NAME])


def declared_segments(offsets: Any) -> int | None:
    """The number of segments the caller's ``offsets`` declare (its length less one), read
    without moving it; None where it is not a 1-D array of at least one value (the check says
    why)."""
    try:
        shape = _checks.shape_of(offsets)
    except Exception:  # noqa: BLE001 - not an array: segment_offsets's error
        return None
    return shape[0] - 1 if len(shape) == 1 and shape[0] >= 1 else None


def segment_offsets(
    offsets: Any,
    n: int,
    *,
    func: str,
    arg: str = "x",
    item: str = "element",
    cover: bool = True,
    check: bool = True,
) -> tuple[Array, int | None]:
    """``offsets`` as a device int64 array (``offsets`` itself when it is one) of nseg + 1 values and the longest segment
    (None when ``check`` is false: the values are not read). Checked: an integer 1-D array of
    at least one value, non-decreasing, within ``[0, n]``, and with ``cover`` from 0 to ``n``
    (every ``item`` of the array ``arg`` in a segment)."""
    o = _checks.as_input(offsets, func=func, arg="offsets", ndim=1, empty_dtype=np.int64)
    arr = o.array
    if arr.dtype.kind not in "iu":
        raise TypeError(f"{func}: offsets must be an integer array, got dtype {arr.dtype.name}")
    if arr.size < 1:
        raise ValueError(f"{func}: offsets must hold at least one value (nseg + 1 boundaries)")
    arr = arr.astype(np.int64, copy=False)
    return arr, (
        check_values(arr, n, func=func, arg=arg, item=item, cover=cover) if check else None
    )


def check_values(
    arr: Array, n: int, *, func: str, arg: str = "x", item: str = "element", cover: bool = True
) -> int:
    """Check the values of the int64 device offsets ``arr`` as :func:`segment_offsets` does
    (one launch, one read of four scalars); returns the longest segment."""
    key = ("offsets/stats", arr.size, _plans.stream_key())
    plan = _plans.PLANS.get(key, lambda: StatsPlan(_backend.get_backend(), arr.size))
    bad, longest, first, last = plan(arr)
    if bad:
        raise ValueError(f"{func}: offsets must be non-decreasing ({bad} decreasing steps)")
    if first < 0 or last > n:
        raise ValueError(f"{func}: offsets must lie in [0, {n}], got {first} .. {last}")
    if cover and (first != 0 or last != n):
        raise ValueError(
            f"{func}: offsets must start at 0 and end at {arg}.size={n} so that every {item} "
            f"is in a segment, got {first} .. {last}"
        )
    return longest
