// pack16.cuh -- 16-byte packets of any element type and a grid-stride walk over them.
//
// global_thread()/global_threads(): 1-D grid-stride indices.
// Pack16<T> holds the 16 / sizeof(T) elements of one 16-byte load (16 uint8, 8 uint16, 4 float,
// 2 double, ...); load_pack16() reads one through the read-only path. for_each_packet() visits
// every element of in[0, n) exactly once with a grid-stride loop over threads [tid, nthreads):
// a scalar head up to the first 16-byte boundary, then packets with VECS independent 16-byte loads
// issued back to back per iteration (several loads in flight per thread), then a scalar tail.
// Elements of the head and tail go to elem(x, i), packets to pack(p, i0) with i0 the index of
// p.v[0]. Preconditions: `in` is aligned to sizeof(T) and not written during the kernel.
#pragma once
#include "common/prim.cuh"
#include "common/load.cuh"

namespace prim {

// This thread's index in the grid, and the number of threads of the grid (1-D launches).
__device__ __forceinline__ i64 global_thread() {
    return static_cast<i64>(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ __forceinline__ i64 global_threads() {
    return static_cast<i64>(gridDim.x) * blockDim.x;
}

template <class T> struct Pack16 {
    static constexpr int N = 16 / static_cast<int>(sizeof(T));
    T v[N];
};

template <class T>
__device__ __forceinline__ Pack16<T> load_pack16(const T* p) {
    const uint4 raw = __ldg(reinterpret_cast<const uint4*>(p));
    Pack16<T> out;
    const T* e = reinterpret_cast<const T*>(&raw);
#pragma unroll
    for (int k = 0; k < Pack16<T>::N; ++k) out.v[k] = e[k];
    return out;
}

template <int VECS, class T, class Elem, class Pack>
__device__ __forceinline__ void for_each_packet(const T* __restrict__ in, i64 n, i64 tid,
                                                i64 nthreads, Elem elem, Pack pack) {
    constexpr int N = Pack16<T>::N;
    const i64 head = aligned_head(in, n);
    for (i64 i = tid; i < head; i += nthreads) elem(in[i], i);
    const T* body = in + head;
    const i64 npk = (n - head) / N;
    i64 j = tid;
    for (; j + (VECS - 1) * nthreads < npk; j += VECS * nthreads) {
        Pack16<T> p[VECS];
#pragma unroll
        for (int u = 0; u < VECS; ++u) p[u] = load_pack16(body + (j + u * nthreads) * N);
#pragma unroll
        for (int u = 0; u < VECS; ++u) pack(p[u], head + (j + u * nthreads) * N);
    }
    for (; j < npk; j += nthreads) pack(load_pack16(body + j * N), head + j * N);
    for (i64 i = head + npk * N + tid; i < n; i += nthreads) elem(in[i], i);
}

}  // namespace prim
