"""Kernels compiled on first use: each instantiation alone, by the package's NVRTC call, in two
tiers where NVRTC has the fast-compile levels.

Where the package ships no binary for a module (:mod:`primitives._core.binaries`), the loader
(:func:`primitives._core.loader.load`) asks :func:`compiled_alone` for each kernel a call needs:
one instantiation compiled alone into a cubin kept on disk (:func:`compile_alone`), several at
once in threads where a call announces them (:func:`prefetch`), each thread's compile run by a
worker process of the compile server where one runs (:mod:`.compile_server`: NVRTC scales
poorly over the threads of one process). With tiers
(NVRTC 12.8 or later, ``$PRIMITIVES_COMPILE_TIERS`` not ``off``), a first call compiles its
kernels at NVRTC's fast level and runs them; their default-level images compile in background
threads (:func:`_finish`) once no call has waited for a compile for a while, and each, when it
lands, is swapped into every :class:`~primitives._core.loader.Kernel` of its instantiation
(prepared launches read the handle per call) and the plans are retired, so the next call makes
them with the new image's occupancy. :func:`settle` waits for the images under way (the timings
call it). A process that exits waits for the compiles under way (the pool's threads are
joined), so the next one finds the default images in the cache.
"""

from __future__ import annotations

import concurrent.futures
import hashlib
import json
import os
import pathlib
import threading
import time
import warnings
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

from . import backend as _backend, cache as _cache
from .loader import (
    Kernel,
    KernelCompileError,
    _compile_error,
    _count,
    binary_options,
    made_key,
    nvrtc_options,
    source,
    tree_hash,
)

__all__ = ["compile_alone", "lazy_cache_dir", "prefetch", "settle", "compiled_alone", "watch"]


# (device, relpath, name) -> the kernel of a module compiled for that name alone
_alone: dict[tuple[int, str, str], Any] = {}
# the same keys -> their loaded modules, kept alive with their kernels
_alone_modules: dict[tuple[int, str, str], Any] = {}


def lazy_cache_dir() -> pathlib.Path:
    """Where the images compiled on first use are kept for later processes:
    ``$PRIMITIVES_CACHE_DIR/cubin`` (default ``~/.cache/primitives/cubin``)."""
    return _cache.cache_dir("cubin")


def compile_alone(
    relpath: str, name: str, arch: str, fast: bool = False
) -> tuple[pathlib.Path, str]:
    """``(path, lowered name)`` of a cubin of the one instantiation ``name`` of ``relpath`` for
    ``arch`` (``"sm_90"``), compiled by the package's own NVRTC call as the shipped binaries are
    (IEEE denormals: CuPy's ``RawModule`` appends ``-ftz=true`` to any options, so its kernels
    compare and add denormals as zeros, and would disagree with the shipped ones) and kept in
    :func:`lazy_cache_dir` under a hash of the kernels' tree, the text of a source made at run
    time (``loader.made_key``), the name, the architecture, the compiler and its options.
    ``fast``: at NVRTC's fast-compile level (:func:`_tier_level`), the image a first call runs
    while the default one compiles (:func:`settle`). Raises
    :class:`KernelCompileError` with the compiler's log on a compile error."""
    from . import compile_server, nvrtc

    opts = binary_options() + ([f"-Ofc={_tier_level() or FAST_LEVEL}"] if fast else [])
    image, meta = _image_paths(relpath, name, arch, opts)
    found = _cached_image(image, meta, name)
    if found is not None:
        _count("cached")
        return found
    start = time.perf_counter()
    try:
        data, lowered = compile_server.compile_binary(  # in the server where it runs
            source(relpath), [name], arch=arch, options=opts, filename=relpath
        )
    except nvrtc.NVRTCError as exc:
        raise _compile_error(relpath, [name], exc) from exc
    _compiles.append((relpath, name, fast, start, time.perf_counter()))
    image.parent.mkdir(parents=True, exist_ok=True)
    for path, blob in ((image, data), (meta, json.dumps(lowered).encode())):
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")  # whole files or none
        tmp.write_bytes(blob)
        os.replace(tmp, path)
    _count("compiled")
    if fast:
        _count("fast")
    return image, lowered[name]


