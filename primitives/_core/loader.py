"""Kernel loader: one place that turns ``kernels/<family>/<file>.cu`` into launchable functions.

A *module* is a source file plus the template instantiations ("name expressions") a family asks
for. On the CUDA backend it is a ``cupy.RawModule`` loaded from the binary shipped with the
package where there is one (:mod:`primitives._core.binaries`), else each instantiation is compiled
by the package's NVRTC call alone when a call first needs it (a first call waits for its own
kernels, not for every instantiation of the file), into a cubin kept on disk (:func:`compile_alone`:
the same compiler and options as the shipped binaries, so the same results; CuPy's ``RawModule``
would add ``-ftz=true``); on the emulator it is the same source compiled by the host C++ compiler
(:mod:`primitives._core.emulator`). Modules are memoized per (backend, device, file, names). A
hash of the whole ``kernels/`` tree is folded into the options and the cache keys: editing any
header recompiles every module.

Every family registers its modules with :func:`register` so that the NVRTC check in CI can compile
every instantiation the library can launch (:func:`registered_modules`), and the binaries ship
those its tuning tables take; a policy's alternative that only a tuning override launches is
registered as a candidate (``shipped=False``): checked, not shipped, compiled on demand.
"""

from __future__ import annotations

import functools
import hashlib
import pathlib
import threading
import warnings
from collections.abc import Callable, Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any, TypeAlias

import numpy as np

from . import backend as _backend
from .compile_errors import CompileError

if TYPE_CHECKING:
    from .policy import Table

__all__ = [
    "KernelCompileError",
    "Kernel",
    "kernels_root",
    "tree_hash",
    "load",
    "register",
    "param_words",
    "check_dense",
    "kernel_origins",
    "prefetch",
    "settle",
]


#: a module's getter: the kernel of one of its name expressions (:func:`load`)
Getter: TypeAlias = "Callable[[str], Kernel]"


class KernelCompileError(CompileError):
    """A kernel module failed to compile. The message is one line (the instantiation the first
    error came from, the compiler's first error line and the file of the whole log,
    :mod:`primitives._core.compile_errors`); ``log`` holds the whole log, ``names`` the
    instantiations asked for, ``log_path`` the file."""


@functools.lru_cache(maxsize=None)
def kernels_root() -> pathlib.Path:
    """Directory holding the CUDA sources (inside the installed package, or the source tree)."""
    package = pathlib.Path(__file__).resolve().parent.parent
    for cand in (package / "kernels", package.parent / "kernels"):
        if (cand / "util" / "prim.cuh").is_file():
            return cand
    raise RuntimeError(f"primitives: kernel sources not found next to {package}")


@functools.lru_cache(maxsize=None)
def tree_hash() -> str:
    """sha256 over every source file under ``kernels/`` (names and contents)."""
    root = kernels_root()
    h = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".cu", ".cuh", ".h") and path.is_file():
            h.update(str(path.relative_to(root)).encode())
            h.update(b"\0")
            h.update(path.read_bytes())
    return h.hexdigest()


# sources made at run time (a user operator's functor before a kernel file: _core.ops)
_SOURCES: dict[str, str] = {}


def add_source(relpath: str, text: str) -> None:
    """Make ``text`` the source of ``relpath``, a name of no file under ``kernels/`` (its
    ``#include`` lines resolve there): compiled and cached as the files are, under its text."""
    _SOURCES[relpath] = text


def source(relpath: str) -> str:
    made = _SOURCES.get(relpath)
    return made if made is not None else (kernels_root() / relpath).read_text()


def made_key(relpath: str) -> str:
    """What a compiled image of ``relpath`` is keyed by beyond :func:`tree_hash`: the hash of
    the text of a source made at run time (:func:`add_source`: a user operator's functor and a
    map's element type, written by the package's Python, which the tree's hash does not see),
    "" for a file of the tree."""
    made = _SOURCES.get(relpath)
    return "" if made is None else hashlib.sha256(made.encode()).hexdigest()


