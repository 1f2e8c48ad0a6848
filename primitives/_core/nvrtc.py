"""A minimal NVRTC binding (ctypes) used to compile-check kernels without a GPU.

NVRTC needs no device: it turns CUDA C++ into PTX/cubin for a named architecture. The CI job uses
it to compile every kernel instantiation the library can launch, for several architectures, so a
template error or an unsupported construct fails the build even on a machine with no GPU; the
kernel binaries shipped with the package (:mod:`primitives._core.binaries`) are built with it.

The library is found, in order, from ``$PRIMITIVES_NVRTC`` (a path to ``libnvrtc.so``), the pip
wheels ``nvidia-cuda-nvrtc-cu12`` / ``nvidia-cuda-nvrtc`` (CUDA 13), ``$CUDA_PATH`` and
``/usr/local/cuda``.
"""

from __future__ import annotations

import ctypes
import glob
import os
import sys
from collections.abc import Iterable, Iterator, Sequence

from .compile_errors import CompileError

__all__ = [
    "NVRTCError",
    "NVRTCNotFound",
    "load",
    "library_path",
    "compile_check",
    "compile_binary",
    "version",
]


class NVRTCError(CompileError):
    """Compilation failed (one line: the instantiation, the compiler's first error and the file
    of the whole log, :mod:`primitives._core.compile_errors`; ``log`` holds the log), or an
    NVRTC call did (its status alone)."""


class NVRTCNotFound(RuntimeError):
    """No libnvrtc could be located."""


_lib: ctypes.CDLL | None = None
_lib_path: str | None = None


def _candidates() -> Iterator[str]:
    env = os.environ.get("PRIMITIVES_NVRTC")
    if env:
        yield env
    for entry in sys.path:
        for sub in ("nvidia/cuda_nvrtc/lib", "nvidia/cu13/lib", "nvidia/cuda_nvrtc/lib64"):
            yield from sorted(glob.glob(os.path.join(entry, sub, "libnvrtc.so*")))
    for root in (os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root:
            yield from sorted(glob.glob(os.path.join(root, "lib64", "libnvrtc.so*")))


def load() -> ctypes.CDLL:
    """Load libnvrtc once and return the ctypes handle."""
    global _lib, _lib_path
    if _lib is not None:
        return _lib
    tried = []
    for path in _candidates():
        if "builtins" in os.path.basename(path) or ".alt." in os.path.basename(path):
            continue
        tried.append(path)
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        lib.nvrtcGetErrorString.restype = ctypes.c_char_p
        _lib, _lib_path = lib, path
        return lib
    raise NVRTCNotFound(
        "libnvrtc not found (install the 'test' extra, which brings nvidia-cuda-nvrtc-cu12, or "
        f"set PRIMITIVES_NVRTC); tried: {tried or 'nothing'}"
    )


def library_path() -> str:
    """The file of the libnvrtc that :func:`load` loaded (loading it first)."""
    load()
    assert _lib_path is not None  # set with _lib
    return _lib_path


def version() -> tuple[int, int]:
    lib = load()
    major, minor = ctypes.c_int(), ctypes.c_int()
    lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor))
    return major.value, minor.value


def _check(lib: ctypes.CDLL, status: int, what: str) -> None:
    if status != 0:
        raise NVRTCError(f"{what}: {lib.nvrtcGetErrorString(status).decode()}")


def compile_check(
    code: str,
    name_expressions: Sequence[str],
    *,
    arch: str = "sm_90",
    options: Iterable[str] = (),
    filename: str = "kernel.cu",
) -> dict[str, str]:
    """Compile ``code`` for ``arch`` with every name expression instantiated.

    Returns ``{name_expression: lowered_name}``; raises :class:`NVRTCError` with the log on failure.
    """
    return _compile(code, name_expressions, arch, options, filename, binary=False)[1]


def compile_binary(
    code: str,
    name_expressions: Sequence[str],
    *,
    arch: str,
    options: Iterable[str] = (),
    filename: str = "kernel.cu",
) -> tuple[bytes, dict[str, str]]:
    """Compile ``code`` with every name expression instantiated into loadable code: a cubin for a
    real architecture (``arch="sm_90"``), PTX for a virtual one (``arch="compute_90"``).

    Returns ``(image, {name_expression: lowered_name})``: the cubin's bytes or the PTX text's,
    and the mangled names a module loaded from the image is asked for; raises
    :class:`NVRTCError` with the log on failure.
    """
    image, names = _compile(code, name_expressions, arch, options, filename, binary=True)
    assert image is not None  # a binary build returns its image
    return image, names


def _compile(
    code: str,
    name_expressions: Sequence[str],
    arch: str,
    options: Iterable[str],
    filename: str,
    binary: bool,
) -> tuple[bytes | None, dict[str, str]]:
    lib = load()
    prog = ctypes.c_void_p()
    _check(
        lib,
        lib.nvrtcCreateProgram(ctypes.byref(prog), code.encode(), filename.encode(), 0, None, None),
        "nvrtcCreateProgram",
    )
    try:
        for name in name_expressions:
            _check(lib, lib.nvrtcAddNameExpression(prog, name.encode()), f"name {name!r}")
        opts = [
            f"--gpu-architecture={arch}".encode(),
            b"-std=c++17",
            *(o.encode() for o in options),
        ]
        arr = (ctypes.c_char_p * len(opts))(*opts)
        status = lib.nvrtcCompileProgram(prog, len(opts), arr)
        size = ctypes.c_size_t()
        lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
        log = ctypes.create_string_buffer(size.value)
        lib.nvrtcGetProgramLog(prog, log)
        if status != 0:
            raise NVRTCError(
                f"NVRTC compiling {filename} for {arch}",
                log.value.decode(errors="replace") or "error: no log from NVRTC",
                name_expressions,
            )
        lowered = {}
        for name in name_expressions:
            out = ctypes.c_char_p()
            _check(
                lib,
                lib.nvrtcGetLoweredName(prog, name.encode(), ctypes.byref(out)),
                f"lowered name of {name!r}",
            )
            assert out.value is not None  # set by the call that succeeded
            lowered[name] = out.value.decode()
        image = None
        if binary:
            kind = "CUBIN" if arch.startswith("sm_") else "PTX"
            size = ctypes.c_size_t()
            _check(
                lib,
                getattr(lib, f"nvrtcGet{kind}Size")(prog, ctypes.byref(size)),
                f"nvrtcGet{kind}Size",
            )
            buf = ctypes.create_string_buffer(size.value)
            _check(lib, getattr(lib, f"nvrtcGet{kind}")(prog, buf), f"nvrtcGet{kind}")
            image = buf.raw
        return image, lowered
    finally:
        lib.nvrtcDestroyProgram(ctypes.byref(prog))
