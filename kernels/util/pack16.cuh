// pack16.cuh -- 16-byte packets of any element type and grid-stride walks over them.
//
// Pack16<T> holds the 16 / sizeof(T) elements of one 16-byte load (16 uint8, 8 uint16, 4 float,
// 2 double, ...); load_pack16() reads one through the read-only path. for_each_packet() visits
// every element of in[0, n) exactly once with a grid-stride loop over threads [tid, nthreads):
// a scalar head up to the first 16-byte boundary, then packets with VECS independent 16-byte loads
// issued back to back per iteration (several loads in flight per thread), then a scalar tail.
// Elements of the head and tail go to elem(x, i), packets to pack(p, i0) with i0 the index of
// p.v[0]. Preconditions: `in` is aligned to sizeof(T) and not written during the kernel.
// packet_frame() is the head, packets and tail the walks share.
// for_each_packet_rounds<P, EVERY>() makes the same visits in rounds the whole grid runs alike,
// with a block-wide step between every EVERY rounds (for_each_round: any items, below). walk_column() (below)
// walks one column of a 2-D layout down its rows the same way.
//
// for_each_packet_staged<S, VECS>(): the same visits (same head, packets and tail, each packet to
// pack() once, in the same order per thread), with the packets staged in shared memory by
// asynchronous copies (cp.async, sm_80+) instead of landing in registers: each thread keeps S
// packets in flight whatever its register budget. Algorithm: a ring of S 16-byte slots per
// thread; the thread copies its packets 0..S-2 (one commit group each), then for its packet k
// issues the copy of packet k+S-1 into the slot that packet k-1 used, commits, waits until at most
// S-1 groups are pending (so packet k's group has landed) and reads packet k from its slot.
// No block barrier: a thread reads only the slots it copied into itself, and it has read a slot
// into registers (consumed by pack) before it issues the copy that reuses that slot.
// Shared memory: `stage`, S * blockDim.x 16-byte slots, 16-byte aligned, slot s of thread t at
// stage[s * blockDim.x + t] (a warp's 16-byte accesses to one stage are contiguous: conflict-free);
// nothing is pending on it when the walk returns. S == 0, or an architecture below sm_80: the
// register walk for_each_packet<VECS> (`stage` unused); VECS is used only there.
// Emulator: the copies are deferred until a wait retires their group (AsyncCopies), so a slot read
// before its wait sees stale data there as it may on the GPU.
#pragma once
#include "util/prim.cuh"
#include "util/load.cuh"

