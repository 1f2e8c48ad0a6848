// load.cuh -- 16-byte vector loads for streaming kernels, and blocked per-thread I/O.
//
// Vec16<T>::type is the CUDA vector type of 16 bytes whose members are T (float4, int4, uint4,
// double2, longlong2, ulonglong2); Vec16<T>::N elements. load16() reads one through the read-only
// path. Preconditions: the address is 16-byte aligned (callers peel a scalar head first, see
// aligned_head) and the memory is not written during the kernel. Warp exchanges between the
// coalesced (warp-striped) and the blocked layout, 16 bytes per shared access, swizzled so that
// no access meets a bank conflict whatever ITEMS: load_striped_to_blocked16 /
// store_blocked_to_striped16, and exchange16_to_blocked for vectors already loaded.
// prefetch_span_l2: one thread's hint that fetches a span into the L2 cache. prefetch_l2:
// a block's hint that fetches a span the grid reads soon into the L2 cache (prefetch_in: of a
// kernel's input). load_cg: a load of a
// value another block stored, through the L2.
#pragma once
#include "util/prim.cuh"

namespace prim {

template <class T> struct Vec16;
template <> struct Vec16<float> {
    typedef float4 type;
    static constexpr int N = 4;
};
template <> struct Vec16<int> {
    typedef int4 type;
    static constexpr int N = 4;
};
template <> struct Vec16<unsigned int> {
    typedef uint4 type;
    static constexpr int N = 4;
};
template <> struct Vec16<double> {
    typedef double2 type;
    static constexpr int N = 2;
};
template <> struct Vec16<long long> {
    typedef longlong2 type;
    static constexpr int N = 2;
};
template <> struct Vec16<unsigned long long> {
    typedef ulonglong2 type;
    static constexpr int N = 2;
};

// Whether T has a Vec16 above: the 4- and 8-byte real types, util/prim.cuh's NativeWord (a map's
// element type of primitives/_core/ops.py specializes it as its element's).
template <class T> struct HasVec16 : NativeWord<T> {};

// A 16-byte vector as an array of its N elements.
template <class T> struct Packet { T v[Vec16<T>::N]; };

template <class T>
__device__ __forceinline__ Packet<T> load16(const T* p) {
    typedef typename Vec16<T>::type V;
    const V raw = __ldg(reinterpret_cast<const V*>(p));
    Packet<T> out;
    const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (int k = 0; k < Vec16<T>::N; ++k) out.v[k] = e[k];
    return out;
}

// Number of leading elements before `p` reaches a 16-byte boundary (at most n).
template <class T>
__device__ __forceinline__ i64 aligned_head(const T* p, i64 n) {
    const i64 mis = static_cast<i64>(reinterpret_cast<uptr>(p) & 15u);
    const i64 head = mis == 0 ? 0 : (16 - mis) / static_cast<i64>(sizeof(T));
    return head < n ? head : n;
}

// Blocked I/O: a thread's ITEMS consecutive elements at p. `vector`: 16-byte vectors (a full tile,
// aligned addresses); otherwise element by element, loads giving Op's identity past `avail`
// elements and stores skipping them.
template <class InT, class AccT, class Op, int ITEMS>
__device__ __forceinline__ void load_items(const InT* p, long long avail, bool vector,
                                           AccT (&items)[ITEMS]) {
    typedef Vec16<InT> V;
    if (vector) {
#pragma unroll
        for (int u = 0; u < ITEMS / V::N; ++u) {
            const Packet<InT> pk = load16(p + u * V::N);
#pragma unroll
            for (int k = 0; k < V::N; ++k) items[u * V::N + k] = static_cast<AccT>(pk.v[k]);
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            items[k] = k < avail ? static_cast<AccT>(p[k]) : Op::identity();
    }
}

template <class AccT, int ITEMS>
__device__ __forceinline__ void store_items(AccT* p, long long avail, bool vector,
                                            const AccT (&items)[ITEMS]) {
    typedef typename Vec16<AccT>::type V;
    constexpr int N = Vec16<AccT>::N;
    if (vector) {
#pragma unroll
        for (int u = 0; u < ITEMS / N; ++u) {
            V v;
            AccT* e = reinterpret_cast<AccT*>(&v);
#pragma unroll
            for (int k = 0; k < N; ++k) e[k] = items[u * N + k];
            reinterpret_cast<V*>(p)[u] = v;
        }
    } else {
#pragma unroll
        for (int k = 0; k < ITEMS; ++k)
            if (k < avail) p[k] = items[k];
    }
}

// An L2 prefetch of the `count` elements at p, by the calling thread alone: a hint (no result,
// no fault) naming the bytes from the 16-byte boundary at or below p to the one at or below its
// end (under 1 MiB). sm_90 and newer: one bulk prefetch (cp.async.bulk.prefetch.L2); older GPUs:
// a 128-byte line prefetch per line; the emulator: nothing.
template <class T>
__device__ __forceinline__ void prefetch_span_l2(const T* p, long long count) {
#if defined(__CUDA_ARCH__) && !defined(PRIM_EMULATOR)
    if (count <= 0) return;
    const uptr lo = reinterpret_cast<uptr>(p), bytes = static_cast<uptr>(count) * sizeof(T);
    const uptr b = lo & ~static_cast<uptr>(15u);
    const uptr e = (lo + bytes) & ~static_cast<uptr>(15u);
#if __CUDA_ARCH__ >= 900
    if (e > b && e - b < (1u << 20))  // the instruction's size field: under 1 MiB
        asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(b),
                     "r"(static_cast<unsigned>(e - b))
                     : "memory");
#else
    for (uptr q = b & ~static_cast<uptr>(127u); q < e; q += 128u)
        asm volatile("prefetch.global.L2 [%0];" ::"l"(q));
#endif
#else
    (void)p, (void)count;
#endif
}

// An L2 prefetch of elements [first, first + count) of each of `arrays`, clipped to [0, n): a
// hint that fetches a tile the grid will read soon into the L2 cache, so that the block which
// later loads it waits for the L2 rather than DRAM (look-back kernels keep too few loads in flight
// per SM to cover DRAM's latency on their own). No result and no fault: only bytes inside the
// clipped spans are named, from the 16-byte boundary at or below each span's start (allocations
// are 256-byte aligned) to the one at or below its end. sm_90 and newer: one bulk prefetch per
// array by thread 0 (cp.async.bulk.prefetch.L2); older GPUs: a 128-byte line prefetch per thread,
// block-strided; the emulator: nothing. Called by every thread of a block of BLOCK threads (no
// barrier).
template <int BLOCK, class... T>
__device__ __forceinline__ void prefetch_l2(long long first, long long count, long long n,
                                            const T*... arrays) {
#if defined(__CUDA_ARCH__) && !defined(PRIM_EMULATOR)
    if (first >= n || first < 0 || count <= 0) return;
    if (count > n - first) count = n - first;
#if __CUDA_ARCH__ >= 900
    if (threadIdx.x == 0) (prefetch_span_l2(arrays + first, count), ...);
#else
    auto lines = [](uptr lo, uptr bytes) {
        for (uptr q = lo + static_cast<uptr>(threadIdx.x) * 128u; q < lo + bytes; q += BLOCK * 128u)
            asm volatile("prefetch.global.L2 [%0];" ::"l"(q));
    };
    (lines(reinterpret_cast<uptr>(arrays + first), static_cast<uptr>(count) * sizeof(T)), ...);
#endif
#else
    (void)first, (void)count, (void)n, ((void)arrays, ...);
#endif
}

// prefetch_l2 of a kernel's input `in` (a pointer; util/zip.cuh overloads it for zipped arrays).
template <int BLOCK, class T>
__device__ __forceinline__ void prefetch_in(long long first, long long count, long long n,
                                            const T* in) {
    prefetch_l2<BLOCK>(first, count, n, in);
}

// Warp-striped <-> blocked exchange through shared memory, for full tiles: a warp's 32 * ITEMS
// consecutive elements are read (written) with lane-consecutive 16-byte vectors, fully coalesced,
// and parked in `tmp`; each lane then takes (gives) its ITEMS consecutive elements. Both sides
// move 16 bytes per shared access. The 32 lanes call together (__syncwarp only); global addresses
// and `tmp` (32 * ITEMS elements per warp) are 16-byte aligned.
// A warp's tile is 32 * PER_LANE vectors (PER_LANE = ITEMS / N); vector c belongs to lane
// c / PER_LANE and is parked in slot c for odd PER_LANE, c ^ ((c / PER_LANE) & 7) for even. Either
// is a permutation of the tile (for even PER_LANE the mask only changes at c = k * PER_LANE, from
// k - 1 to k, flipping the bits below 2 * lowbit(k), of which k * PER_LANE is a multiple), and
// either puts the 8 vectors of a quarter-warp in 8 distinct bank groups (slot % 8) on both sides,
// the striped one (consecutive vectors) and the blocked one (vectors PER_LANE apart): checked for
// every PER_LANE up to 64 (tests/core/test_load_exchange.py). `owner` is c / PER_LANE.
template <int PER_LANE>
__device__ __forceinline__ int exchange16_slot(int c, int owner) {
    return (PER_LANE & 1) ? c : c ^ (owner & 7);
}

// The 16-byte vector of the Vec16<T>::N elements at e.
template <class T>
__device__ __forceinline__ typename Vec16<T>::type vec16_of(const T* e) {
    typename Vec16<T>::type w;
    T* out = reinterpret_cast<T*>(&w);
#pragma unroll
    for (int k = 0; k < Vec16<T>::N; ++k) out[k] = e[k];
    return w;
}

// The slots of the exchange for ITEMS elements of T per lane (PER_LANE vectors): the lane's u-th
// vector on the striped side (vector u * 32 + lane of the warp's tile) and its m-th on the blocked
// side (vector lane * PER_LANE + m).
template <class T, int ITEMS>
struct Exchange16 {
    typedef typename Vec16<T>::type VT;
    static constexpr int N = Vec16<T>::N;
    static constexpr int PER_LANE = ITEMS / N;
    static_assert(ITEMS % N == 0, "16-byte warp exchange: ITEMS must fill whole vectors");
    static __device__ __forceinline__ int striped(int u, int lane) {
        const int c = u * WARP + lane;
        return exchange16_slot<PER_LANE>(c, c / PER_LANE);
    }
    static __device__ __forceinline__ int blocked(int m, int lane) {
        return exchange16_slot<PER_LANE>(lane * PER_LANE + m, lane);
    }
};

// Vectors already in registers (`raw[u]`: vector u * 32 + lane of the warp's tile, e.g. loaded
// early to hide their latency) to ITEMS consecutive elements per lane.
template <class InT, class AccT, int ITEMS>
__device__ __forceinline__ void exchange16_to_blocked(
    const Packet<InT> (&raw)[ITEMS / Vec16<InT>::N], InT* tmp, AccT (&items)[ITEMS]) {
    typedef Exchange16<InT, ITEMS> X;
    const int lane = threadIdx.x % WARP;
    typename X::VT* slots = reinterpret_cast<typename X::VT*>(tmp);
#pragma unroll
    for (int u = 0; u < X::PER_LANE; ++u) slots[X::striped(u, lane)] = vec16_of(raw[u].v);
    __syncwarp();
#pragma unroll
    for (int m = 0; m < X::PER_LANE; ++m) {
        const typename X::VT w = slots[X::blocked(m, lane)];
        const InT* e = reinterpret_cast<const InT*>(&w);
#pragma unroll
        for (int k = 0; k < X::N; ++k) items[m * X::N + k] = static_cast<AccT>(e[k]);
    }
    __syncwarp();
}

template <class InT, class AccT, int ITEMS>
__device__ __forceinline__ void load_striped_to_blocked16(const InT* warp_base, InT* tmp,
                                                          AccT (&items)[ITEMS]) {
    typedef Exchange16<InT, ITEMS> X;
    const int lane = threadIdx.x % WARP;
    Packet<InT> raw[X::PER_LANE];  // every global load issued before the first shared store
#pragma unroll
    for (int u = 0; u < X::PER_LANE; ++u) raw[u] = load16(warp_base + (u * WARP + lane) * X::N);
    exchange16_to_blocked<InT, AccT, ITEMS>(raw, tmp, items);
}

template <class T, int ITEMS>
__device__ __forceinline__ void store_blocked_to_striped16(T* warp_base, T* tmp,
                                                           const T (&items)[ITEMS]) {
    typedef Exchange16<T, ITEMS> X;
    const int lane = threadIdx.x % WARP;
    typename X::VT* slots = reinterpret_cast<typename X::VT*>(tmp);
#pragma unroll
    for (int m = 0; m < X::PER_LANE; ++m) slots[X::blocked(m, lane)] = vec16_of(items + m * X::N);
    __syncwarp();
    typename X::VT* out = reinterpret_cast<typename X::VT*>(warp_base);
#pragma unroll
    for (int u = 0; u < X::PER_LANE; ++u) out[u * WARP + lane] = slots[X::striped(u, lane)];
    __syncwarp();
}

// A load that bypasses L1 (a value another block stored: the L2's copy, not the incoherent L1's):
// the built-in scalars by __ldcg, any other type (complex, tuples) by its 4-byte words.
template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
    if constexpr (NativeWord<T>::value) {
        return __ldcg(p);
    } else {
        T v;
        unsigned int* w = reinterpret_cast<unsigned int*>(&v);
        const unsigned int* src = reinterpret_cast<const unsigned int*>(p);
#pragma unroll
        for (int k = 0; k < static_cast<int>(sizeof(T) / 4); ++k) w[k] = __ldcg(src + k);
        return v;
    }
}

}  // namespace prim