def nvrtc_options() -> tuple[str, ...]:
    """Options shared by the CUDA backend and the CI compile check."""
    return ("-std=c++17", f"-I{kernels_root()}", f"-DPRIM_KERNELS_HASH=0x{tree_hash()[:16]}")


def binary_options() -> list[str]:
    """:func:`nvrtc_options` as the package's own NVRTC call takes them (it sets the language
    standard itself): the options of the shipped binaries and of :func:`compile_alone`."""
    return [o for o in nvrtc_options() if o != "-std=c++17"]


# ---------------------------------------------------------------------------------------------
# Registry of every instantiation the library launches (for the NVRTC check in CI).

_REGISTRY: dict[str, list[str]] = {}
#: instantiations only a tuning override launches (a policy alternative the tables do not take)
_CANDIDATES: dict[str, list[str]] = {}


def register(relpath: str, names: Iterable[str], *, shipped: bool = True) -> None:
    """Declare the name expressions a family may instantiate from ``relpath``: those its
    tuning tables launch (``shipped``: built into the binaries), or candidates (an alternative
    of a policy field the tables leave off: compiled by the NVRTC check, built on demand under
    an override)."""
    reg = _REGISTRY if shipped else _CANDIDATES
    reg.setdefault(relpath, [])
    for n in names:
        if n not in reg[relpath]:
            reg[relpath].append(n)


def registered_modules(candidates: bool = False) -> dict[str, list[str]]:
    """``{relpath: [name expressions]}`` for every family imported so far: those the binaries
    ship, and with ``candidates`` the candidates too (every instantiation an override can
    launch: the NVRTC check's list)."""
    out = {k: list(v) for k, v in _REGISTRY.items()}
    if candidates:
        for k, v in _CANDIDATES.items():
            have = out.setdefault(k, [])
            have += [n for n in v if n not in have]
    return out


#: an override's module of at most this many names is compiled whole (on the emulator a module
#: costs about 0.45 s plus 0.2 s a name, a name alone about 0.6 s: a small module's names are
#: mostly all launched, a large one's a few)
WHOLE_MAX = 8


class PolicyModules:
    """The modules of the kernel source ``source`` that a family loads per (key, policy): the
    name expressions of one module are ``names(key, pol)`` (a key is a variant or a mode). Made
    once by the family, it registers every module its tuning ``table`` can ask for (each key's
    policies, under the selector ``selector(key)``) for the NVRTC check and the binaries, and
    ``candidates(key, pol)`` (instantiations an override of pol's fields launches) for the
    check alone; :meth:`kernel` loads one kernel of one module."""

    def __init__(
        self,
        source: str,
        names: Callable[[Any, Any], Sequence[str]],
        table: Table,
        keys: Iterable[Any],
        selector: Callable[[Any], Any] | None = None,
        candidates: Callable[[Any, Any], Sequence[str]] | None = None,
    ) -> None:
        self.source, self.names = source, names
        self._modules: set[tuple[str, ...]] = set()  # the table's modules
        for key in keys:
            for pol in table.policies(key if selector is None else selector(key)):
                module = tuple(names(key, pol))
                register(source, module)
                self._modules.add(module)
                if candidates is not None:  # what an override of pol's fields may launch
                    register(source, candidates(key, pol), shipped=False)

    def kernel(self, key: Any, name: str, pol: Any) -> Kernel:
        """Kernel ``name`` of ``key``'s module under the policy ``pol``: from the whole module
        when ``pol`` is one of the table's (every call under the table shares it) or the module
        is small (at most :data:`WHOLE_MAX` names); an instantiation the module does not list,
        or one of a larger module of a policy outside the table (an override: a test's or a
        tuning run's), in a module of its own, compiled on demand (an override compiles what it
        launches, not its whole module)."""
        names = tuple(self.names(key, pol))
        if name in names and (names in self._modules or len(names) <= WHOLE_MAX):
            return load(self.source, list(names))(name)
        return load(self.source, [name])(name)


