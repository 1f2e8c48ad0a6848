"""Backend selection: the CUDA backend (CuPy on a GPU) or the CPU emulator of the same kernels.

``PRIMITIVES_BACKEND`` chooses: ``cuda``, ``emulator`` or ``auto`` (the default: CUDA when CuPy is
importable and sees a device, otherwise the emulator). The choice is made once per process, the
first time any primitive runs; :func:`backend_info` reports it and the reason.
"""

from __future__ import annotations

import dataclasses
import os
import threading
from types import ModuleType
from typing import Any, TypeAlias

import numpy as np
from numpy.typing import NDArray

__all__ = ["Array", "Backend", "DeviceInfo", "Fetch", "backend_info", "get_backend", "to_host"]

#: An array of either backend: a NumPy array (host memory, or the emulator's device memory) or
#: a CuPy one. CuPy ships no type stubs, so no annotation can tell its arrays from anything
#: else: ``Array`` names the arrays that may be either, ``NDArray`` those that are NumPy's.
Array: TypeAlias = Any

_ENV = "PRIMITIVES_BACKEND"


@dataclasses.dataclass(frozen=True)
class DeviceInfo:
    """What launch planning needs to know about the device (real or emulated)."""

    name: str
    sm_count: int
    max_threads_per_sm: int
    max_threads_per_block: int
    max_blocks_per_sm: int
    shared_per_block: int  # without opt-in
    shared_per_block_optin: int
    shared_per_sm: int
    regs_per_sm: int
    l2_bytes: int
    compute_capability: str
    clock_khz: int = 0  # the multiprocessors' peak clock (0: not known, the emulator)


#: The emulated device: a small GPU so that grid-stride loops and multi-level passes are exercised
#: at the small sizes the emulator can run quickly. Limits mirror an sm_90 multiprocessor.
EMULATED_DEVICE = DeviceInfo(
    name="CPU emulator (4 emulated SMs)",
    sm_count=4,
    max_threads_per_sm=2048,
    max_threads_per_block=1024,
    max_blocks_per_sm=32,
    shared_per_block=48 * 1024,
    shared_per_block_optin=227 * 1024,
    shared_per_sm=228 * 1024,
    regs_per_sm=65536,
    l2_bytes=0,
    compute_capability="emulated",
)


