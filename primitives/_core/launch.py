"""Launch-configuration helpers shared by every family.

- grid sizes come from the multiprocessor count and the kernel's occupancy (a persistent,
  grid-stride grid), capped by the work available, never from ``n`` alone;
- dynamic shared memory above the 48 KiB default is opted into per kernel, and refused with a clear
  error past the device's limit;
- sizes are passed to kernels as 64-bit integers;
- a zero-sized or oversized launch is refused before it reaches the driver.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import Any, SupportsIndex, TypeAlias

import numpy as np
from numpy.typing import DTypeLike, NDArray

from . import backend as _backend, loader as _loader
from .backend import Array

__all__ = [
    "ZipSlot",
    "zip_arg",
    "cdiv",
    "resident_grid",
    "cover_grid",
    "set_dynamic_shared",
    "launch",
    "check",
    "Direct",
    "i64",
    "stand_in",
    "clear_stand_ins",
    "host_words",
    "wait_written",
    "HostCount",
]

MAX_GRID_X = 2**31 - 1
MAX_GRID_YZ = 65535

#: a grid or a block as a launch takes it: one extent, or one to three (ints or NumPy integers)
Dims: TypeAlias = "SupportsIndex | Sequence[SupportsIndex]"


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def i64(n: int) -> np.int64:
    """A size or offset as the kernels take it: a 64-bit signed integer."""
    return np.int64(n)


def resident_grid(
    kernel: _loader.Kernel, block: int, shared_mem: int = 0, *, per_sm: int | None = None
) -> int:
    """Blocks that fit on the whole device at once (SM count x resident blocks per SM).

    ``per_sm`` caps the blocks per multiprocessor (more is rarely useful for streaming kernels).
    A ``shared_mem`` above the default per-block limit opts the kernel in first
    (:func:`set_dynamic_shared`): the occupancy of a kernel not opted in counts no block that
    asks for more, and the grid would be sized for one block per multiprocessor.
    """
    info = _backend.get_backend().device_info()
    if shared_mem > info.shared_per_block:
        set_dynamic_shared(kernel, shared_mem)
    occ = kernel.occupancy(block, shared_mem)
    if per_sm is not None:
        occ = min(occ, per_sm)
    return info.sm_count * max(1, occ)


def cover_grid(
    n_items: int,
    block: int,
    items_per_thread: int = 1,
    *,
    kernel: _loader.Kernel | None = None,
    shared_mem: int = 0,
    per_sm: int | None = None,
) -> int:
    """Grid for ``n_items``: one block per ``block*items_per_thread`` items, capped at the resident
    grid when ``kernel`` is given (the kernel must then loop grid-stride)."""
    if n_items <= 0:
        raise ValueError(f"cover_grid: no work (n_items={n_items}); refuse a zero-sized launch")
    grid = cdiv(n_items, block * items_per_thread)
    if kernel is not None:
        grid = min(grid, resident_grid(kernel, block, shared_mem, per_sm=per_sm))
    return max(1, grid)


def set_dynamic_shared(kernel: _loader.Kernel, nbytes: int) -> None:
    """Make ``kernel`` accept ``nbytes`` of dynamic shared memory (opt-in above the default).
    The device's per-block limit holds for static and dynamic shared memory together."""
    info = _backend.get_backend().device_info()
    static = kernel.resources()[1]
    total = nbytes + static
    if total > info.shared_per_block_optin:
        raise ValueError(
            f"{kernel.name}: {total} bytes of shared memory requested ({nbytes} dynamic + "
            f"{static} static), the device allows {info.shared_per_block_optin} per block"
        )
    if total > info.shared_per_block and kernel.max_dynamic_shared_size_bytes < nbytes:
        kernel.max_dynamic_shared_size_bytes = nbytes


def _dims(v: Any, what: str) -> tuple[int, ...]:  # a Dims, which np.isscalar does not narrow
    t = (v,) if np.isscalar(v) else tuple(v)
    if not 1 <= len(t) <= 3:
        raise ValueError(f"launch: {what} must have 1 to 3 dimensions, got {v!r}")
    return tuple(int(d) for d in t)


def launch(
    kernel: _loader.Kernel, grid: Dims, block: Dims, args: Iterable[Any], shared_mem: int = 0
) -> None:
    """Validate the configuration (:func:`check`), then launch ``kernel`` on the current
    stream: for one-off launches (a grid that changes from call to call). Launches made once
    and repeated are a plan's :class:`primitives._core.plans.Launch`."""
    g, b = check(kernel, grid, block, shared_mem)
    kernel(g, b, tuple(args), shared_mem=int(shared_mem))


