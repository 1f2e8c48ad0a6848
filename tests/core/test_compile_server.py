"""The compile server (primitives/_core/compile_server.py): NVRTC compiles in worker processes,
answered to the thread that asked, with the in-process compile wherever the server cannot
answer. NVRTC needs no GPU: these run on every machine (the CUDA backend starts the server at
import; here each test starts its own)."""

import concurrent.futures
import os
import signal
import subprocess
import sys
import time
import warnings

import pytest

from primitives._core import compile_server as cs, nvrtc as _nvrtc

TEMPLATE = "template <int N> __global__ void k(int* out) { out[0] = N; }\n"


@pytest.fixture
def server():
    srv = cs.Server(_nvrtc.library_path(), 2)
    yield srv
    srv.close()


def _workers(srv):
    """The pids of the server's worker processes."""
    out = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == srv.proc.pid:
                out.append(int(entry))
    return out


def test_the_same_compile_as_in_process(server):
    names = ["k<3>", "k<-7>"]
    image, lowered = server.compile_binary(TEMPLATE, names, arch="sm_90")
    here_image, here_lowered = _nvrtc.compile_binary(TEMPLATE, names, arch="sm_90")
    assert lowered == here_lowered and set(lowered) == set(names)
    # a cubin of the same size (NVRTC writes a few bytes that differ from process to process)
    assert image[:4] == b"\x7fELF" and len(image) == len(here_image)
    ptx, _ = server.compile_binary(TEMPLATE, names, arch="compute_90")
    assert b".entry" in ptx and ptx == _nvrtc.compile_binary(TEMPLATE, names, arch="compute_90")[0]


def test_a_compile_error_is_nvrtcs_own(server):
    bad = "__global__ void k() { undeclared_name(); }\n"
    with pytest.raises(_nvrtc.NVRTCError) as there:
        server.compile_binary(bad, [], arch="sm_90", filename="bad.cu")
    with pytest.raises(_nvrtc.NVRTCError) as here:
        _nvrtc.compile_binary(bad, [], arch="sm_90", filename="bad.cu")
    assert str(there.value) == str(here.value)
    assert there.value.log == here.value.log and "undeclared_name" in str(there.value)


def test_many_requests_at_once_each_answered_to_its_caller(server):
    """More requests than workers, from several threads: each gets its own instantiation."""

    def one(n):
        return server.compile_binary(TEMPLATE, [f"k<{n}>"], arch="compute_90")

    with concurrent.futures.ThreadPoolExecutor(6) as pool:
        results = list(pool.map(one, range(12)))
    for n, (ptx, lowered) in enumerate(results):
        assert list(lowered) == [f"k<{n}>"]
        assert lowered[f"k<{n}>"].encode() in ptx
    assert not os.listdir(server.folder)  # every result file read and removed


def test_more_workers_as_requests_find_every_one_busy():
    """A server starts WARM_WORKERS workers and forks more, up to its count, while requests
    find every worker busy."""
    count = cs.WARM_WORKERS + 2
    srv = cs.Server(_nvrtc.library_path(), count)
    try:
        srv.compile_binary(TEMPLATE, ["k<0>"], arch="compute_90")
        assert len(_workers(srv)) == cs.WARM_WORKERS
        slow = TEMPLATE + "".join(f"template __global__ void k<{n}>(int*);\n" for n in range(150))
        with concurrent.futures.ThreadPoolExecutor(count + 3) as pool:
            futures = [
                pool.submit(srv.compile_binary, slow, [f"k<{n}>"], arch="sm_90")
                for n in range(count + 3)
            ]
            results = [f.result(timeout=300) for f in futures]
        assert [list(lowered) for _, lowered in results] == [[f"k<{n}>"] for n in range(count + 3)]
        assert len(_workers(srv)) == count
    finally:
        srv.close()


def test_a_worker_that_dies_is_replaced(server):
    server.compile_binary(TEMPLATE, ["k<1>"], arch="compute_90")
    before = _workers(server)
    assert len(before) == 2
    for pid in before:
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and set(_workers(server)) & set(before):
        time.sleep(0.01)
    _, lowered = server.compile_binary(TEMPLATE, ["k<2>"], arch="compute_90")
    assert list(lowered) == ["k<2>"] and server.alive
    after = _workers(server)
    assert len(after) == 2 and not set(after) & set(before)


def _cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_a_request_whose_worker_dies_compiles_in_the_caller(server, monkeypatch):
    """The worker killed mid-compile: the server answers it as failed, the module's
    compile_binary compiles it here."""
    monkeypatch.setattr(cs, "_server", [server])
    here = []
    compile_here = _nvrtc.compile_binary
    monkeypatch.setattr(
        _nvrtc, "compile_binary", lambda *a, **k: here.append(1) or compile_here(*a, **k)
    )
    # long enough that the poll below sees a worker at it while 16 test processes share the
    # cores (600 instantiations once finished unseen on a 16-core host)
    slow = TEMPLATE + "".join(f"template __global__ void k<{n}>(int*);\n" for n in range(1200))
    server.compile_binary(TEMPLATE, ["k<1>"], arch="compute_90")  # the workers are up
    workers = _workers(server)
    assert len(workers) == 2
    idle = {pid: _cpu_seconds(pid) for pid in workers}
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        future = pool.submit(cs.compile_binary, slow, ["k<5>"], arch="sm_90")
        deadline = time.monotonic() + 30
        while not any(_cpu_seconds(p) > idle[p] + 0.02 for p in workers):  # a worker compiles
            assert time.monotonic() < deadline and not future.done()
            time.sleep(0.01)
        for pid in workers:
            os.kill(pid, signal.SIGKILL)
        image, lowered = future.result(timeout=120)
    assert list(lowered) == ["k<5>"] and image[:4] == b"\x7fELF"
    assert here == [1] and server.alive


