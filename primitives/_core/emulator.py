"""CPU emulator backend: compiles the CUDA kernel sources with the host C++ compiler and runs them.

The kernel text is compiled with ``-include kernels/emulator/emu.h`` (a header-only emulation of
the CUDA device runtime: one fiber per CUDA thread, blocks one after another) into a shared object
that exports, per name expression, a launcher and a description of the kernel's parameters.
Arguments are checked against the kernel's C++ signature before every launch. NumPy arrays play
the part of device memory; they must be C-contiguous (a kernel gets an array's first address
alone). See ``docs/emulator.md``.

Depends only on NumPy, the standard library and :mod:`primitives._core.compile_errors` (itself
the standard library only).
"""

from __future__ import annotations

import ctypes
import hashlib
import os
import threading
from collections import namedtuple
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from . import emulator_build as _build
from .emulator_build import _ABI, EmulatorCompileError

__all__ = [
    "EmulatorError",
    "EmulatorCompileError",
    "EmuModule",
    "EmuFunction",
    "ParamInfo",
    "compile_module",
    "set_race_mode",
    "race_mode",
    "MAX_THREADS_PER_BLOCK",
    "DEFAULT_MAX_DYNAMIC_SHARED",
    "MAX_DYNAMIC_SHARED",
]

MAX_THREADS_PER_BLOCK = 1024
DEFAULT_MAX_DYNAMIC_SHARED = 48 * 1024
MAX_DYNAMIC_SHARED = 227 * 1024
_CFG_LEN = 11


class EmulatorError(RuntimeError):
    """A launch was refused or failed: bad configuration, divergent barriers, deadlock, spin,
    illegal memory access or stack overflow, assertion or __trap() in a kernel."""


#: One kernel parameter: ``kind`` is "pointer", "int", "uint", "float", "bool" or "struct";
#: ``size`` its sizeof; ``ctype`` the C++ type as the compiler spells it; ``pointee_kind`` /
#: ``pointee_size`` describe ``*p`` for pointers to arithmetic types ("" / 0 otherwise).
ParamInfo = namedtuple("ParamInfo", "index kind size align ctype pointee_kind pointee_size")

_KINDS = {0: "struct", 1: "pointer", 2: "int", 3: "uint", 4: "float", 5: "bool"}


# ---------------------------------------------------------------------------------------------
# race-exposing mode
# ---------------------------------------------------------------------------------------------
_state_lock = threading.Lock()
_race_seed: int | None = None
_race_launches = 0


def _env_int(name: str, default: int) -> int:
    v = os.environ.get(name, "").strip()
    if not v:
        return default
    try:
        return int(v, 0)
    except ValueError as exc:
        raise ValueError(f"{name}={v!r} is not an integer") from exc


def set_race_mode(seed: int | np.integer[Any] | None) -> None:
    """Enable the race-exposing scheduler with ``seed`` (an int), or disable it with ``None``.

    In race mode the fibers released by a barrier resume in a random order (a fresh permutation
    after every release; launch k after this call uses a seed derived from (seed, k)), and shared
    memory is filled with 0xFF bytes at every block start.
    """
    global _race_seed, _race_launches
    if seed is not None:
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"race-mode seed must be an int or None, not {type(seed).__name__}")
        seed = int(seed)
    with _state_lock:
        _race_seed = seed
        _race_launches = 0


def race_mode() -> int | None:
    """The seed given to :func:`set_race_mode` (or ``$PRIMITIVES_EMU_RACE``), or ``None``."""
    return _race_seed


def _next_launch_seed() -> tuple[int, int]:
    global _race_launches
    with _state_lock:
        if _race_seed is None:
            return 0, 0
        k = _race_launches
        _race_launches += 1
        h = hashlib.sha256(f"{_race_seed}:{k}".encode()).digest()
        return 1, int.from_bytes(h[:8], "little") & 0x7FFFFFFFFFFFFFFF


if os.environ.get("PRIMITIVES_EMU_RACE", "").strip():
    set_race_mode(_env_int("PRIMITIVES_EMU_RACE", 0))

#: yields of __nanosleep with no other progress in a block before a launch is declared stuck
SPIN_LIMIT = _env_int("PRIMITIVES_EMU_SPIN_LIMIT", 1_000_000)
#: stack of each emulated thread (KiB); fixed once the first launch of the process has run
STACK_KB = _env_int("PRIMITIVES_EMU_STACK_KB", 256)

_modules: dict[str, EmuModule] = {}
_compile_lock = threading.Lock()