# ---------------------------------------------------------------------------------------------


_MASK64 = (1 << 64) - 1
_BITS_OF = {np.dtype(np.float32): np.uint32, np.dtype(np.float64): np.uint64}


def param_words(args: Iterable[Any], array_type: type[Any]) -> list[int] | None:
    """The kernel arguments ``args`` as 64-bit words, each the bytes of one parameter from its
    first byte on (little-endian: an int32 parameter reads the low 4 bytes of its word), as
    CuPy passes them: an ``array_type`` array as its device address, a NumPy integer, bool or
    float scalar as its own bytes, a Python int as a 64-bit integer. None when some argument is
    anything else (CuPy's own launch takes those: Python floats, which CuPy passes as doubles,
    structures, other array types)."""
    words: list[int] = []
    for a in args:
        t = type(a)
        if t is array_type:
            words.append(a.data.ptr)
        elif t is int or isinstance(a, (np.integer, np.bool_)):
            words.append(int(a) & _MASK64)
        elif isinstance(a, np.floating) and a.dtype in _BITS_OF:
            words.append(int(a.view(_BITS_OF[a.dtype])))
        else:
            return None
    return words


def check_dense(name: str, args: Iterable[Any], array_type: type[Any]) -> None:
    """Refuse an ``array_type`` argument of kernel ``name`` that is not C-contiguous: a kernel
    gets an array as its first element's address alone (CuPy passes nothing else) and reads the
    elements one after another from there, so a view with other strides (a broadcast's zero
    stride, a slice's step, a transpose) would be read as memory it does not describe. The
    emulator makes the same check of its own arguments."""
    for i, a in enumerate(args):
        if type(a) is array_type and not a._c_contiguous:
            raise not_dense(name, i, a)


def not_dense(name: str, index: int, a: Any) -> ValueError:
    """The error of :func:`check_dense` for argument ``index``, the array ``a``."""
    return ValueError(
        f"{name}: argument {index}: the array is not C-contiguous (shape "
        f"{a.shape}, strides {a.strides}); a kernel reads an array's elements one "
        f"after another from its first address"
    )


class _DirectLaunch:
    """What a prepared launch (:class:`primitives._core.launch.Direct`) of a kernel needs to call
    cuLaunchKernel itself: the function's handle, the driver's launch call, the current stream
    and the array type whose addresses it passes."""

    def __init__(self, fn: Any) -> None:
        import cupy
        from cupy_backends.cuda.api import driver

        self.ptr = fn.kernel.ptr
        self.array_type = cupy.ndarray
        self.stream = cupy.cuda.get_current_stream
        self.launch_kernel = driver.launchKernel


