"""The NVRTC compiles of kernels compiled on first use, in worker processes
(primitives._core.compile_workers): the same images and names as this process's NVRTC call, its
errors with their logs, a bounded pool, and this process's own compile where no worker runs."""

import concurrent.futures

import pytest

from primitives._core import compile_workers as cw, nvrtc

try:
    nvrtc.load()
except nvrtc.NVRTCNotFound:  # the test extra brings NVRTC; CI has it
    pytest.skip("no NVRTC library", allow_module_level=True)

CODE = """
template <class T, int N>
__global__ void scale(T* x, long long n) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) x[i] = x[i] * T(N);
}
"""
NAMES = [f"scale<{t}, {n}>" for t in ("float", "int", "double") for n in (2, 3)]


@pytest.fixture(autouse=True)
def fresh_pool(monkeypatch):
    cw.shutdown()
    monkeypatch.setattr(cw, "_broken", [])
    yield
    cw.shutdown()


def compile_both(name, **kw):
    mine = nvrtc.compile_binary(CODE, [name], arch="sm_90", filename="scale.cu", **kw)
    theirs = cw.compile_binary(CODE, [name], arch="sm_90", filename="scale.cu", **kw)
    return mine, theirs


def test_a_worker_compiles_what_this_process_would(monkeypatch):
    monkeypatch.setenv("PRIMITIVES_COMPILE_WORKERS", "2")
    (img, low), (wimg, wlow) = compile_both(NAMES[0], options=["-Ofc=mid"])
    assert wlow == low and wlow[NAMES[0]].startswith("_Z")
    # the same code: NVRTC's internal names carry the compiling process's id, nothing else differs
    assert len(wimg) == len(img) and wimg[:4] == img[:4] == b"\x7fELF"
    assert len(cw._started) == 1 and cw._idle == cw._started  # kept for the next compile


def test_a_pool_of_at_most_size_workers(monkeypatch):
    monkeypatch.setenv("PRIMITIVES_COMPILE_WORKERS", "2")
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda n: cw.compile_binary(CODE, [n], arch="sm_90"), NAMES * 2))
    assert [sorted(low) for _, low in got] == [[n] for n in NAMES * 2]
    assert 1 <= len(cw._started) <= 2 and len(cw._idle) == len(cw._started)


def test_compile_errors_come_back_with_their_log(monkeypatch):
    monkeypatch.setenv("PRIMITIVES_COMPILE_WORKERS", "1")
    bad = CODE.replace("T(N)", "T(M)")
    with pytest.raises(nvrtc.NVRTCError) as mine:
        nvrtc.compile_binary(bad, ["scale<float, 2>"], arch="sm_90", filename="scale.cu")
    with pytest.raises(nvrtc.NVRTCError) as theirs:
        cw.compile_binary(bad, ["scale<float, 2>"], arch="sm_90", filename="scale.cu")
    assert 'identifier "M" is undefined' in str(theirs.value)
    assert theirs.value.log == mine.value.log and theirs.value.names == ["scale<float, 2>"]
    assert theirs.value.instantiation == "scale<float, 2>"
    assert len(cw._idle) == 1  # the worker serves the next compile


def test_no_workers_where_none_are_allowed(monkeypatch):
    monkeypatch.setenv("PRIMITIVES_COMPILE_WORKERS", "0")
    assert cw.compile_binary(CODE, [NAMES[1]], arch="sm_90")[1].keys() == {NAMES[1]}
    assert cw._started == []
    monkeypatch.setenv("PRIMITIVES_COMPILE_WORKERS", "many")
    with pytest.raises(ValueError, match="PRIMITIVES_COMPILE_WORKERS.*'many'"):
        cw.compile_binary(CODE, [NAMES[1]], arch="sm_90")


def test_a_dead_worker_leaves_the_compiles_to_this_process(monkeypatch):
    monkeypatch.setenv("PRIMITIVES_COMPILE_WORKERS", "1")
    cw.compile_binary(CODE, [NAMES[0]], arch="sm_90")
    (worker,) = cw._started
    worker.proc.kill()
    worker.proc.wait()
    _, low = cw.compile_binary(CODE, [NAMES[2]], arch="sm_90")  # compiled here
    assert low.keys() == {NAMES[2]} and cw._started == [] and cw._broken
    cw.compile_binary(CODE, [NAMES[3]], arch="sm_90")
    assert cw._started == []  # no worker again in this process