def compile_module(
    code: str,
    name_expressions: Iterable[object],
    *,
    include_dirs: Iterable[str | os.PathLike[str]] = (),
    options: Iterable[object] = (),
    cache_key: object = "",
    filename: str = "kernel.cu",
) -> EmuModule:
    """Compile ``code`` with the host compiler for the kernels named by ``name_expressions``.

    ``name_expressions`` are C++ expressions naming ``__global__`` functions (template arguments
    spelled out, as for ``cupy.RawModule``). ``include_dirs`` are searched by the source's
    ``#include``s; ``options`` are NVRTC-style options (``-D``/``-U``/``-I``/``-std`` are honoured,
    GPU-only ones dropped); ``cache_key`` must change whenever an included file changes (the
    caller's hash of the include tree); ``filename`` names the source in diagnostics and in
    barrier sites. The shared object is cached on disk by a hash of all of these, emu.h and the
    compiler version; modules are memoized in-process.
    """
    if isinstance(name_expressions, str):
        raise TypeError("name_expressions must be a list of strings, not a string")
    names = [str(n) for n in name_expressions]
    if not names:
        raise ValueError("compile_module: name_expressions is empty")
    if len(set(names)) != len(names):
        raise ValueError(f"compile_module: duplicate name expressions in {names}")
    digest, build = _build.prepare(code, names, include_dirs, options, cache_key, filename)
    with _compile_lock:
        mod = _modules.get(digest)
        if mod is not None:
            return mod
        mod = EmuModule(build(), names)
        _modules[digest] = mod
        return mod


# ---------------------------------------------------------------------------------------------
# modules and launches
# ---------------------------------------------------------------------------------------------
class _CParam(ctypes.Structure):
    _fields_ = [
        ("size", ctypes.c_longlong),
        ("align", ctypes.c_longlong),
        ("kind", ctypes.c_longlong),
        ("pointee_size", ctypes.c_longlong),
        ("pointee_kind", ctypes.c_longlong),
        ("pretty", ctypes.c_char_p),
    ]


def _type_from_pretty(pretty: str) -> str:
    # "... prim_emu::pretty_name() [with T = const float*]"
    i = pretty.find("T = ")
    if i < 0:
        return pretty
    s = pretty[i + 4 :]
    return s[:-1] if s.endswith("]") else s.split(";")[0]


_pool: int | None = None  # shared by all modules: fiber stacks, dynamic shared window, signal stack
_launch_lock = threading.RLock()


def _get_pool(lib: ctypes.CDLL) -> int:
    global _pool
    if _pool is None:
        fn = lib.prim_emu_pool_create
        fn.restype = ctypes.c_void_p
        fn.argtypes = [ctypes.c_longlong, ctypes.c_longlong]
        p = fn(MAX_THREADS_PER_BLOCK, max(16, STACK_KB) * 1024)
        if not p:
            raise EmulatorError("emulator: cannot map the fiber stacks (mmap failed)")
        _pool = p
    return _pool


class EmuModule:
    """A compiled module; :meth:`get_function` returns its kernels."""

    def __init__(self, path: str | os.PathLike[str], name_expressions: Iterable[str]) -> None:
        self.path = str(path)
        self.name_expressions = list(name_expressions)
        self._lib = ctypes.CDLL(self.path)
        abi = self._lib.prim_emu_abi
        abi.restype = ctypes.c_longlong
        if abi() != _ABI:
            raise EmulatorError(f"emulator: {self.path} was built for another emulator version")
        self._functions: dict[str, EmuFunction] = {}

    def get_function(self, name_expression: str) -> EmuFunction:
        fn = self._functions.get(name_expression)
        if fn is None:
            try:
                i = self.name_expressions.index(name_expression)
            except ValueError:
                raise KeyError(
                    f"{name_expression!r} is not one of this module's name expressions "
                    f"{self.name_expressions}"
                ) from None
            fn = self._functions[name_expression] = EmuFunction(self, i, name_expression)
        return fn

    def __repr__(self) -> str:
        return f"<EmuModule {self.name_expressions} at {self.path}>"


def _dims(v: object, what: str) -> tuple[int, ...]:
    t: tuple[int, ...]
    if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)):
        t = (int(v),)
    elif (
        isinstance(v, tuple)
        and 1 <= len(v) <= 3
        and all(isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_)) for x in v)
    ):
        t = tuple(int(x) for x in v)
    else:
        raise EmulatorError(f"{what} must be an int or a tuple of 1 to 3 ints, got {v!r}")
    return t + (1,) * (3 - len(t))


def _describe_value(a: object) -> str:
    if isinstance(a, np.ndarray):
        return f"numpy.ndarray of dtype {a.dtype}"
    if isinstance(a, np.generic):
        return f"numpy.{type(a).__name__} ({a.dtype.itemsize} bytes)"
    return f"Python {type(a).__name__}"