class Kernel:
    """One instantiated kernel with CuPy's ``RawKernel`` call shape on both backends."""

    def __init__(self, fn: Any, name: str, backend: _backend.Backend) -> None:
        self._fn = fn  # CuPy's RawKernel function, or the emulator's EmuFunction
        self.name = name
        self.backend = backend
        self._occupancy: dict[tuple[int, int], int] = {}
        self.direct = _DirectLaunch(fn) if backend.is_cuda else None

    def _swap(self, fn: Any) -> None:
        """Launch ``fn`` from now on: the same instantiation's image compiled at the default
        level, replacing the fast-compiled one (:func:`settle`). Its opt-in to dynamic shared
        memory is carried over before any launch can reach it; prepared launches
        (:class:`primitives._core.launch.Direct`) read the new handle at their next call."""
        nbytes = self._fn.max_dynamic_shared_size_bytes
        if fn.max_dynamic_shared_size_bytes < nbytes:
            fn.max_dynamic_shared_size_bytes = nbytes
        self._occupancy = {}
        self._fn = fn
        if self.direct is not None:
            self.direct.ptr = fn.kernel.ptr

    def __call__(
        self,
        grid: tuple[int, ...],
        block: tuple[int, ...],
        args: Sequence[Any],
        shared_mem: int = 0,
    ) -> None:
        if self.direct is not None:  # CuPy's launch (the emulator checks its arguments itself)
            check_dense(self.name, args, self.direct.array_type)
        self._fn(grid, block, args, shared_mem=shared_mem)

    @property
    def function(self) -> Any:
        """The backend's own function object (CuPy's ``RawKernel`` function on the GPU), for
        tools that measure or inspect it (registers, local memory, a launch through it)."""
        return self._fn

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self._fn.max_dynamic_shared_size_bytes

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, nbytes: int) -> None:
        self._fn.max_dynamic_shared_size_bytes = int(nbytes)

    def resources(self) -> tuple[int, int]:
        """(registers per thread, static shared bytes); the emulator reports a nominal 32 / 0."""
        if self.backend.is_cuda:
            return self._fn.num_regs, self._fn.shared_size_bytes
        return 32, 0

    def occupancy(self, block: int, shared_mem: int = 0) -> int:
        """Resident blocks per multiprocessor for this kernel at this block size."""
        key = (block, shared_mem)
        if key not in self._occupancy:
            self._occupancy[key] = self._compute_occupancy(block, shared_mem)
        return self._occupancy[key]

    def _compute_occupancy(self, block: int, shared_mem: int) -> int:
        if self.backend.is_cuda:
            try:
                from cupy_backends.cuda.api import driver

                return max(
                    1,
                    driver.occupancyMaxActiveBlocksPerMultiprocessor(
                        self._fn.kernel.ptr, block, shared_mem
                    ),
                )
            except Exception:  # fall back to the calculation below  # noqa: BLE001
                pass
        info = self.backend.device_info()
        regs, static_smem = self.resources()
        warps = -(-block // 32)
        regs_per_warp = -(-max(regs, 1) * 32 // 256) * 256
        limits = [
            info.max_blocks_per_sm,
            info.max_threads_per_sm // block,
            info.regs_per_sm // (regs_per_warp * warps),
        ]
        smem = static_smem + shared_mem
        if smem:
            limits.append(info.shared_per_sm // (smem + 1024))
        return max(1, min(limits))


_modules: dict[Hashable, Getter] = {}


def load(relpath: str, names: Iterable[str]) -> Getter:
    """The module ``relpath`` with the instantiations ``names`` (once per device): a getter
    ``get(name) -> Kernel``.

    On the CUDA backend the kernels come from the binary shipped for the device where there is
    one; else each instantiation is compiled alone by NVRTC the first time ``get`` asks for it.
    The emulator compiles the module's names together (one host-compiler run).
    """
    backend = _backend.get_backend()
    names = tuple(names)
    key = (backend.name, backend.device_id(), relpath, names)
    mod = _modules.get(key)
    if mod is None:
        mod = _modules[key] = _compile(backend, relpath, names)
    return mod


def _compile_error(relpath: str, names: Sequence[str], exc: Exception) -> KernelCompileError:
    """The :class:`KernelCompileError` of ``exc``, a compiler's error (a
    :class:`~primitives._core.compile_errors.CompileError` of NVRTC or the emulator, with its log
    and the instantiation it names, or CuPy's, whose text is the log)."""
    if not isinstance(exc, CompileError):
        return KernelCompileError(f"compiling {relpath}", str(exc), names)
    if not exc.log:  # the compiler did not run (or an NVRTC call failed): its reason alone
        return KernelCompileError(f"compiling {relpath} failed: {exc}", names=names)
    return KernelCompileError(
        f"compiling {relpath}", exc.log, names, exc.instantiation, exc.log_path
    )


# (path of a shipped binary, device) -> its loaded module
_shipped_modules: dict[tuple[str, int], Any] = {}


def shipped(
    raw_module: Callable[..., Any], relpath: str, names: Sequence[str], cc: str
) -> Callable[[str], Any] | None:
    """A getter ``get(name)`` of the kernels ``names`` of ``relpath`` from the binaries shipped
    for a device of compute capability ``cc`` (:mod:`primitives._core.binaries`), or None where
    there are none or one does not load (a warning then: the caller compiles instead).
    ``raw_module``: the class that loads a cubin or PTX file (``cupy.RawModule``)."""
    from . import binaries

    found = binaries.find(relpath, names, cc)
    if found is None:
        return None
    device = _backend.get_backend().device_id()
    raws: dict[str, Any] = {}
    for name, (path, lowered) in found.items():
        key = (str(path), device)
        try:
            raw = _shipped_modules.get(key)
            if raw is None:
                raw = raw_module(path=str(path))
                raw.get_function(lowered)  # loads the file now, so a failure falls back
                _shipped_modules[key] = raw
        except Exception as exc:  # a damaged or incompatible binary: compile as without one  # noqa: BLE001
            warnings.warn(
                f"primitives: the shipped kernel binary {path.name} did not load "
                f"({type(exc).__name__}: {exc}); compiling {relpath} instead",
                RuntimeWarning,
                stacklevel=2,
            )
            return None
        raws[name] = raw
    _count("shipped", len(found))
    return lambda name: raws[name].get_function(found[name][1])


#: how the kernels of this process were had, by origin: ``shipped`` (a binary of the package),
#: ``compiled`` (NVRTC or the emulator's compiler ran), ``cached`` (an image or shared object
#: compiled by an earlier process), ``cupy`` (CuPy's compiler, the fallback); ``fast`` counts
#: the compiles of ``compiled`` made at the fast level (:func:`_tier_level`)
_origins: dict[str, int] = {}


_origins_lock = threading.Lock()


def _count(origin: str, n: int = 1) -> None:
    with _origins_lock:  # compiles run in threads (:func:`prefetch`)
        _origins[origin] = _origins.get(origin, 0) + n


def kernel_origins() -> dict[str, int]:
    """``{origin: kernels}`` of the modules this process loaded so far (see ``_origins``): a
    first call's kernels came from the shipped binaries, or were compiled."""
    return dict(_origins)


def _compile(backend: _backend.Backend, relpath: str, names: tuple[str, ...]) -> Getter:
    tiered = False  # kernels compiled on first use: watched for their default images
    if backend.is_cuda:
        import cupy

        get_raw = shipped(cupy.RawModule, relpath, names, backend.device_info().compute_capability)
        if get_raw is None:
            tiered = True
            # nothing shipped: compile each instantiation when a call first asks for it, not
            # every name of the module (a first call waits for its own kernels alone)
            get_raw = functools.partial(_lazy.compiled_alone, relpath)
    else:
        from . import emulator as _emulator, emulator_build as _emulator_build

        before = _emulator_build.builds()
        try:
            emod = _emulator.compile_module(
                source(relpath),
                list(names),
                include_dirs=[str(kernels_root())],
                cache_key=tree_hash(),
                filename=str(kernels_root() / relpath),
            )
        except _emulator.EmulatorCompileError as exc:
            raise _compile_error(relpath, names, exc) from exc
        _count("compiled" if _emulator_build.builds() > before else "cached", len(names))
        get_raw = emod.get_function

    cache: dict[str, Kernel] = {}

    def get(name: str) -> Kernel:
        k = cache.get(name)
        if k is None:
            if name not in names:
                raise KeyError(f"{name!r} is not an instantiation of this module of {relpath}")
            k = cache[name] = Kernel(get_raw(name), name, backend)
            if tiered:
                _lazy.watch(k, relpath)
        return k

    return get


# the kernels compiled on first use (after the definitions above, which that module uses)
from . import lazy as _lazy  # noqa: E402
from .lazy import compile_alone, lazy_cache_dir, prefetch, settle  # noqa: E402, F401
