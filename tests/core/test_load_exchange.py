"""The 16-byte warp exchanges of util/load.cuh (load_striped_to_blocked16,
store_blocked_to_striped16) against NumPy, in index order and with the race-exposing scheduler on
the emulator; their slot swizzle checked for bank conflicts; the instantiations compiled by NVRTC
for sm_90."""

import numpy as np
import pytest

from primitives._core import backend as _backend, loader as _loader, nvrtc as _nvrtc
from primitives.testing import harness as H

CODE = r"""
#include "util/prim.cuh"
#include "util/load.cuh"
// Two warps per block, one tile of 32 * ITEMS elements each. `loaded`: the blocked items of
// load_striped_to_blocked16, written element by element; `stored`: blocked items read element by
// element from `src` and written by store_blocked_to_striped16. The two calls share `tmp`.
template <class InT, class AccT, int ITEMS>
__global__ void exchange16_roundtrip(const InT* in, AccT* loaded, const AccT* src, AccT* stored) {
    constexpr int XBYTES = (sizeof(InT) > sizeof(AccT) ? sizeof(InT) : sizeof(AccT)) *
                           prim::WARP * ITEMS;
    static_assert(XBYTES % 16 == 0, "each warp's slice must stay 16-byte aligned");
    __shared__ __align__(16) unsigned char tmp[2][XBYTES];
    const int warp = threadIdx.x / prim::WARP;
    const long long warp_first =
        (static_cast<long long>(blockIdx.x) * 2 + warp) * prim::WARP * ITEMS;
    const long long first = warp_first + static_cast<long long>(threadIdx.x % prim::WARP) * ITEMS;
    AccT items[ITEMS];
    prim::load_striped_to_blocked16<InT, AccT, ITEMS>(in + warp_first,
                                                       reinterpret_cast<InT*>(tmp[warp]), items);
    for (int k = 0; k < ITEMS; ++k) loaded[first + k] = items[k];
    for (int k = 0; k < ITEMS; ++k) items[k] = src[first + k];
    prim::store_blocked_to_striped16<AccT, ITEMS>(stored + warp_first,
                                                  reinterpret_cast<AccT*>(tmp[warp]), items);
}
// One warp: the slot of every vector of a tile as each side computes it (4-byte elements).
template <int PER_LANE>
__global__ void exchange16_slots(int* striped, int* blocked) {
    typedef prim::Exchange16<int, 4 * PER_LANE> X;
    const int lane = threadIdx.x % prim::WARP;
    for (int u = 0; u < PER_LANE; ++u) striped[u * prim::WARP + lane] = X::striped(u, lane);
    for (int m = 0; m < PER_LANE; ++m) blocked[lane * PER_LANE + m] = X::blocked(m, lane);
}
"""

CT = {
    "int": np.int32,
    "unsigned int": np.uint32,
    "float": np.float32,
    "long long": np.int64,
    "unsigned long long": np.uint64,
    "double": np.float64,
}
# ITEMS of the look-back scan's policies (primitives/scan/_policy.py, tools/tune/scan.py) and a
# few more: vectors per lane 7 (int -> long long at 28), 10 ... 20 (4-byte) and 12, 14 (8-byte), odd and
# even; 4 is a single vector per lane
ROUNDTRIPS = [("int", "int", i) for i in (4, 28, 40, 48, 56, 64, 80)] + [
    ("float", "float", 48),
    ("float", "float", 56),
    ("float", "float", 64),
    ("unsigned int", "unsigned int", 56),
    ("int", "long long", 28),
    ("float", "double", 28),
    ("unsigned int", "unsigned long long", 28),
    ("double", "double", 24),
    ("double", "double", 28),
    ("long long", "long long", 24),
    ("long long", "long long", 28),
    ("unsigned long long", "unsigned long long", 28),
]
PER_LANES = list(range(1, 65))


def _rt_name(in_c, acc_c, items):
    return f"exchange16_roundtrip<{in_c}, {acc_c}, {items}>"


NAMES = [_rt_name(*r) for r in ROUNDTRIPS] + [f"exchange16_slots<{p}>" for p in PER_LANES]


def _kernels():
    backend = _backend.get_backend()
    if backend.is_cuda:
        import cupy

        mod = cupy.RawModule(code=CODE, options=_loader.nvrtc_options(), name_expressions=NAMES)
        return mod.get_function
    from primitives._core import emulator as _emulator

    mod = _emulator.compile_module(
        CODE,
        NAMES,
        include_dirs=[str(_loader.kernels_root())],
        cache_key=_loader.tree_hash(),
        filename="test_load_exchange.cu",
    )
    return mod.get_function


_module = []


def kernel(name):
    if not _module:
        _module.append(_kernels())
    return _module[0](name)


def _values(rng, n, dt):
    dt = np.dtype(dt)
    if dt.kind == "f":
        return rng.uniform(-1e6, 1e6, n).astype(dt)
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)


@pytest.mark.parametrize(
    "in_c,acc_c,items", ROUNDTRIPS, ids=[f"{a}->{b}-{i}" for a, b, i in ROUNDTRIPS]
)
def test_roundtrip(in_c, acc_c, items, schedule, rng):
    xp = _backend.get_backend().xp
    blocks = 3
    n = blocks * 2 * 32 * items
    x = _values(rng, n, CT[in_c])
    src = _values(rng, n, CT[acc_c])
    loaded = xp.zeros(n, CT[acc_c])
    stored = xp.zeros(n, CT[acc_c])
    kernel(_rt_name(in_c, acc_c, items))(
        (blocks,), (64,), (xp.asarray(x), loaded, xp.asarray(src), stored)
    )
    H.assert_same(loaded, x.astype(CT[acc_c]))
    H.assert_same(stored, src)


@pytest.mark.parametrize("per_lane", PER_LANES)
def test_slots_permute_without_conflicts(per_lane):
    """Both sides agree on each vector's slot, the slots are a permutation of the tile, and in
    every quarter-warp (8 lanes x 16 bytes, one 128-byte wavefront) the 8 slots of one access fall
    in distinct bank groups (slot % 8)."""
    xp = _backend.get_backend().xp
    tile = 32 * per_lane
    striped = xp.full(tile, -1, np.int32)
    blocked = xp.full(tile, -1, np.int32)
    kernel(f"exchange16_slots<{per_lane}>")((1,), (32,), (striped, blocked))
    striped, blocked = H.to_host(striped), H.to_host(blocked)
    H.assert_same(striped, blocked)
    H.assert_same(np.sort(striped), np.arange(tile, dtype=np.int32))
    lanes = np.arange(32).reshape(4, 8)  # quarter-warps
    for a in range(per_lane):
        for c in (a * 32 + lanes, lanes * per_lane + a):  # striped access a, blocked access a
            groups = np.sort(striped[c] % 8, axis=1)
            assert (groups == np.arange(8)).all(), (per_lane, a, striped[c])


def test_nvrtc_sm90():
    try:
        _nvrtc.load()
    except _nvrtc.NVRTCNotFound as exc:
        pytest.skip(str(exc))
    # the NVRTC gate's fast level (tests/core/test_nvrtc.py): the same checks, 4.4 -> 1.3 s
    fast = ["--Ofast-compile=max"] if _nvrtc.version() >= (12, 8) else []
    opts = [o for o in _loader.nvrtc_options() if o != "-std=c++17"] + fast
    lowered = _nvrtc.compile_check(
        CODE, NAMES, arch="sm_90", options=opts, filename="test_load_exchange.cu"
    )
    assert set(lowered) == set(NAMES)