_DTYPE_KIND = {"f": 4, "i": 2, "u": 3, "b": 5, "V": 0}  # V: a structured dtype, a C++ struct
_KIND_WORD = {
    2: "signed integer",
    3: "unsigned integer",
    4: "floating-point",
    5: "bool",
    0: "struct",
    1: "pointer",
}
_SUGGEST = {
    (2, 1): "int8",
    (2, 2): "int16",
    (2, 4): "int32",
    (2, 8): "int64",
    (3, 1): "uint8",
    (3, 2): "uint16",
    (3, 4): "uint32",
    (3, 8): "uint64",
    (4, 4): "float32",
    (4, 8): "float64",
    (5, 1): "bool_",
}


class EmuFunction:
    """One kernel of a module; call it like ``cupy.RawKernel``: ``f(grid, block, args, shared_mem=0)``."""

    max_threads_per_block = MAX_THREADS_PER_BLOCK

    def __init__(self, module: EmuModule, index: int, name_expression: str) -> None:
        self.module = module
        self.name_expression = name_expression
        lib = module._lib
        self._launch = getattr(lib, f"prim_emu_launch_{index}")
        self._launch.restype = ctypes.c_int
        self._launch.argtypes = [
            ctypes.c_void_p,
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.c_longlong,
        ]
        pfn = getattr(lib, f"prim_emu_params_{index}")
        pfn.restype = ctypes.c_longlong
        pfn.argtypes = [ctypes.c_void_p, ctypes.c_longlong]
        n = pfn(None, 0)
        buf = (_CParam * max(1, n))()
        pfn(buf, n)
        self._raw = [(p.size, p.align, p.kind, p.pointee_size, p.pointee_kind) for p in buf[:n]]
        self.params = tuple(
            ParamInfo(
                i,
                _KINDS.get(p.kind, "struct"),
                p.size,
                p.align,
                _type_from_pretty(p.pretty.decode(errors="replace")),
                _KINDS.get(p.pointee_kind, "") if p.pointee_size else "",
                p.pointee_size,
            )
            for i, p in enumerate(buf[:n])
        )
        self.num_params = n
        self._max_dyn = DEFAULT_MAX_DYNAMIC_SHARED

    @property
    def max_dynamic_shared_size_bytes(self) -> int:
        return self._max_dyn

    @max_dynamic_shared_size_bytes.setter
    def max_dynamic_shared_size_bytes(self, nbytes: int | np.integer[Any]) -> None:
        if isinstance(nbytes, bool) or not isinstance(nbytes, (int, np.integer)):
            raise TypeError("max_dynamic_shared_size_bytes must be an int")
        nbytes = int(nbytes)
        if not 0 <= nbytes <= MAX_DYNAMIC_SHARED:
            raise EmulatorError(
                f"{self.name_expression}: max_dynamic_shared_size_bytes={nbytes} is outside "
                f"[0, {MAX_DYNAMIC_SHARED}] (227 KiB, the sm_90 limit)"
            )
        self._max_dyn = nbytes

    def _bad_arg(self, i: int, msg: str) -> TypeError:
        p = self.params[i]
        return TypeError(
            f"{self.name_expression}: argument {i} (parameter type '{p.ctype}'): {msg}"
        )

    def _marshal(self, args: Sequence[Any]) -> tuple[ctypes.Array[ctypes.c_void_p], list[object]]:
        if not isinstance(args, (tuple, list)):
            raise TypeError(
                f"{self.name_expression}: args must be a tuple, not {type(args).__name__}"
            )
        if len(args) != self.num_params:
            sig = ", ".join(p.ctype for p in self.params)
            raise TypeError(
                f"{self.name_expression}: takes {self.num_params} argument(s) ({sig}), got {len(args)}"
            )
        n = len(args)
        ptrs = (ctypes.c_void_p * max(1, n))()
        keep: list[object] = []  # the cells ``ptrs`` points into, alive until the launch
        cell: ctypes.c_void_p | ctypes.Array[ctypes.c_char]
        for i, a in enumerate(args):
            size, _align, kind, psize, pkind = self._raw[i]
            if kind == 1:  # pointer
                if not isinstance(a, np.ndarray):
                    raise self._bad_arg(
                        i, f"expected a numpy.ndarray (device memory), got {_describe_value(a)}"
                    )
                if psize > 1:  # 1-byte pointees (char, bool) are used as raw bytes: not checked
                    dk = _DTYPE_KIND.get(a.dtype.kind)
                    same_class = dk == pkind or (dk in (2, 3) and pkind in (2, 3))
                    if not same_class or a.dtype.itemsize != psize:
                        raise self._bad_arg(
                            i,
                            f"the kernel reads {psize}-byte {_KIND_WORD[pkind]} elements but the "
                            f"array has dtype {a.dtype}",
                        )
                if not a.flags.c_contiguous:  # the kernel gets the first element's address alone
                    p = self.params[i]
                    raise ValueError(
                        f"{self.name_expression}: argument {i} (parameter type '{p.ctype}'): the "
                        f"array is not C-contiguous (shape {a.shape}, strides {a.strides}); a kernel "
                        f"reads an array's elements one after another from its first address"
                    )
                cell = ctypes.c_void_p(a.__array_interface__["data"][0])
                keep.append(cell)
                ptrs[i] = ctypes.addressof(cell)
                continue
            if isinstance(a, np.ndarray):
                raise self._bad_arg(
                    i,
                    f"expected a {size}-byte {_KIND_WORD.get(kind, 'value')} scalar, "
                    f"got a numpy.ndarray (pass a numpy scalar such as "
                    f"numpy.{_SUGGEST.get((kind, size), 'int32')}(...))",
                )
            if not isinstance(a, np.generic):
                raise self._bad_arg(
                    i,
                    f"got {_describe_value(a)} {a!r}: pass a NumPy scalar of the exact width, e.g. "
                    f"numpy.{_SUGGEST.get((kind, size), 'int32')}(...)",
                )
            dk = _DTYPE_KIND.get(a.dtype.kind)
            if kind == 0:
                ok = a.dtype.itemsize == size and a.dtype.kind == "V"
                want = f"a numpy.void (structured scalar) of {size} bytes"
            elif kind in (2, 3):
                ok = dk in (2, 3) and a.dtype.itemsize == size
                want = f"a {size}-byte integer (numpy.{_SUGGEST.get((kind, size), 'int32')})"
            else:
                ok = dk == kind and a.dtype.itemsize == size
                want = f"numpy.{_SUGGEST.get((kind, size), '?')}"
            if not ok:
                raise self._bad_arg(i, f"expected {want}, got {_describe_value(a)}")
            cell = ctypes.create_string_buffer(a.tobytes(), max(16, size))
            keep.append(cell)
            ptrs[i] = ctypes.addressof(cell)
        return ptrs, keep

    def __call__(
        self,
        grid: int | tuple[int, ...],
        block: int | tuple[int, ...],
        args: Sequence[Any],
        shared_mem: int = 0,
    ) -> None:
        g = _dims(grid, "grid")
        b = _dims(block, "block")
        name = self.name_expression
        if isinstance(shared_mem, bool) or not isinstance(shared_mem, (int, np.integer)):
            raise EmulatorError(f"{name}: shared_mem must be an int, got {shared_mem!r}")
        shared_mem = int(shared_mem)
        if min(g) < 1 or min(b) < 1:
            raise EmulatorError(
                f"{name}: every grid and block dimension must be >= 1, got grid={g}, block={b}"
            )
        threads = b[0] * b[1] * b[2]
        if threads > self.max_threads_per_block:
            raise EmulatorError(
                f"{name}: block {b} has {threads} threads, more than the limit of "
                f"{self.max_threads_per_block} threads per block"
            )
        if b[0] > 1024 or b[1] > 1024 or b[2] > 64:
            raise EmulatorError(
                f"{name}: block {b} exceeds the per-dimension limits (1024, 1024, 64)"
            )
        if g[0] > 2**31 - 1 or g[1] > 65535 or g[2] > 65535:
            raise EmulatorError(f"{name}: grid {g} exceeds the limits (2^31-1, 65535, 65535)")
        if shared_mem < 0:
            raise EmulatorError(f"{name}: shared_mem={shared_mem} is negative")
        if shared_mem > self._max_dyn:
            raise EmulatorError(
                f"{name}: shared_mem={shared_mem} bytes exceeds this kernel's "
                f"max_dynamic_shared_size_bytes={self._max_dyn} (raise the attribute, up to "
                f"{MAX_DYNAMIC_SHARED}, as with CuPy's RawKernel)"
            )
        ptrs, keep = self._marshal(args)
        with _launch_lock:
            pool = _get_pool(self.module._lib)
            race, seed = _next_launch_seed()
            cfg = (ctypes.c_longlong * _CFG_LEN)(
                g[0], g[1], g[2], b[0], b[1], b[2], shared_mem, race, seed, SPIN_LIMIT, pool
            )
            err = ctypes.create_string_buffer(4096)
            rc = self._launch(cfg, ptrs, err, len(err))
        del keep
        if rc:
            raise EmulatorError(
                f"{name} (grid={g}, block={b}): {err.value.decode(errors='replace')}"
            )

    def __repr__(self) -> str:
        return f"<EmuFunction {self.name_expression}({', '.join(p.ctype for p in self.params)})>"
