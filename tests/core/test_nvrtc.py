"""Every kernel instantiation the library can launch compiles through NVRTC for the 7.0 and 9.0
architectures: to a cubin for sm_90 (front end, code generation and ptxas, whose resource limits,
such as static shared memory, fail there too) and to PTX for compute_70 (front end and code
generation with that architecture's ``__CUDA_ARCH__``: the paths below 8.0, such as the loads that
stand in for cp.async; ptxas adds nothing there that sm_90 does not check, and skipping it saves
about 40% of each compile). The kernels have no path of their own for 8.x (their only
architecture test is ``__CUDA_ARCH__ >= 800``, which sm_90 takes), so compute_80 would check
nothing more; the kernel binaries' build compiles sm_80 itself.

No GPU is needed: NVRTC only compiles. The registry is filled as each family module is imported;
importing ``primitives`` imports every family.
"""

import pytest

import primitives  # noqa: F401 - registers every family's instantiations
from primitives._core import loader as _loader, nvrtc as _nvrtc

MODULES = sorted(_loader.registered_modules().items())
#: NVRTC's fastest optimization (12.8 on): the front end, code generation and, for sm_90, ptxas
#: with its resource checks run as before, with 4-20x less optimizing (a check that code
#: compiles, not of the code's speed; the binaries and runtime compiles keep the full -O3)
FAST = ["--Ofast-compile=max"] if _nvrtc.version() >= (12, 8) else []


def test_every_family_registered():
    assert "reduction/reduce.cu" in dict(MODULES)
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


@pytest.mark.parametrize("arch", ["compute_70", "sm_90"])
@pytest.mark.parametrize("relpath,names", MODULES, ids=[m[0] for m in MODULES])
def test_compiles(relpath, names, arch):
    if arch == "compute_70" and _nvrtc.version() >= (13, 0):
        pytest.skip(
            "NVRTC 13 dropped the 7.0 architecture; the test extra's NVRTC 12 checks it in CI"
        )
    code = _loader.source(relpath)
    opts = [o for o in _loader.nvrtc_options() if o != "-std=c++17"] + FAST
    lowered = _nvrtc.compile_check(code, names, arch=arch, options=opts, filename=relpath)
    assert set(lowered) == set(names)
    assert all(lowered.values())


def test_fast_compile_still_fails_what_fails():
    """The fast options keep the checks: an error in a template body, and static shared memory
    over the architecture's limit (ptxas)."""
    body = (
        "template <class T> struct S { static __device__ T f(T x) { return x.missing; } };\n"
        "template <class T> __global__ void k(T* p) { p[0] = S<T>::f(p[1]); }"
    )
    for arch in ("compute_70", "sm_90"):
        if arch == "compute_70" and _nvrtc.version() >= (13, 0):
            continue
        with pytest.raises(_nvrtc.NVRTCError) as info:
            _nvrtc.compile_check(body, ["k<float>"], arch=arch, options=FAST)
        assert "missing" in info.value.log
    smem = (
        "__global__ void k(float* p) { __shared__ float s[60000]; s[threadIdx.x] = p[0];"
        " __syncthreads(); p[threadIdx.x] = s[threadIdx.x ^ 1]; }"
    )
    with pytest.raises(_nvrtc.NVRTCError):
        _nvrtc.compile_check(smem, ["k"], arch="sm_90", options=FAST)


def test_compile_error_reports_log_and_names():
    bad = "template <class T> __global__ void k(T* p) { p[0] = undefined_symbol; }"
    with pytest.raises(_nvrtc.NVRTCError, match=r"(?s)k<float>.*undefined_symbol"):
        _nvrtc.compile_check(bad, ["k<float>"], arch="sm_80")