def warm_up() -> threading.Thread:
    """Start, in a daemon thread, what a first compile waits for before NVRTC can start (0.05 to
    0.2 s on an H200 host): the kernel tree hashed (the compiled images' cache key and the
    shipped binaries' check) and, where no binaries are shipped for this package, NVRTC's library
    loaded and the compile server started (:mod:`.compile_server`, where wanted). ``import
    primitives`` calls it, so that this runs while the caller makes its inputs. Any failure is
    left to the call that needs the library (it raises there)."""

    def run() -> None:
        from . import binaries, compile_server, nvrtc

        try:
            tree_hash()
            if binaries.index() is None:
                nvrtc.version()  # loads the library
                if compile_server.wanted():
                    compile_server.start(nvrtc.library_path())
        except Exception:  # noqa: BLE001, S110 - the compile that needs NVRTC reports it
            pass

    thread = threading.Thread(target=run, name="primitives-warm-up", daemon=True)
    thread.start()
    if hasattr(os, "register_at_fork"):  # no fork while it holds the loader's or an import's lock
        os.register_at_fork(before=thread.join)
    return thread


# (relpath, name, fast, start, end) of every compile of this process, perf_counter seconds
_compiles: list[tuple[str, str, bool, float, float]] = []


def compiles(since: float = 0.0) -> list[tuple[str, str, bool, float, float]]:
    """The NVRTC compiles of this process that started at or after ``since`` (a
    ``time.perf_counter()``), in the order they ended: ``(relpath, name, fast, start, end)``,
    ``fast`` for an image at the fast-compile level. What a first call waited for
    (``python -m tools.probes.first_call --trace``)."""
    return [c for c in list(_compiles) if c[3] >= since]


#: NVRTC's fast-compile level (NVRTC 12.8 and later) of the images a first call runs. On an H200
#: host (NVRTC 13.0, docs/perf-log/2026-12/general.md) a first sort compiles its kernels in about
#: 0.3 s at ``mid`` (2.8 s at the default level) into images 2-8x slower than the default ones;
#: ``max`` compiles no faster and its images run 12-56x slower, ``min`` compiles about as slowly
#: as the default level
FAST_LEVEL = "mid"


def _tier_level() -> str | None:
    """The fast-compile level of a first call's images, or None where a first call compiles
    the default image itself: ``$PRIMITIVES_COMPILE_TIERS`` (``on``, the default, for
    :data:`FAST_LEVEL`; a level ``min``, ``mid`` or ``max``; or ``off``), and an NVRTC that
    knows the levels."""
    from . import nvrtc

    setting = os.environ.get("PRIMITIVES_COMPILE_TIERS", "on").strip().lower()
    if setting not in ("on", "off", "min", "mid", "max"):
        raise ValueError(
            f"PRIMITIVES_COMPILE_TIERS must be on, off, min, mid or max; got {setting!r}"
        )
    if setting == "off" or nvrtc.version() < (12, 8):
        return None
    return FAST_LEVEL if setting == "on" else setting


def _tiers() -> bool:
    """Whether a first call runs an instantiation compiled at a fast level while its default
    image compiles behind it (:func:`_tier_level`)."""
    return _tier_level() is not None


def _image_paths(
    relpath: str, name: str, arch: str, opts: Sequence[str]
) -> tuple[pathlib.Path, pathlib.Path]:
    from . import nvrtc

    key = (tree_hash(), made_key(relpath), relpath, name, arch, nvrtc.version(), list(opts))
    digest = hashlib.sha256(repr(key).encode()).hexdigest()[:40]
    directory = lazy_cache_dir()
    return directory / f"{digest}.cubin", directory / f"{digest}.json"


def _cached_image(
    image: pathlib.Path, meta: pathlib.Path, name: str
) -> tuple[pathlib.Path, str] | None:
    try:
        return image, json.loads(meta.read_text())[name]
    except (OSError, ValueError, KeyError):
        return None


def _first_image(relpath: str, name: str, arch: str) -> tuple[pathlib.Path, str, bool]:
    """``(path, lowered name, final)`` of the image a first call loads: the default one where
    the cache holds it (``final``), else, with tiers, the fast one, the default one then
    compiling in the background (:func:`_finish`), else the default one compiled now."""
    if _tiers():
        found = _cached_image(*_image_paths(relpath, name, arch, binary_options()), name)
        if found is None:
            path, lowered = compile_alone(relpath, name, arch, fast=True)
            return path, lowered, False
    path, lowered = compile_alone(relpath, name, arch)
    return path, lowered, True


