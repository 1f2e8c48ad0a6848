"""NVRTC compiles in processes of their own: a compile server started with the package.

NVRTC scales poorly over the threads of one process: on an H200 host the twelve compiles of a
first ``partition`` took 0.59-0.67 s in 8 threads of one process and 0.29-0.31 s in 8 processes
(docs/perf-log/2026-12/general.md). A pool of processes started on first need lost that gain to
their start (about 0.1 s on every first call's path). So where kernels compile on first use
(:mod:`.lazy`: no shipped binaries), ``import primitives`` starts one server beside the caller
(:func:`start`, from :func:`.lazy.warm_up`'s thread): a Python interpreter with the standard
library and this package's NVRTC binding alone (not the package, whose import brings CuPy),
NVRTC loaded and warmed by one compile of an empty kernel, ready before a first call needs it.

Protocol. The caller writes each request (a pickle of the arguments of
:func:`.nvrtc.compile_binary`, after its length and number) to the server's input. The server,
one thread, hands each to an idle worker: a process it forked once NVRTC was loaded (four at its
start, each warmed by a compile of its own; more, up to one a core and at most eight, while
requests find every one busy), so that compiles run side by side in processes of their own. A
worker compiles, writes its result (the image and lowered names, or the compile error's log) to
a file of the server's folder and the request's number, one line, back to the server, which
passes the line on to its output. A reader thread of the caller's process wakes the thread
that asked (:func:`compile_binary`, the signature of :func:`.nvrtc.compile_binary`). The
caller's process never forks.

Where the server is not running (not started, exited, or the caller is a fork of the process
that started it) or a worker fails other than by a compile error, the compile runs in the
caller's process, as before. ``$PRIMITIVES_COMPILE_SERVER``: ``auto`` (the default: started
where a GPU driver is installed, the backend is not forced to the emulator and the package ships
no binaries), ``on`` (wherever NVRTC loads: the tests), ``off``.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import os
import pathlib
import pickle
import shutil
import struct
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["Unavailable", "Server", "wanted", "start", "server", "workers", "compile_binary"]

_HEADER = struct.Struct(">II")  # a request's length and number


class Unavailable(RuntimeError):
    """The server cannot compile this request (not running, gone, or a worker that failed other
    than by a compile error): the caller compiles in its own process."""


class Server:
    """A compile server process (the module's docstring) and the reader of its answers; at
    most ``workers`` compiles at once."""

    def __init__(self, library: str, workers: int) -> None:
        self.pid = os.getpid()  # a fork of this process must not write to the server's input
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="primitives-compile-"))
        package_parent = pathlib.Path(__file__).resolve().parents[2]
        args = [__file__, str(self.folder), str(package_parent), str(workers)]
        self.proc = subprocess.Popen(  # noqa: S603 - this interpreter, this file
            [sys.executable, "-I", "-S", *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={**os.environ, "PRIMITIVES_NVRTC": library},
            close_fds=True,
        )
        self._lock = threading.Lock()  # the requests waiting, the next number, alive
        self._write_lock = threading.Lock()  # the server's input
        self._waiting: dict[int, concurrent.futures.Future[pathlib.Path]] = {}
        self._next = 0
        self.alive = True
        self._reader = threading.Thread(
            target=self._read, name="primitives-compile-server", daemon=True
        )
        self._reader.start()

    def compile_binary(
        self,
        code: str,
        name_expressions: Sequence[str],
        *,
        arch: str,
        options: Iterable[str] = (),
        filename: str = "kernel.cu",
    ) -> tuple[bytes, dict[str, str]]:
        """:func:`.nvrtc.compile_binary` in a worker of the server. Raises its
        :class:`~.nvrtc.NVRTCError` for a compile error, :class:`Unavailable` where the server
        cannot compile it."""
        from . import nvrtc

        if os.getpid() != self.pid:
            raise Unavailable("a fork of the process that started the compile server")
        future: concurrent.futures.Future[pathlib.Path] = concurrent.futures.Future()
        frame = pickle.dumps((code, list(name_expressions), arch, list(options), filename))
        with self._lock:
            if not self.alive:
                raise Unavailable("the compile server is not running")
            rid = self._next
            self._next += 1
            self._waiting[rid] = future
        # whole frames, one writer at a time, and never under the lock the reader takes
        # (a full pipe waits for the server, which may be waiting for the reader)
        with self._write_lock:
            try:
                assert self.proc.stdin is not None  # a pipe
                self.proc.stdin.write(_HEADER.pack(len(frame), rid) + frame)
                self.proc.stdin.flush()
            except (OSError, ValueError):
                with self._lock:
                    self._waiting.pop(rid, None)
                    self.alive = False
                raise Unavailable("the compile server's input is closed") from None
        path = future.result()  # Unavailable where the server went
        try:
            result = pickle.loads(path.read_bytes())
        finally:
            path.unlink(missing_ok=True)
        if result[0] == "ok":
            return result[1], result[2]
        if result[0] == "error":
            raise nvrtc.NVRTCError(*result[1:])
        raise Unavailable(f"a compile server worker failed: {result[1]}")

    def _read(self) -> None:
        assert self.proc.stdout is not None  # a pipe
        for line in self.proc.stdout:
            try:
                rid = int(line)
            except ValueError:
                continue
            with self._lock:
                future = self._waiting.pop(rid, None)
            if future is not None:
                future.set_result(self.folder / f"{rid}.res")
        with self._lock:  # the server exited: every request still waiting compiles at home
            self.alive = False
            waiting, self._waiting = self._waiting, {}
        for future in waiting.values():
            future.set_exception(Unavailable("the compile server exited"))

    def close(self) -> None:
        """End the server (its input closed: it exits, its workers after the compile each has
        under way) and remove its folder."""
        with self._lock:
            self.alive = False
        with self._write_lock:
            if self.proc.stdin is not None and os.getpid() == self.pid:
                try:
                    self.proc.stdin.close()
                except OSError:
                    pass
        if os.getpid() == self.pid:
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
            shutil.rmtree(self.folder, ignore_errors=True)


#: files whose presence says a GPU driver is installed (Linux's NVIDIA driver, WSL's)
_DRIVER_NODES = ("/dev/nvidiactl", "/dev/dxg")
_server: list[Server] = []
_start_lock = threading.Lock()


def wanted() -> bool:
    """Whether :func:`start` starts a server: ``$PRIMITIVES_COMPILE_SERVER`` (``on``, ``off``
    or ``auto``: a POSIX system with ``fork``, a GPU driver's device node, no
    ``PRIMITIVES_BACKEND=emulator``; the caller checks that nothing is shipped)."""
    setting = os.environ.get("PRIMITIVES_COMPILE_SERVER", "auto").strip().lower()
    if setting not in ("auto", "on", "off"):
        raise ValueError(f"PRIMITIVES_COMPILE_SERVER must be auto, on or off; got {setting!r}")
    if setting == "off" or not hasattr(os, "fork"):
        return False
    if setting == "on":
        return True
    backend = os.environ.get("PRIMITIVES_BACKEND", "auto").strip().lower()
    return backend != "emulator" and any(map(os.path.exists, _DRIVER_NODES))


def start(library: str) -> Server | None:
    """The process's compile server, started now where none runs (``library``: the libnvrtc
    file it loads, the caller's own); None where it cannot start."""
    with _start_lock:
        if _server and _server[0].alive and _server[0].pid == os.getpid():
            return _server[0]
        try:
            srv = Server(library, workers())
        except OSError:
            return None
        _server[:] = [srv]
        atexit.register(srv.close)
        return srv


def workers() -> int:
    """The most compiles run at once, by a server or by the caller's threads where none runs:
    one a core, 2 to 8 (NVRTC scales poorly past 8 threads of one process; each compile takes a
    few hundred MB, and test runs start a server in each of their processes)."""
    return max(2, min(8, os.cpu_count() or 1))


def server() -> Server | None:
    """The running server of this process, or None."""
    srv = _server[0] if _server else None
    return srv if srv is not None and srv.alive and srv.pid == os.getpid() else None


def compile_binary(*args: Any, **kwargs: Any) -> tuple[bytes, dict[str, str]]:
    """:func:`.nvrtc.compile_binary` (its arguments) in the compile server where it runs, else
    here."""
    from . import nvrtc

    srv = server()
    if srv is not None:
        try:
            return srv.compile_binary(*args, **kwargs)
        except Unavailable:
            pass
    return nvrtc.compile_binary(*args, **kwargs)


# ---- the server process -----------------------------------------------------------------------


def _read_exact(fd: int, n: int) -> bytes | None:
    parts, left = [], n
    while left:
        chunk = os.read(fd, left)
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_frame(fd: int) -> tuple[int, bytes, bytes] | None:
    """``(number, header, pickle)`` of the next request on ``fd``, None at its end."""
    header = _read_exact(fd, _HEADER.size)
    if header is None:
        return None
    size, rid = _HEADER.unpack(header)
    frame = _read_exact(fd, size)
    return None if frame is None else (rid, header, frame)


def _result_file(folder: pathlib.Path, rid: int, result: tuple[Any, ...]) -> None:
    tmp = folder / f"{rid}.tmp"
    tmp.write_bytes(pickle.dumps(result))
    os.replace(tmp, folder / f"{rid}.res")  # whole before its number is written


def _warm(nvrtc: Any) -> None:
    """One compile of an empty kernel: NVRTC's own start-up (and, in a worker, the copies of the
    pages it writes), before any request."""
    try:
        nvrtc.compile_binary('extern "C" __global__ void k() {}', [], arch="sm_80")
    except Exception:  # noqa: BLE001, S110 - a warm-up only
        pass


def _work(nvrtc: Any, folder: pathlib.Path, requests: int, done: int) -> None:
    """A worker's loop: each request read from ``requests`` compiled, its result filed and its
    number written to ``done``; returns when ``requests`` closes."""
    import select

    if not select.select([requests], [], [], 0)[0]:
        _warm(nvrtc)
    while True:
        request = _read_frame(requests)
        if request is None:
            return
        rid, _, frame = request
        code, names, arch, options, filename = pickle.loads(frame)  # noqa: S301 - ours
        try:
            image, lowered = nvrtc.compile_binary(
                code, names, arch=arch, options=options, filename=filename
            )
            result: tuple[Any, ...] = ("ok", image, lowered)
        except nvrtc.NVRTCError as exc:
            result = ("error", exc.what, exc.log, exc.names)
        except Exception as exc:  # noqa: BLE001 - the caller compiles it itself
            result = ("fail", f"{type(exc).__name__}: {exc}")
        _result_file(folder, rid, result)
        os.write(done, b"%d\n" % rid)


#: the workers a server forks and warms at its start; it forks the others (up to its count) as
#: requests find every worker busy: their first compile pays NVRTC's start-up (about 0.01 s)
WARM_WORKERS = 4


class _Worker:
    __slots__ = ("pid", "requests", "done", "rid")

    def __init__(self, pid: int, requests: int, done: int) -> None:
        self.pid, self.requests, self.done = pid, requests, done
        self.rid: int | None = None  # the request it compiles


def _serve(folder: pathlib.Path, package_parent: str, count: int) -> None:
    """The server (run as ``python -I -S compile_server.py FOLDER PACKAGE_PARENT COUNT``): up
    to ``count`` worker processes forked once NVRTC is loaded and warm (:data:`WARM_WORKERS` at
    once, each warmed by a compile of its own; more when a request finds every one busy), each
    compiling one request at a time; requests queue here while ``count`` are busy. A worker that
    dies answers its request as failed (the caller compiles it) and is replaced."""
    import collections
    import select
    import signal
    import types

    # the package's NVRTC binding without the package's own import (CuPy and the rest)
    sys.path.insert(0, package_parent)
    stub = types.ModuleType("primitives")
    stub.__path__ = [os.path.join(package_parent, "primitives")]
    sys.modules["primitives"] = stub
    from primitives._core import nvrtc  # noqa: PLC0415 - after the stub

    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # workers reaped by the system
    nvrtc.load()
    if not select.select([0], [], [], 0)[0]:  # nothing asked yet: warm the pages workers share
        _warm(nvrtc)
    workers: list[_Worker] = []

    def spawn() -> _Worker:
        req_r, req_w = os.pipe()
        done_r, done_w = os.pipe()
        pid = os.fork()
        if pid == 0:  # the worker keeps its two ends alone
            others = [f for w in workers for f in (w.requests, w.done)]  # the live ones'
            try:
                for fd in [0, 1, req_w, done_r, *others]:
                    os.close(fd)
                _work(nvrtc, folder, req_r, done_w)
            finally:
                os._exit(0)
        os.close(req_r)
        os.close(done_w)
        return _Worker(pid, req_w, done_r)

    for _ in range(min(count, WARM_WORKERS)):
        workers.append(spawn())
    queue: collections.deque[tuple[int, bytes, bytes]] = collections.deque()

    def dispatch() -> None:
        for w in workers:
            if w.rid is None and queue:
                w.rid, header, frame = queue.popleft()
                _write_all(w.requests, header + frame)
        while queue and len(workers) < count:  # every worker busy: one more, up to count
            w = spawn()
            workers.append(w)
            w.rid, header, frame = queue.popleft()
            _write_all(w.requests, header + frame)

    while True:
        ready = select.select([0] + [w.done for w in workers], [], [])[0]
        if 0 in ready:
            request = _read_frame(0)
            if request is None:  # the caller has gone (its requests answered): so do the workers
                return
            queue.append(request)
        for i, w in enumerate(workers):
            if w.done not in ready:
                continue
            line = os.read(w.done, 64)
            if line:
                os.write(1, line)
                w.rid = None
                continue
            if w.rid is not None:  # died: its request compiles at the caller's
                _result_file(folder, w.rid, ("fail", "a compile server worker exited"))
                os.write(1, b"%d\n" % w.rid)
            del workers[i]  # before its closed descriptors' numbers are taken again
            os.close(w.requests)
            os.close(w.done)
            workers.insert(i, spawn())
        dispatch()


if __name__ == "__main__":
    _serve(pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