namespace prim {

template <class T> struct Pack16 {
    static constexpr int N = 16 / static_cast<int>(sizeof(T));
    T v[N];
};

// The elements of the 16 raw bytes `raw`.
template <class T>
__device__ __forceinline__ Pack16<T> pack16_of(const uint4& raw) {
    Pack16<T> out;
    const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (int k = 0; k < Pack16<T>::N; ++k) out.v[k] = e[k];
    return out;
}

// Element m of the 16 raw bytes `raw` (m constant after unrolling: no copy to memory).
template <class T>
__device__ __forceinline__ T pack16_elem(const uint4& raw, int m) {
    return reinterpret_cast<const T*>(&raw)[m];
}

template <class T>
__device__ __forceinline__ Pack16<T> load_pack16(const T* p) {
    return pack16_of<T>(__ldg(reinterpret_cast<const uint4*>(p)));
}

// The walks' common frame: elements [0, head) before the first 16-byte boundary to elem(x, i),
// then middle(body, head, npk) for the npk whole packets from body = in + head, then the
// elements after them to elem (grid-stride over threads [tid, nthreads) for the head and tail).
template <class T, class Elem, class Middle>
__device__ __forceinline__ void packet_frame(const T* __restrict__ in, i64 n, i64 tid, i64 nthreads,
                                             Elem elem, Middle middle) {
    constexpr int N = Pack16<T>::N;
    const i64 head = aligned_head(in, n);
    for (i64 i = tid; i < head; i += nthreads) elem(in[i], i);
    const i64 npk = (n - head) / N;
    middle(in + head, head, npk);
    for (i64 i = head + npk * N + tid; i < n; i += nthreads) elem(in[i], i);
}

template <int VECS, class T, class Elem, class Pack>
__device__ __forceinline__ void for_each_packet(const T* __restrict__ in, i64 n, i64 tid,
                                                i64 nthreads, Elem elem, Pack pack) {
    constexpr int N = Pack16<T>::N;
    packet_frame(in, n, tid, nthreads, elem, [&](const T* body, i64 head, i64 npk) {
        i64 j = tid;
        for (; j + (VECS - 1) * nthreads < npk; j += VECS * nthreads) {
            Pack16<T> p[VECS];
#pragma unroll
            for (int u = 0; u < VECS; ++u) p[u] = load_pack16(body + (j + u * nthreads) * N);
#pragma unroll
            for (int u = 0; u < VECS; ++u) pack(p[u], head + (j + u * nthreads) * N);
        }
        for (; j < npk; j += nthreads) pack(load_pack16(body + j * N), head + j * N);
    });
}

// for_each_round<V, G, EVERY>(n, tid, nthreads, load, visit, between): the items q of [0, n),
// grid-stride over threads [tid, nthreads), in rounds: in round r thread tid takes items tid +
// (r * G + g) * nthreads, g < G, all G loaded (load(q, V&)) before any is visited (visit(q, const
// V&)). After every EVERY rounds but the last it calls between(), the same number of times in
// every thread of the grid (the rounds follow from n and nthreads alone): a block-wide step with
// barriers may run there, and between two calls a block visits at most EVERY * G * blockDim.x
// items. Called by every thread of the block.
template <class V, int G, int EVERY, class Load, class Visit, class Between>
__device__ __forceinline__ void for_each_round(i64 n, i64 tid, i64 nthreads, Load load, Visit visit,
                                               Between between) {
    const i64 rounds = (n + G * nthreads - 1) / (G * nthreads);
    for (i64 r = 0; r < rounds; ++r) {  // uniform in the grid
        V x[G];
#pragma unroll
        for (int g = 0; g < G; ++g) {
            const i64 q = tid + (r * G + g) * nthreads;
            if (q < n) load(q, x[g]);
        }
#pragma unroll
        for (int g = 0; g < G; ++g) {
            const i64 q = tid + (r * G + g) * nthreads;
            if (q < n) visit(q, x[g]);
        }
        if ((r + 1) % EVERY == 0 && r + 1 < rounds) between();
    }
}

// for_each_packet_rounds<P, EVERY>(in, n, tid, nthreads, elem, pack, between): for_each_packet's
// visits (the same head, packets and tail), the packets walked by for_each_round: P packets a
// thread a round, their loads issued together, between() after every EVERY rounds but the last.
// Between two calls (or the start and the first, or the last and the end) a block visits at most
// EVERY * P * N * blockDim.x packet elements, plus, in the first and last stretch, head or tail
// elements (fewer than N each). Called by every thread of the block.
template <int P, int EVERY, class T, class Elem, class Pack, class Between>
__device__ __forceinline__ void for_each_packet_rounds(const T* __restrict__ in, i64 n, i64 tid,
                                                       i64 nthreads, Elem elem, Pack pack,
                                                       Between between) {
    constexpr int N = Pack16<T>::N;
    packet_frame(in, n, tid, nthreads, elem, [&](const T* body, i64 head, i64 npk) {
        for_each_round<Pack16<T>, P, EVERY>(
            npk, tid, nthreads, [&](i64 j, Pack16<T>& p) { p = load_pack16(body + j * N); },
            [&](i64 j, const Pack16<T>& p) { pack(p, head + j * N); }, between);
    });
}

// walk_column<VECS>(p, rows, stride, visit): rows 0..rows-1 of one column (or one 16-byte packet
// of columns, T a Pack16) at p[r * stride], VECS rows' loads issued back to back before any is
// visited, visit(x, r) in row order. The column reductions' walk (axis_cols, arg_cols): a warp's
// threads on consecutive columns read each row coalesced. load(q) reads one row's element.
template <int VECS, class T, class Load, class Visit>
__device__ __forceinline__ void walk_column(const T* __restrict__ p, i64 rows, i64 stride,
                                            Load load, Visit visit) {
    i64 r = 0;
    for (; r + VECS <= rows; r += VECS) {
        decltype(load(p)) x[VECS];
#pragma unroll
        for (int v = 0; v < VECS; ++v) x[v] = load(p + (r + v) * stride);
#pragma unroll
        for (int v = 0; v < VECS; ++v) visit(x[v], r + v);
    }
    for (; r < rows; ++r) visit(load(p + r * stride), r);
}

// ---- asynchronous 16-byte copies, global -> shared --------------------------------------------
// PRIM_ASYNC_COPY: cp.async is available (sm_80+), or the emulator's twin is.
#if defined(PRIM_EMULATOR) || (defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800)
#define PRIM_ASYNC_COPY 1
#endif

#ifdef PRIM_ASYNC_COPY
// One thread's asynchronous copies. Shared memory is addressed by Addr, an integer that moves by
// bytes (the shared-window address on the GPU, the pointer's value on the emulator); addr(p) is
// that of the shared pointer p. copy16(dst, src) starts a copy of 16 bytes from global `src` to
// shared `dst` (both 16-byte aligned); commit() closes the copies started since the last commit
// into a group (possibly empty); wait<N>() returns once at most the N newest committed groups are
// pending, after which the older groups' data is visible to this thread; read16(a) loads 16 bytes
// of shared memory. On the GPU: cp.async.cg (L1 bypassed) / cp.async.commit_group /
// cp.async.wait_group / ld.shared, no state. On the emulator each copy is recorded with its group
// and performed when a wait retires the group (up to MAX copies pending), so a read that comes
// too early sees stale data, as it may on the GPU.
struct AsyncCopies {
#ifdef PRIM_EMULATOR
    typedef uptr Addr;
    static Addr addr(const void* p) { return reinterpret_cast<uptr>(p); }
    static uint4 read16(Addr a) { return *reinterpret_cast<const uint4*>(a); }
    static constexpr int MAX = 64;
    Addr dst[MAX];
    const uint4* src[MAX];
    int group[MAX];
    int count = 0, committed = 0;
    void copy16(Addr d, const void* s) {
        assert(count < MAX && "AsyncCopies: too many copies pending");
        dst[count] = d;
        src[count] = static_cast<const uint4*>(s);
        group[count++] = committed;
    }
    void commit() { ++committed; }
    template <int N> void wait() {
        int kept = 0;
        for (int c = 0; c < count; ++c) {
            if (group[c] < committed - N) {
                *reinterpret_cast<uint4*>(dst[c]) = *src[c];
            } else {
                dst[kept] = dst[c];
                src[kept] = src[c];
                group[kept++] = group[c];
            }
        }
        count = kept;
    }
#else
    typedef u32 Addr;
    static __device__ __forceinline__ Addr addr(const void* p) {
        return static_cast<u32>(__cvta_generic_to_shared(p));
    }
    static __device__ __forceinline__ uint4 read16(Addr a) {
        uint4 v;
        asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "r"(a)
                     : "memory");
        return v;
    }
    __device__ __forceinline__ void copy16(Addr d, const void* s) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(d), "l"(s) : "memory");
    }
    __device__ __forceinline__ void commit() {
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    }
    template <int N> __device__ __forceinline__ void wait() {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
    }
