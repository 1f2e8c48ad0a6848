"""NVRTC compiles in worker processes, for the kernels compiled on first use.

NVRTC compiles in several threads of one process at once, but they scale poorly: on an H200
host (16 cores, NVRTC 13.0) the 12 kernels of a first ``partition`` took 0.87 s one after the
other, 0.59 s in 8 threads and 0.31 s in 8 processes. :func:`compile_binary` (the signature of
:func:`primitives._core.nvrtc.compile_binary`) hands its compile to an idle worker: a Python
process that loads the package's NVRTC binding alone (not the package: no CuPy, no CUDA
context), started when first needed, at most :func:`size` of them, each serving one compile at
a time over a pipe and kept for the next. A call's compile threads (:mod:`.lazy`) each wait on
one worker. Where no worker can run (none allowed, or one fails to start or dies) the compile
runs in this process, as before, and so does every later one once a worker has failed.
``$PRIMITIVES_COMPILE_WORKERS``: how many workers (``0``: every compile in this process;
default: the cores, at most 8).

A request is one JSON line (the source, the names, the architecture, the options, the file
name); the answer one JSON line (the lowered names and the image's size, or NVRTC's error with
its log) followed by the image's bytes.
"""

from __future__ import annotations

import atexit
import json
import os
import pathlib
import subprocess
import sys
import threading
from collections.abc import Iterable, Sequence
from typing import IO

from . import nvrtc

__all__ = ["compile_binary", "size", "shutdown"]

# what a worker runs: the binding loaded as a module of a stand-in package whose path is this
# folder (nvrtc.py, compile_errors.py and cache.py use the standard library alone)
_BOOT = r"""
import json, sys, types
pkg = types.ModuleType("_prim_compile")
pkg.__path__ = [sys.argv[1]]
sys.modules["_prim_compile"] = pkg
from _prim_compile import nvrtc
nvrtc.load()
inp, out = sys.stdin.buffer, sys.stdout.buffer
for line in inp:
    req = json.loads(line)
    data = b""
    try:
        data, lowered = nvrtc.compile_binary(
            req["code"], req["names"], arch=req["arch"], options=req["options"],
            filename=req["filename"])
        head = {"lowered": lowered, "size": len(data)}
    except nvrtc.NVRTCError as exc:
        path = None if exc.log_path is None else str(exc.log_path)
        head = {"error": [exc.what, exc.log, exc.names, exc.instantiation, path]}
    except Exception as exc:
        head = {"failed": f"{type(exc).__name__}: {exc}"}
    out.write(json.dumps(head).encode() + b"\n")
    out.write(data)
    out.flush()
"""


def size() -> int:
    """How many workers may run: ``$PRIMITIVES_COMPILE_WORKERS``, else the cores, at most 8."""
    setting = os.environ.get("PRIMITIVES_COMPILE_WORKERS", "").strip()
    if not setting:
        return max(1, min(8, os.cpu_count() or 1))
    try:
        n = int(setting)
    except ValueError:
        n = -1
    if n < 0:
        raise ValueError(
            f"PRIMITIVES_COMPILE_WORKERS must be a count of processes (0: none); got {setting!r}"
        )
    return n


class _Worker:
    def __init__(self) -> None:
        lib = nvrtc.load()  # the library this process found, for the worker too
        env = {**os.environ, "PRIMITIVES_NVRTC": str(lib._name)}
        folder = str(pathlib.Path(__file__).resolve().parent)
        self.proc = subprocess.Popen(
            [sys.executable, "-I", "-c", _BOOT, folder],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )

    def compile(self, request: dict) -> tuple[dict, bytes]:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        stdin.write(json.dumps(request).encode() + b"\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise OSError("the compile worker ended")
        head = json.loads(line)
        return head, _read(stdout, head.get("size", 0))

    def close(self) -> None:
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()  # the worker ends at the end of its input
            self.proc.wait(timeout=5)
        except Exception:  # noqa: BLE001 - a worker that will not end is killed
            self.proc.kill()


def _read(stream: IO[bytes], n: int) -> bytes:
    parts, left = [], n
    while left:
        part = stream.read(left)
        if not part:
            raise OSError("the compile worker ended")
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


_lock = threading.Condition()
_idle: list[_Worker] = []
_started: list[_Worker] = []
_slots = [0]  # workers started or starting
# set when a worker ended without its answer: this process compiles everything itself from then
_broken: list[bool] = []


def _acquire() -> _Worker | None:
    """An idle worker, a new one where fewer than :func:`size` run (started outside the lock:
    several threads start theirs at once), else the first to be released; None where none may
    run or one cannot start."""
    limit = 0 if _broken else size()
    with _lock:
        while True:
            if _idle:
                return _idle.pop()
            if _slots[0] < limit:
                _slots[0] += 1  # this thread's to start
                break
            if limit == 0 or _slots[0] == 0:
                return None
            _lock.wait()
    try:
        worker = _Worker()
    except Exception:  # noqa: BLE001 - no interpreter to start (embedded): compile here
        _broken.append(True)
        with _lock:
            _slots[0] -= 1
            _lock.notify()
        return None
    with _lock:
        _started.append(worker)
    return worker


def _release(worker: _Worker, alive: bool) -> None:
    with _lock:
        if alive and worker in _started:
            _idle.append(worker)
        elif worker in _started:  # not ended by shutdown() meanwhile
            _started.remove(worker)
            _slots[0] -= 1
        _lock.notify()


def compile_binary(
    code: str,
    name_expressions: Sequence[str],
    *,
    arch: str,
    options: Iterable[str] = (),
    filename: str = "kernel.cu",
) -> tuple[bytes, dict[str, str]]:
    """:func:`primitives._core.nvrtc.compile_binary`, in a worker process where one can run
    (else here): the image's bytes and the lowered names, or :class:`~.nvrtc.NVRTCError` with
    the log."""
    request = {
        "code": code,
        "names": list(name_expressions),
        "arch": arch,
        "options": list(options),
        "filename": filename,
    }
    worker = _acquire()
    if worker is None:
        return nvrtc.compile_binary(
            code, name_expressions, arch=arch, options=options, filename=filename
        )
    try:
        head, data = worker.compile(request)
    except (OSError, ValueError):  # the worker died: this compile, and every later one, here
        _broken.append(True)
        _release(worker, alive=False)
        worker.close()
        return nvrtc.compile_binary(
            code, name_expressions, arch=arch, options=options, filename=filename
        )
    _release(worker, alive=True)
    if "error" in head:
        what, log, names, instantiation, path = head["error"]
        raise nvrtc.NVRTCError(what, log, names, instantiation, path and pathlib.Path(path))
    if "failed" in head:
        raise nvrtc.NVRTCError(f"NVRTC in a compile worker: {head['failed']}")
    return data, head["lowered"]


def shutdown() -> None:
    """End every worker (at exit, and where a test wants none left)."""
    with _lock:
        workers = list(_started)
        _started.clear()
        _idle.clear()
        _slots[0] = 0
        _lock.notify_all()
    for worker in workers:
        worker.close()


def _forget() -> None:
    """In a forked child: the parent's workers are not this process's to use."""
    global _lock
    _lock = threading.Condition()
    _idle.clear()
    _started.clear()
    _slots[0] = 0


atexit.register(shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)