def check(
    kernel: _loader.Kernel, grid: Dims, block: Dims, shared_mem: int = 0
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Refuse a zero-sized or oversized configuration, opt ``kernel`` into ``shared_mem`` bytes
    of dynamic shared memory when that is above the default; returns (grid, block) as tuples."""
    g, b = _dims(grid, "grid"), _dims(block, "block")
    info = _backend.get_backend().device_info()
    if min(g) < 1 or min(b) < 1:
        raise ValueError(f"{kernel.name}: zero-sized launch refused (grid={g}, block={b})")
    if g[0] > MAX_GRID_X or any(d > MAX_GRID_YZ for d in g[1:]):
        raise ValueError(f"{kernel.name}: grid {g} exceeds the device limits")
    if int(np.prod(b)) > info.max_threads_per_block:
        raise ValueError(
            f"{kernel.name}: block {b} has more than {info.max_threads_per_block} threads"
        )
    if shared_mem:
        set_dynamic_shared(kernel, shared_mem)
    return g, b


class ZipSlot:
    """A slot of a prepared launch that takes several arrays zipped into one structure
    parameter (``prim::ZipIn``/``ZipOut``, kernels/util/zip.cuh: ``width`` addresses, one 8-byte
    word each; None for a field not written, a null pointer): a call gives the tuple or list of
    arrays (:meth:`primitives._core.plans.Launch.zip_slot`)."""

    __slots__ = ("width",)

    def __init__(self, width: int) -> None:
        self.width = int(width)

    def __repr__(self) -> str:
        return f"Launch.zip_slot({self.width})"


_ZIP_DTYPES: dict[int, np.dtype[Any]] = {}


def zip_arg(arrays: Sequence[Any]) -> np.void:
    """The kernel argument of ``arrays`` zipped (``prim::ZipIn``/``ZipOut``) for CuPy's launch
    and the emulator's: their addresses, one 8-byte word each, as one structure (a
    ``numpy.void``); None: a field not written (a null pointer)."""
    k = len(arrays)
    dt = _ZIP_DTYPES.get(k)
    if dt is None:
        dt = _ZIP_DTYPES[k] = np.dtype([(f"p{i}", np.uint64) for i in range(k)])
    words = np.array([_address(a) for a in arrays], dtype=np.uint64)
    return words.view(dt)[0]


def _address(a: Any) -> int:
    if a is None:
        return 0
    return a.data.ptr if hasattr(a.data, "ptr") else a.ctypes.data


class Direct:
    """The direct form of a prepared :class:`primitives._core.plans.Launch` on the GPU: its
    parameter words built once, and per call the arrays' addresses (or the integers) stored in
    the words of its slots and cuLaunchKernel called on the stream that was current when it was
    made (the fewest host steps between a call and its launch, which the GPU waits for when it
    is idle at the call). A parameter takes one 8-byte word, a :class:`ZipSlot` as many as it
    zips arrays (their addresses, one after another). Calls from several threads are
    serialized."""

    __slots__ = ("name", "words", "slots", "direct", "argv", "lock", "launch_kernel", "array_type")

    @classmethod
    def make(
        cls,
        kernel: _loader.Kernel,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        shared_mem: int,
        args: Sequence[Any],
        slots: Sequence[int],
    ) -> Direct | None:
        """A Direct for ``kernel`` with these arguments (``slots``: the positions given per call,
        whose entries in ``args`` are ignored but for a :class:`ZipSlot`'s width), or None
        where CuPy's own launch must take them (the emulator; arguments
        :func:`primitives._core.loader.param_words` does not encode)."""
        direct = kernel.direct
        if direct is None:
            return None
        fixed = tuple(0 if i in slots else a for i, a in enumerate(args))
        _loader.check_dense(kernel.name, fixed, direct.array_type)
        words = _loader.param_words(fixed, direct.array_type)
        if words is None:
            return None
        widths = [a.width if isinstance(a, ZipSlot) else 0 for a in args]
        return cls(kernel.name, direct, grid, block, shared_mem, words, slots, widths)

    def __init__(
        self,
        name: str,
        direct: _loader._DirectLaunch,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        shared_mem: int,
        words: Sequence[int],
        slots: Sequence[int],
        widths: Sequence[int] | None = None,
    ) -> None:
        k = len(words)
        widths = [0] * k if widths is None else list(widths)
        spans = [max(1, w) for w in widths]  # the words of each parameter
        starts = np.zeros(k, dtype=np.uint64)
        if k > 1:
            starts[1:] = np.cumsum(spans[:-1], dtype=np.uint64)
        # the k parameters' addresses (what cuLaunchKernel reads), then their words
        buf = np.zeros(k + sum(spans), dtype=np.uint64)
        base = buf.ctypes.data
        buf[:k] = base + 8 * (k + starts)
        for i, w in enumerate(words):
            if not widths[i]:
                buf[k + int(starts[i])] = w
        g, b = grid + (1,) * (3 - len(grid)), block + (1,) * (3 - len(block))
        self.name, self.words = name, buf
        # (parameter, its first word, the arrays it zips: 0 for a plain slot) of each slot
        self.slots = tuple((i, k + int(starts[i]), widths[i]) for i in slots)
        # the function's handle is read per call: a kernel's default-level image replaces its
        # fast-compiled one when it lands (primitives._core.loader.settle)
        self.direct = direct
        self.argv = (*g, *b, shared_mem, direct.stream().ptr, base if k else 0, 0)
        self.lock = threading.Lock()
        self.launch_kernel = direct.launch_kernel
        self.array_type = direct.array_type

    def __call__(self, arrays: Iterable[Any]) -> None:
        words, array_type = self.words, self.array_type
        with self.lock:
            for (i, w, zipped), a in zip(self.slots, arrays):
                if zipped:
                    for j, z in enumerate(a):
                        if z is None:
                            words[w + j] = 0
                            continue
                        if not z._c_contiguous:
                            raise _loader.not_dense(self.name, i, z)
                        words[w + j] = z.data.ptr
                elif type(a) is array_type:
                    if not a._c_contiguous:  # its address alone goes to the kernel
                        raise _loader.not_dense(self.name, i, a)
                    words[w] = a.data.ptr
                elif isinstance(a, np.integer):
                    words[w] = int(a) & _loader._MASK64
                else:
                    words[w] = a.data.ptr
            self.launch_kernel(self.direct.ptr, *self.argv)


_stand_ins: dict[Hashable, Array] = {}


def stand_in(backend: _backend.Backend, dtype: DTypeLike, device: int | None = None) -> Array:
    """A one-element array of ``dtype`` to pass for a kernel parameter the launch does not read
    (made once per backend, dtype and device; ``device`` defaults to the current one)."""
    if device is None:
        device = backend.device_id()
    key = (backend.is_cuda, np.dtype(dtype), device)
    arr = _stand_ins.get(key)
    if arr is None:
        arr = _stand_ins[key] = backend.xp.zeros(1, dtype=dtype)
    return arr


def clear_stand_ins() -> None:
    _stand_ins.clear()


def host_words(backend: _backend.Backend, size: int) -> NDArray[np.int64]:
    """``size`` int64 words a kernel writes straight into host memory: on the GPU page-locked
    and mapped (the device writes them through their address, ``ctypes.data``), on the emulator
    a plain array."""
    return backend.pinned(size * 8).view(np.int64)


#: polls of a host word between two queries of the stream (:func:`wait_written`)
SPINS = 1024


def wait_written(
    words: NDArray[np.int64], index: int, unset: int, backend: _backend.Backend, message: str
) -> None:
    """Wait until a kernel has written ``words[index]`` (page-locked host memory the device
    writes through its mapping, reset to ``unset`` before the launch): poll it, and after every
    :data:`SPINS` polls ask whether the current stream has finished (no wait; a failed kernel
    raises there). Once it has, a word still ``unset`` raises RuntimeError(``message``). The
    host never sleeps in a stream synchronization, whose wake-up can take longer than a whole
    kernel, and a kernel however long (or work queued before it) is waited for."""
    spins = range(SPINS)
    while True:
        for _ in spins:
            if words[index] != unset:
                return
        if backend.stream_done():
            break
    if words[index] == unset:
        raise RuntimeError(message)


class HostCount:
    """A count that a kernel writes once per launch straight into host memory (a result's
    length, which the host needs before it can return): on the GPU a page-locked int64 that the
    device writes through its mapping, so the host reads the count as soon as the kernel has
    written it, with no copy and no wait for the end of the stream (the results are ordered
    before any later work on the stream); on the emulator a one-element array, written before
    the launch returns. ``arg`` is the kernel's ``long long*`` argument. ``read(func, launch,
    *args)`` resets the count, calls ``launch(*args)`` and returns the count (>= 0;
    :func:`wait_written`: a launch that never writes it raises RuntimeError naming ``func``),
    one launch at a time under ``lock``."""

    __slots__ = ("host", "arg", "backend", "lock")

    def __init__(self, backend: _backend.Backend) -> None:
        self.host = host_words(backend, 1)
        # on the GPU the kernel's argument is the mapped address; the emulator takes the array
        self.arg = np.uint64(self.host.ctypes.data) if backend.is_cuda else self.host
        self.backend = backend
        self.lock = threading.Lock()

    def read(self, func: str, launch: Callable[..., object], *args: Any) -> int:
        host = self.host
        with self.lock:
            host[0] = -1
            launch(*args)
            if host[0] < 0:
                wait_written(
                    host, 0, -1, self.backend, f"{func}: the kernel did not report its count"
                )
            return int(host[0])