def test_a_server_that_exits_leaves_the_compiles_here(server, monkeypatch):
    monkeypatch.setattr(cs, "_server", [server])
    assert cs.server() is server
    server.proc.kill()
    server.proc.wait()
    deadline = time.monotonic() + 10
    while server.alive and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not server.alive and cs.server() is None
    with pytest.raises(cs.Unavailable):
        server.compile_binary(TEMPLATE, ["k<1>"], arch="compute_90")
    _, lowered = cs.compile_binary(TEMPLATE, ["k<1>"], arch="compute_90")
    assert list(lowered) == ["k<1>"]


def test_a_fork_does_not_use_its_parents_server(server):
    read, write = os.pipe()
    with warnings.catch_warnings():  # Python 3.12's warning of a fork beside threads
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # the child: the server's input is its parent's
        code = 1
        try:
            server.compile_binary(TEMPLATE, ["k<1>"], arch="compute_90")
        except cs.Unavailable:
            code = 0
        finally:
            os.write(write, bytes([code]))
            os._exit(0)
    os.close(write)
    assert os.read(read, 1) == b"\0"
    os.close(read)
    os.waitpid(pid, 0)
    _, lowered = server.compile_binary(TEMPLATE, ["k<4>"], arch="compute_90")  # still the parent's
    assert lowered == _nvrtc.compile_binary(TEMPLATE, ["k<4>"], arch="compute_90")[1]


def test_close_ends_the_server_and_removes_its_folder():
    srv = cs.Server(_nvrtc.library_path(), 2)
    srv.compile_binary(TEMPLATE, ["k<1>"], arch="compute_90")
    workers = _workers(srv)
    srv.close()
    assert srv.proc.returncode is not None and not srv.folder.exists() and not srv.alive

    def running(pid):  # a zombie has ended
        try:
            with open(f"/proc/{pid}/stat") as f:
                return f.read().rsplit(")", 1)[1].split()[0] != "Z"
        except OSError:
            return False

    deadline = time.monotonic() + 10  # the workers end with the server (their input closed)
    while any(running(pid) for pid in workers):
        assert time.monotonic() < deadline, workers
        time.sleep(0.01)


@pytest.mark.parametrize("setting", ["on", "off", "auto", " ON "])
def test_the_setting(monkeypatch, setting):
    monkeypatch.setenv("PRIMITIVES_COMPILE_SERVER", setting)
    monkeypatch.setenv("PRIMITIVES_BACKEND", "emulator")
    want = {"on": True, "off": False, "auto": False}[setting.strip().lower()]
    assert cs.wanted() is want


@pytest.mark.parametrize("backend,driver", [("auto", True), ("cuda", True), ("auto", False)])
def test_auto_where_a_driver_is(monkeypatch, tmp_path, backend, driver):
    monkeypatch.setenv("PRIMITIVES_COMPILE_SERVER", "auto")
    monkeypatch.setenv("PRIMITIVES_BACKEND", backend)
    node = tmp_path / "nvidiactl"
    if driver:
        node.touch()
    monkeypatch.setattr(cs, "_DRIVER_NODES", (str(node),))
    assert cs.wanted() is driver


def test_the_import_starts_it_and_the_exit_ends_it(tmp_path):
    """``import primitives`` starts the server (warm_up's thread) where wanted and nothing is
    shipped; the process's exit ends it and removes its folder."""
    script = (
        "import primitives, time\n"
        "from primitives._core import compile_server as cs\n"
        "deadline = time.monotonic() + 60\n"
        "while cs.server() is None and time.monotonic() < deadline: time.sleep(0.01)\n"
        "srv = cs.server()\n"
        "print(srv.proc.pid, srv.folder)\n"
        "print(srv.compile_binary('__global__ void k() {}', ['k'], arch='compute_90')[1])\n"
    )
    env = {
        **os.environ,
        "PRIMITIVES_COMPILE_SERVER": "on",
        "PRIMITIVES_CACHE_DIR": str(tmp_path),
        "PRIMITIVES_KERNEL_BINARIES": "off",
    }
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    pid, folder = done.stdout.split("\n")[0].split()
    assert "'k'" in done.stdout.split("\n")[1]
    assert not os.path.exists(folder)
    assert not os.path.exists(f"/proc/{pid}")


def test_a_bad_setting(monkeypatch):
    monkeypatch.setenv("PRIMITIVES_COMPILE_SERVER", "sometimes")
    with pytest.raises(ValueError, match="PRIMITIVES_COMPILE_SERVER must be auto, on or off"):
        cs.wanted()


def test_first_use_compiles_go_through_the_server(server, monkeypatch, tmp_path):
    """lazy.compile_alone, the compile of every kernel compiled on first use, asks the server
    where one runs (and files its image as before)."""
    from primitives._core import lazy, loader

    monkeypatch.setenv("PRIMITIVES_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(cs, "_server", [server])
    name = loader.registered_modules()["reduction/reduce.cu"][0]
    asked = server._next
    path, lowered = lazy.compile_alone("reduction/reduce.cu", name, "sm_90", fast=True)
    assert server._next == asked + 1 and path.is_file() and path.read_bytes()[:4] == b"\x7fELF"
    assert lowered and lazy.compiles()[-1][:3] == ("reduction/reduce.cu", name, True)
