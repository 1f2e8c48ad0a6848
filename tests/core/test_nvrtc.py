"""Every kernel instantiation the library can launch compiles through NVRTC for the 7.0 and 9.0
architectures.

- For 9.0, every instantiation compiles to PTX for compute_90 (front end and code generation with
  sm_90's ``__CUDA_ARCH__``), and its static shared memory, read from the PTX
  (:mod:`tests.core.ptx`), must be within the 48 KB limit. ptxas, which makes a cubin of the PTX
  and is about 80% of a cubin compile, checks only two things more: that limit, read here, and the
  text of inline assembly, which PTX generation pastes in unread. So the instantiations that between
  them reach every distinct inline assembly block of the file (its register numbers aside) go on
  to a cubin for sm_90.
- For 7.0, every instantiation goes through NVRTC's front end for compute_70
  (``--fdevice-syntax-only``: templates instantiated and checked with 7.0's ``__CUDA_ARCH__``):
  the paths below 8.0, such as the loads that stand in for cp.async. Code generation for 7.0 is
  left out: the kernels choose their paths by ``__CUDA_ARCH__`` in the front end, which checks
  7.0's branches whole; code generation would add its own errors (unsupported constructs, which
  the compute_90 PTX above meets on every path but 7.0's few branches: the plain loads without
  ``PRIM_ASYNC_COPY`` and a line prefetch in inline assembly) at six times the cost (every
  module: 50 s of CPU against 8 s for the front end).

The kernels have no path of their own for 8.x (their only architecture test is
``__CUDA_ARCH__ >= 800``, which sm_90 takes), so compute_80 would check nothing more; the kernel
binaries' build compiles sm_80 cubins itself, every instantiation through ptxas.

No GPU is needed: NVRTC only compiles. The registry is filled as each family module is imported;
importing ``primitives`` imports every family.
"""

import pytest

import primitives  # noqa: F401 - registers every family's instantiations
from primitives._core import timing  # noqa: F401 - registers the timings' hold
from primitives._core import loader as _loader, nvrtc as _nvrtc
from tests.core import ptx as _ptx

MODULES = sorted(_loader.registered_modules(candidates=True).items())  # overrides' too
#: NVRTC's fastest optimization (12.8 on): the front end, code generation and, for sm_90, ptxas
#: with its resource checks run as before, with 4-20x less optimizing (a check that code
#: compiles, not of the code's speed; the binaries and runtime compiles keep the full -O3)
FAST = ["--Ofast-compile=max"] if _nvrtc.version() >= (12, 8) else []
#: the compute_70 check: the front end alone (templates instantiated for 7.0's paths)
SYNTAX = ["--fdevice-syntax-only"]


def test_every_family_registered():
    assert "reduction/reduce.cu" in dict(MODULES)
    assert "core/hold.cu" in dict(MODULES)
    assert {"sparse/csr.cu", "sparse/ell.cu", "sparse/coo.cu", "sparse/convert.cu"} <= set(
        dict(MODULES)
    )
    assert {"scan/scan.cu", "compaction/compact.cu", "segmented/segmented.cu"} <= set(dict(MODULES))
    assert {"histograms/histogram.cu", "histograms/channels.cu"} <= set(dict(MODULES))
    assert {
        "sorting/split.cu",
        "sorting/classic.cu",
        "sorting/onesweep.cu",
        "sorting/segsort.cu",
        "sorting/block.cu",
    } <= set(dict(MODULES))


def test_candidates_checked_not_shipped():
    """A policy alternative the tables leave off (the argmax's pipelined rows, the other
    bucketed tally) is in the NVRTC check's list, not in the binaries'; one a table takes (the
    wide slabs, the argmax's stacked column parts) is shipped; a name registered both ways is
    shipped."""
    shipped = _loader.registered_modules()
    checked = dict(MODULES)

    def off(n):  # the pipelined rows
        return n.startswith("arg_rows_pipe<")

    def stacked(n):  # arg_cols with STACKED = true
        return n.startswith("arg_cols<") and n.endswith(", true>")

    assert any(off(n) for n in checked["reduction/arg.cu"])
    assert not any(off(n) for n in shipped["reduction/arg.cu"])
    assert any(stacked(n) for n in shipped["reduction/arg.cu"])
    assert any(n.startswith("axis_slab_wide<") for n in shipped["reduction/axis.cu"])
    tallies = [n for n in checked["histograms/histogram.cu"] if n.startswith("hist_bucket_tally")]
    assert len(tallies) == 2
    assert len([n for n in shipped["histograms/histogram.cu"] if n in tallies]) == 1
    _loader.register("reduction/arg.cu", [checked["reduction/arg.cu"][0]], shipped=False)
    assert _loader.registered_modules() == shipped  # already shipped: stays, once
    assert all(set(v) <= set(checked[k]) for k, v in shipped.items())