#endif
};
#endif  // PRIM_ASYNC_COPY

template <int S, int VECS, class T, class Elem, class Pack>
__device__
__forceinline__ void for_each_packet_staged(const T* __restrict__ in, i64 n, i64 tid, i64 nthreads,
                                            uint4* stage, Elem elem, Pack pack) {
    static_assert(S >= 0 && S <= 32, "for_each_packet_staged: 0 to 32 stages");
#ifdef PRIM_ASYNC_COPY
    if constexpr (S > 0) {
        typedef AsyncCopies::Addr Addr;
        constexpr int N = Pack16<T>::N;
        packet_frame(in, n, tid, nthreads, elem, [&](const T* from, i64 head, i64 npk) {
            const uint4* const body = reinterpret_cast<const uint4*>(from);
            const Addr ring = static_cast<Addr>(blockDim.x) * 16;  // bytes from a slot to the next
            const Addr first = AsyncCopies::addr(stage + threadIdx.x),
                       last = first + (S - 1) * ring;
            AsyncCopies cp;
#pragma unroll
            for (int s = 0; s < S - 1; ++s) {  // packets 0..S-2 of this thread, slots 0..S-2
                const i64 j = tid + s * nthreads;
                if (j < npk) cp.copy16(first + s * ring, body + j);
                cp.commit();
            }
            Addr slot = first;  // packet k's: slot k % S
            for (i64 j = tid; j < npk; j += nthreads) {
                const i64 ahead = j + (S - 1) * nthreads;  // packet k + S - 1, into slot (k-1) % S
                if (ahead < npk) cp.copy16(slot == first ? last : slot - ring, body + ahead);
                cp.commit();  // empty past the end: every iteration commits one group
                cp.template wait<S - 1>();
                pack(pack16_of<T>(AsyncCopies::read16(slot)), head + j * N);
                slot = slot == last ? first : slot + ring;
            }
            cp.template wait<0>();  // only empty groups can remain; nothing pending on `stage`
        });
        return;
    }
#endif
    (void)stage;
    for_each_packet<VECS>(in, n, tid, nthreads, elem, pack);
}

}  // namespace prim