class Backend:
    """Array module, device memory transfers, device info and kernel launch for one backend."""

    def __init__(self, name: str, reason: str) -> None:
        self.name = name
        self.reason = reason
        self.xp: ModuleType  # the array module: cupy or numpy
        if name == "cuda":
            import cupy

            self.xp = cupy
        else:
            self.xp = np
        self._info: dict[int, DeviceInfo] = {}

    @property
    def is_cuda(self) -> bool:
        return self.name == "cuda"

    def device_id(self) -> int:
        if self.is_cuda:
            return self.xp.cuda.runtime.getDevice()
        return 0

    def device_info(self) -> DeviceInfo:
        dev = self.device_id()
        info = self._info.get(dev)
        if info is None:
            info = self._info[dev] = self._query(dev)
        return info

    def _query(self, dev: int) -> DeviceInfo:
        if not self.is_cuda:
            return EMULATED_DEVICE
        import cupy

        attrs = cupy.cuda.Device(dev).attributes
        props = cupy.cuda.runtime.getDeviceProperties(dev)
        name = props["name"]
        return DeviceInfo(
            name=name.decode() if isinstance(name, bytes) else str(name),
            sm_count=attrs["MultiProcessorCount"],
            max_threads_per_sm=attrs["MaxThreadsPerMultiProcessor"],
            max_threads_per_block=attrs["MaxThreadsPerBlock"],
            max_blocks_per_sm=attrs.get("MaxBlocksPerMultiprocessor", 32),
            shared_per_block=attrs["MaxSharedMemoryPerBlock"],
            shared_per_block_optin=attrs.get(
                "MaxSharedMemoryPerBlockOptin", attrs["MaxSharedMemoryPerBlock"]
            ),
            shared_per_sm=attrs["MaxSharedMemoryPerMultiprocessor"],
            regs_per_sm=attrs["MaxRegistersPerMultiprocessor"],
            l2_bytes=attrs["L2CacheSize"],
            compute_capability=f"{props['major']}{props['minor']}",
            clock_khz=attrs.get("ClockRate", 0),
        )

    def synchronize(self) -> None:
        if self.is_cuda:
            self.xp.cuda.get_current_stream().synchronize()

    def stream_done(self) -> bool:
        """Whether the current stream has finished its work (cudaStreamQuery: no wait; it
        raises for a failed kernel). The emulator's kernels have run before their launch
        returns: always True."""
        if self.is_cuda:
            return self.xp.cuda.get_current_stream().done
        return True

    def copy_into(self, dst: Array, src: Array) -> None:
        """Copy the C-contiguous backend array ``src`` into ``dst`` (C-contiguous, of its dtype
        and size) on the current stream: on the GPU a device-to-device memory copy, not CuPy's
        ``copy``/``astype``/slice assignment, which launch an elementwise kernel that NVRTC
        compiles the first time a process needs it (a first call's pause)."""
        if self.is_cuda:
            dst.data.copy_from_device_async(src.data, src.nbytes)
        else:
            np.copyto(dst, src, casting="no")

    def copy(self, src: Array) -> Array:
        """A new C-contiguous copy of the C-contiguous backend array ``src`` (see
        :meth:`copy_into`)."""
        if not self.is_cuda:
            return src.copy()
        out = self.xp.empty(src.shape, dtype=src.dtype)
        self.copy_into(out, src)
        return out

    def pinned(self, nbytes: int) -> NDArray[np.uint8]:
        """``nbytes`` bytes of host memory as a NumPy array: on the GPU page-locked and mapped
        (CuPy's pinned pool; the array holds the memory, and the device reaches it at its
        address), on the emulator a plain array. Not ``cupyx.empty_pinned``, whose first
        import (cupyx.scipy, then SciPy) costs a function's first call 0.3 s."""
        if not self.is_cuda:
            return np.empty(nbytes, dtype=np.uint8)
        mem = self.xp.cuda.alloc_pinned_memory(nbytes)
        return np.frombuffer(mem, dtype=np.uint8, count=nbytes)

    def fetch(self, src: Array) -> Fetch:
        """Start reading the small C-contiguous backend array ``src`` (at most
        :data:`Fetch.LIMIT` bytes: a 0-d result, a flag) back to the host; :meth:`Fetch.value`
        waits for it. On the GPU an asynchronous copy on the current stream into pinned host
        memory and an event after it: no pageable staging, and work enqueued between the two
        calls (writing a result out) is queued before the host waits, so the GPU does not idle
        while the host reads. A function that reads a result back for NumPy's warnings or
        errors enqueues the rest of its work in between."""
        if not self.is_cuda or src.nbytes > Fetch.LIMIT or not src.flags.c_contiguous:
            return Fetch(np.array(to_host(src)), None)
        slot = _slot(self)
        stream = self.xp.cuda.get_current_stream()
        rt, host = self.xp.cuda.runtime, slot[0]
        rt.memcpyAsync(
            host.ctypes.data, src.data.ptr, src.nbytes, rt.memcpyDeviceToHost, stream.ptr
        )
        slot[1].record(stream)
        return Fetch(host[: src.nbytes].view(src.dtype).reshape(src.shape), slot)

    def stream_key(self) -> tuple[int, int]:
        """Identifies the current stream: (device, stream). Plans hold per-stream scratch under
        it. On the emulator kernels run on the calling thread, so each host thread is a stream."""
        if self.is_cuda:
            return (self.device_id(), self.xp.cuda.get_current_stream().ptr)
        return (0, threading.get_ident())


class Fetch:
    """A small array on its way to the host (:meth:`Backend.fetch`)."""

    #: the most bytes one fetch reads through pinned memory (a complex128 scalar is 16)
    LIMIT = 64

    __slots__ = ("_host", "_slot")

    def __init__(self, host: NDArray[Any], slot: Any) -> None:
        self._host = host
        self._slot = slot

    def value(self) -> NDArray[Any]:
        """The array, on the host: waits for the copy (once), then returns a NumPy copy."""
        slot = self._slot
        if slot is not None:
            slot[1].synchronize()
            self._host = self._host.copy()
            self._slot = None
            _free_slots(slot[2]).append(slot)
        return self._host