@pytest.mark.parametrize("arch", ["compute_70", "sm_90"])
@pytest.mark.parametrize("relpath,names", MODULES, ids=[m[0] for m in MODULES])
def test_compiles(relpath, names, arch):
    if arch == "compute_70" and _nvrtc.version() >= (13, 0):
        pytest.skip(
            "NVRTC 13 dropped the 7.0 architecture; the test extra's NVRTC 12 checks it in CI"
        )
    code = _loader.source(relpath)
    opts = [o for o in _loader.nvrtc_options() if o != "-std=c++17"] + FAST
    if arch == "compute_70":
        lowered = _nvrtc.compile_check(
            code, names, arch=arch, options=opts + SYNTAX, filename=relpath
        )
        assert set(lowered) == set(names)
        assert all(lowered.values())
        return
    checked = check_sm90(code, names, opts, relpath)
    assert set(checked) == set(names)


def check_sm90(code, names, opts, filename="kernel.cu"):
    """Every name compiled to PTX for compute_90 with its static shared memory within the limit,
    and the names that reach every inline assembly block compiled on to a cubin for sm_90;
    ``{name: lowered}``, or :class:`~primitives._core.nvrtc.NVRTCError` from a failed compile,
    or an ``AssertionError`` naming the kernels over the shared memory limit."""
    image, lowered = _nvrtc.compile_binary(
        code, names, arch="compute_90", options=opts, filename=filename
    )
    assert all(lowered.values())
    found = _ptx.kernels(image)
    assert set(lowered.values()) <= set(found), "an instantiation has no entry in the PTX"
    over = {
        name: found[low].shared_bytes
        for name, low in lowered.items()
        if found[low].shared_bytes > _ptx.STATIC_SHARED_LIMIT
    }
    assert not over, f"static shared memory over {_ptx.STATIC_SHARED_LIMIT} bytes: {over}"
    by_lowered = {low: name for name, low in lowered.items()}
    cover = [by_lowered[low] for low in _ptx.asm_cover(found) if low in by_lowered]
    if cover:
        _nvrtc.compile_check(code, cover, arch="sm_90", options=opts, filename=filename)
    return lowered


def test_fast_compile_still_fails_what_fails():
    """The fast options and the sm_90 check keep the checks: an error in a template body, static
    shared memory over the limit (the one ptxas applies, read from the PTX, through a called
    function too), and inline assembly that does not assemble; the compute_70 front end, an
    error in a template body on 7.0's path alone, and a static assertion of an instantiation."""
    body = (
        "template <class T> struct S { static __device__ T f(T x) { return x.missing; } };\n"
        "template <class T> __global__ void k(T* p) { p[0] = S<T>::f(p[1]); }"
    )
    below_80 = (
        "template <class T> __device__ T g(T x) { return x.missing_below_80; }\n"
        "template <class T> __global__ void k(T* p) {\n#if __CUDA_ARCH__ < 800\n"
        "p[0] = g(p[1]);\n#else\np[0] = p[1];\n#endif\n}"
    )
    asserted = (
        "template <class T> __global__ void k(T* p) {"
        ' static_assert(sizeof(T) == 8, "eight_bytes_only"); p[0] = p[1]; }'
    )
    if _nvrtc.version() < (13, 0):
        for code, word in [(body, "missing"), (below_80, "missing_below_80")]:
            with pytest.raises(_nvrtc.NVRTCError) as info:
                _nvrtc.compile_check(code, ["k<float>"], arch="compute_70", options=FAST + SYNTAX)
            assert word in info.value.log
        with pytest.raises(_nvrtc.NVRTCError, match="eight_bytes_only"):
            _nvrtc.compile_check(asserted, ["k<float>"], arch="compute_70", options=FAST + SYNTAX)
        assert _nvrtc.compile_check(
            asserted, ["k<double>"], arch="compute_70", options=FAST + SYNTAX
        )["k<double>"]
        assert check_sm90(below_80, ["k<float>"], FAST)  # 9.0's path does not meet it
    with pytest.raises(_nvrtc.NVRTCError) as info:
        check_sm90(body, ["k<float>"], FAST)
    assert "missing" in info.value.log