# (relpath, name, arch) -> the compile started by prefetch, until the kernel is asked for
_prefetched: dict[
    tuple[str, str, str], concurrent.futures.Future[tuple[pathlib.Path, str, bool]]
] = {}
_pool: list[concurrent.futures.ThreadPoolExecutor] = []
# (device, relpath, name) of the instantiations prefetch found shipped: nothing to compile
_shipped: set[tuple[int, str, str]] = set()
# (device, relpath, name) -> the default-level compile of a kernel running at the fast level
_pending: dict[tuple[int, str, str], concurrent.futures.Future[None]] = {}
# the same keys -> the Kernel objects of that instantiation, swapped when its image lands
_watchers: dict[tuple[int, str, str], weakref.WeakSet[Kernel]] = {}
# the fast images' modules, kept loaded after their default ones land
_retired: list[Any] = []
_tier_lock = threading.Lock()
# the compiles calls wait for (asked for, under way or queued), and their end: a default image
# compiles only while there are none, so that it takes no processor from a first call
_waited_for = 0
_calls_idle = threading.Condition()
_last_wait_end = [0.0]
#: seconds a default image waits after the last compile a call waited for: a call that asks for
#: its kernels one after another (each after the last one ran) keeps the processor meanwhile
QUIET_S = 0.3


def _call_compile(delta: int) -> None:
    global _waited_for
    with _calls_idle:
        _waited_for += delta
        if _waited_for == 0:
            _last_wait_end[0] = time.monotonic()
            _calls_idle.notify_all()


def _wait_for_quiet() -> None:
    """Until no call has waited for a compile for :data:`QUIET_S` seconds."""
    with _calls_idle:
        while True:
            _calls_idle.wait_for(lambda: _waited_for == 0)
            left = _last_wait_end[0] + QUIET_S - time.monotonic()
            if left <= 0:
                return
            _calls_idle.wait(left)