#: per host thread and device, the free (pinned bytes, event, device) slots of fetches: an
#: event belongs to its device, a slot to one fetch at a time
_SLOTS = threading.local()


def _free_slots(device: int) -> list[Any]:
    lists = getattr(_SLOTS, "free", None)
    if lists is None:
        lists = _SLOTS.free = {}
    return lists.setdefault(device, [])


def _slot(backend: Backend) -> Any:
    device = backend.device_id()
    free = _free_slots(device)
    if free:
        return free.pop()
    event = backend.xp.cuda.Event(block=False, disable_timing=True)
    return (backend.pinned(Fetch.LIMIT), event, device)


def _cupy_device_reason() -> tuple[bool, str]:
    """(usable, reason) for the CUDA backend."""
    try:
        import cupy
    except Exception as exc:  # ImportError, or a broken CUDA install raising at import  # noqa: BLE001
        return False, f"CuPy is not importable ({type(exc).__name__}: {exc})"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:  # noqa: BLE001
        return False, f"CuPy {cupy.__version__} sees no CUDA device ({type(exc).__name__})"
    if count < 1:
        return False, f"CuPy {cupy.__version__} sees no CUDA device"
    return True, f"CuPy {cupy.__version__} sees {count} CUDA device(s)"


_backend: Backend | None = None


def get_backend() -> Backend:
    """The process-wide backend, chosen on first use."""
    global _backend
    if _backend is None:
        _backend = _choose()
    return _backend


def _reset() -> None:
    """Forget the chosen backend (tests)."""
    global _backend
    _backend = None


def _choose() -> Backend:
    want = os.environ.get(_ENV, "auto").strip().lower() or "auto"
    if want not in ("auto", "cuda", "emulator"):
        raise ValueError(f"{_ENV}={want!r}: expected 'cuda', 'emulator' or 'auto'")
    if want == "emulator":
        return Backend("emulator", f"{_ENV}=emulator")
    ok, why = _cupy_device_reason()
    if want == "cuda":
        if not ok:
            raise RuntimeError(f"{_ENV}=cuda but the CUDA backend is unavailable: {why}")
        return Backend("cuda", f"{_ENV}=cuda; {why}")
    if ok:
        return Backend("cuda", f"auto: {why}")
    return Backend("emulator", f"auto: {why}; kernels run on the CPU emulator")


def backend_info() -> dict[str, Any]:
    """Which backend runs the kernels, why, and on what device.

    The backend is chosen once per process from ``PRIMITIVES_BACKEND`` (``cuda``, ``emulator`` or
    ``auto``, the default: CUDA when CuPy sees a device, otherwise the emulator).

    Returns:
        dict: ``backend`` (``"cuda"`` or ``"emulator"``), ``reason`` (why it was chosen),
        ``device`` (the device's name), ``sm_count`` (multiprocessors, real or emulated) and
        ``compute_capability`` (e.g. ``"90"``; ``"emulated"`` on the emulator).

    Raises:
        ValueError: ``PRIMITIVES_BACKEND`` holds another value.
        RuntimeError: ``PRIMITIVES_BACKEND=cuda`` but CuPy sees no device.
    """
    b = get_backend()
    info = b.device_info()
    return {
        "backend": b.name,
        "reason": b.reason,
        "device": info.name,
        "sm_count": info.sm_count,
        "compute_capability": info.compute_capability,
    }


def array_module(a: Any) -> ModuleType:
    """The array module of ``a``: NumPy for its arrays and scalars, CuPy for a device array."""
    if isinstance(a, (np.ndarray, np.generic)):
        return np
    import cupy  # a device array: CuPy is installed

    return cupy


def to_host(a: Any) -> NDArray[Any]:
    """``a`` as a NumPy array: a device array is copied back, anything else goes through
    ``numpy.asarray`` (host arrays are returned as they are)."""
    return a.get() if hasattr(a, "get") else np.asarray(a)