def _smem_kernel(floats):
    return (
        "__device__ __noinline__ float g(float v) {"
        f" __shared__ float s[{floats}]; s[threadIdx.x] = v; __syncthreads();"
        " return s[threadIdx.x ^ 1]; }\n"
        "__global__ void k(float* p) { __shared__ float t[4]; t[threadIdx.x & 3] = p[1];"
        " p[threadIdx.x] = g(p[0]) + t[0]; }"
    )


def test_static_shared_limit_is_the_one_ptxas_applies():
    """At the limit (12,284 floats in a called function and 4 in the kernel) ptxas and the PTX
    reading both accept the kernel; 4 bytes more, both refuse it."""
    limit = _ptx.STATIC_SHARED_LIMIT // 4
    fits = _smem_kernel(limit - 4)
    assert check_sm90(fits, ["k"], FAST)
    _nvrtc.compile_check(fits, ["k"], arch="sm_90", options=FAST)
    over = _smem_kernel(limit - 3)
    with pytest.raises(AssertionError, match="static shared memory over 49152 bytes"):
        check_sm90(over, ["k"], FAST)
    with pytest.raises(_nvrtc.NVRTCError):
        _nvrtc.compile_check(over, ["k"], arch="sm_90", options=FAST)


def test_inline_assembly_reaches_ptxas():
    """Inline assembly that PTX generation pastes in unread fails the sm_90 check when only one
    instantiation of many reaches it (through a called function), and the cover compiles one
    instantiation per distinct block: loads of other registers are the same block."""
    code = (
        "__device__ __noinline__ unsigned bad(unsigned v) {"
        ' unsigned r; asm volatile("not.an.instruction.b32 %0, %1;" : "=r"(r) : "r"(v));'
        " return r; }\n"
        "__device__ __noinline__ unsigned good(unsigned v) {"
        ' unsigned r; asm volatile("mov.b32 %0, %1;" : "=r"(r) : "r"(v)); return r; }\n'
        "template <int N> __global__ void k(unsigned* p) {"
        " unsigned v = good(p[threadIdx.x]) + good(p[N]);"
        " if constexpr (N == 3) v = bad(v); p[threadIdx.x] = v; }"
    )
    names = [f"k<{n}>" for n in range(5)]
    image, lowered = _nvrtc.compile_binary(code, names, arch="compute_90", options=FAST)
    found = _ptx.kernels(image)
    assert {found[low].shared_bytes for low in lowered.values()} == {0}
    cover = _ptx.asm_cover(found)
    assert len(cover) == 1 and cover[0] == lowered["k<3>"]
    assert len(found[lowered["k<3>"]].asm) == 2 and len(found[lowered["k<0>"]].asm) == 1
    with pytest.raises(_nvrtc.NVRTCError, match=r"k<3>.*ptxas"):
        check_sm90(code, names, FAST)
    assert check_sm90(code.replace("not.an.instruction", "not"), names, FAST)


def test_compile_error_reports_log_and_names():
    bad = "template <class T> __global__ void k(T* p) { p[0] = undefined_symbol; }"
    with pytest.raises(_nvrtc.NVRTCError, match=r"(?s)k<float>.*undefined_symbol"):
        _nvrtc.compile_check(bad, ["k<float>"], arch="sm_80")


def test_warm_up_loads_nvrtc_and_hashes_the_tree(monkeypatch):
    """``import primitives`` starts a thread that hashes the kernel tree and, where no binaries
    are shipped, loads NVRTC: what a first compile waits for before it can start."""
    from primitives._core import binaries, lazy

    monkeypatch.setattr(_nvrtc, "_lib", None)
    monkeypatch.setattr(binaries, "index", lambda: None)
    _loader.tree_hash.cache_clear()
    joins = []  # a fork waits for the thread (the child would inherit the locks it holds)
    monkeypatch.setattr(lazy.os, "register_at_fork", lambda before: joins.append(before))
    thread = lazy.warm_up()
    assert joins == [thread.join]
    thread.join(60)
    assert not thread.is_alive() and thread.daemon
    assert _nvrtc._lib is not None and _loader.tree_hash.cache_info().currsize == 1
    monkeypatch.setattr(_nvrtc, "_lib", None)
    monkeypatch.setattr(binaries, "index", lambda: {"format": "shipped"})
    lazy.warm_up().join(60)
    assert _nvrtc._lib is None  # shipped binaries: NVRTC is not needed