def _executor(which: int) -> concurrent.futures.ThreadPoolExecutor:
    """The compile threads: 0 for the compiles a call waits for (as many as a compile server
    runs at once, :func:`.compile_server.workers`: each waits for one of its processes, or runs
    NVRTC here where none runs), 1 for the default images compiled behind fast ones (a quarter of
    the cores: the calls' own compiles keep the rest)."""
    from . import compile_server

    with _tier_lock:
        if not _pool:
            cpus = os.cpu_count() or 1
            size = compile_server.workers()
            _pool.append(concurrent.futures.ThreadPoolExecutor(size, "primitives-compile"))
            _pool.append(
                concurrent.futures.ThreadPoolExecutor(max(1, cpus // 4), "primitives-tier")
            )
    return _pool[which]


def prefetch(relpath: str, names: Iterable[str]) -> None:
    """Start compiling the instantiations ``names`` of ``relpath`` that a call is about to ask
    for (:func:`load`), each in a thread of its own, where they are compiled on first use (the
    CUDA backend with no shipped binary for them): a call that needs several kernels waits for
    the longest compile, not for their sum (NVRTC compiles in several threads at once; the
    compiler releases the interpreter). Nothing happens on the emulator, for kernels loaded
    already, shipped or being compiled; a compile error is raised when the kernel is asked
    for."""
    from . import binaries

    backend = _backend.get_backend()
    if not backend.is_cuda:
        return
    device = backend.device_id()
    names = [
        n
        for n in names
        if (device, relpath, n) not in _alone and (device, relpath, n) not in _shipped
    ]
    if not names:
        return
    cc = backend.device_info().compute_capability
    if binaries.find(relpath, names, cc) is not None:  # looked up once (files stat'ed)
        _shipped.update((device, relpath, n) for n in names)
        return
    pool = _executor(0)
    for name in names:
        key = (relpath, name, f"sm_{cc}")
        if key not in _prefetched:
            _call_compile(1)
            _prefetched[key] = future = pool.submit(_first_image, *key)
            future.add_done_callback(lambda _: _call_compile(-1))


def _first_image_now(relpath: str, name: str, arch: str) -> tuple[pathlib.Path, str, bool]:
    """:func:`_first_image`, through the compile :func:`prefetch` started (waiting for it, or
    running it here where no thread has started it yet)."""
    future = _prefetched.pop((relpath, name, arch), None)
    if future is None or future.cancel():
        _call_compile(1)
        try:
            return _first_image(relpath, name, arch)
        finally:
            _call_compile(-1)
    return future.result()


def _finish(device: int, relpath: str, name: str, arch: str) -> None:
    """In the background, once no call has waited for a compile (none asked for, queued or
    under way) for :data:`QUIET_S` seconds: compile the default image of a kernel that runs its
    fast one, load it on ``device`` and swap it into every :class:`Kernel` of the
    instantiation; then retire the plans (made with the fast image's occupancy: the next call
    makes them again). A failed compile leaves the fast image in use, with a warning. The wait
    for the kernel (:func:`settle`) ends after all of it, whatever happens."""
    key = (device, relpath, name)
    try:
        _wait_for_quiet()  # after the compiles a call waits for
        import cupy

        from . import plans as _plans

        path, lowered = compile_alone(relpath, name, arch)
        with cupy.cuda.Device(device):
            raw = cupy.RawModule(path=str(path))
            fn = raw.get_function(lowered)
            with _tier_lock:
                _retired.append(_alone_modules.get(key))  # launches may still be in flight
                _alone_modules[key] = raw
                _alone[key] = fn
                for kernel in list(_watchers.pop(key, ())):
                    kernel._swap(fn)
        _plans.PLANS.clear()
    except Exception as exc:  # noqa: BLE001 - the fast image stays, and is correct
        with _tier_lock:
            _watchers.pop(key, None)
        warnings.warn(
            f"primitives: the default-level compile of {name} ({relpath}) failed "
            f"({type(exc).__name__}: {exc}); its fast-compiled image stays in use",
            RuntimeWarning,
            stacklevel=2,
        )
    finally:
        with _tier_lock:
            _pending.pop(key, None)


def watch(kernel: Kernel, relpath: str) -> None:
    """Have ``kernel`` swapped to its default image when that lands (:func:`_finish`), or now
    where it has landed already."""
    key = (kernel.backend.device_id(), relpath, kernel.name)
    with _tier_lock:
        if key in _pending:
            _watchers.setdefault(key, weakref.WeakSet()).add(kernel)
            return
        fn = _alone.get(key)
    if fn is not None and fn is not kernel.function:
        kernel._swap(fn)


def settle() -> bool:
    """Wait until every kernel running an image compiled at the fast level runs its default
    one (compiled in the background since its first call). Returns whether it waited for any.
    Timings call it after their warm-up (:mod:`primitives._core.timing`): the images they
    measure are the ones every later call runs. The plans made before are retired, so a
    caller that waited warms up again."""
    waited = False
    while True:
        with _tier_lock:
            futures = list(_pending.values())
        if not futures:
            return waited
        concurrent.futures.wait(futures)
        waited = True


_cupy_compile_warned: list[bool] = []


def compiled_alone(relpath: str, name: str) -> Any:
    """The kernel ``name`` of ``relpath`` from a module of that one instantiation, compiled
    once per device by :func:`compile_alone` and loaded as a shipped binary is (the fast
    image first, where its default one is not cached: :func:`_first_image`); where that
    cannot run (no NVRTC library the package finds, an architecture it does not know), CuPy's
    ``RawModule`` compiles it instead, with a warning (its kernels flush denormals to zero)."""
    import cupy

    backend = _backend.get_backend()
    key = (backend.device_id(), relpath, name)
    fn = _alone.get(key)
    if fn is None:
        try:
            arch = f"sm_{backend.device_info().compute_capability}"
            path, lowered, final = _first_image_now(relpath, name, arch)
            raw = cupy.RawModule(path=str(path))
            fn = raw.get_function(lowered)
            background = None if final else _executor(1)
            with _tier_lock:
                if key in _alone:  # another thread got here first
                    return _alone[key]
                _alone_modules[key] = raw
                _alone[key] = fn
                if background is not None:
                    _pending[key] = background.submit(_finish, *key, arch)
            return fn
        except KernelCompileError:
            raise
        except Exception as exc:  # noqa: BLE001 - CuPy's compiler is the fallback
            if not _cupy_compile_warned:
                _cupy_compile_warned.append(True)
                warnings.warn(
                    f"primitives: compiling {relpath} through CuPy instead "
                    f"({type(exc).__name__}: {exc}); its kernels flush denormal "
                    f"floats to zero",
                    RuntimeWarning,
                    stacklevel=2,
                )
            raw = cupy.RawModule(
                code=source(relpath), options=nvrtc_options(), name_expressions=[name]
            )
            try:
                raw.compile()
            except cupy.cuda.compiler.CompileException as cexc:
                raise _compile_error(relpath, [name], cexc) from cexc
            fn = raw.get_function(name)
            _count("cupy")
        _alone[key] = fn
    return fn
