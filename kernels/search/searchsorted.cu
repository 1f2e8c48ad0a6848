// searchsorted.cu -- numpy.searchsorted: for each query v[i], the index where it would be inserted
// into the sorted array a (side "left": the first j with !(a[j] < v), the lower bound; side
// "right": the first j with v < a[j], the upper bound).
//
// Order: NumPy's, where NaNs sort last and compare equal to each other (search_less below); for
// integers the plain <. T is the common dtype of a and v (the host converts both to it): signed
// and unsigned char, short, int, long long, their unsigned twins, float and double (bool is
// searched as unsigned char, float16 as float, both exact).
//
// The search: one implicit binary tree over [0, n). A node covers the candidate answers
// [lo, lo + len]; it probes a[lo + len / 2] (its splitter) and moves to the upper part
// (lo += len / 2 + 1, len -= len / 2 + 1) when the splitter precedes the query, else to the lower
// part (len = len / 2). Every path ends when len == 0, after floor(log2(n)) + 1 steps at most;
// any a, sorted or not, is only read at indices in [0, n), so an unsorted a (undefined results)
// never reads out of bounds and never hangs. Node k of the tree (1 the root, 2k and 2k + 1 its
// children, level-ordered as in an Eytzinger layout) is the node reached by the bits of k after
// its leading 1 (0: lower part, 1: upper part).
//
// Kernels (all 1-D, any grid: each loops grid-stride over its work):
//   search_binary<T>: one query per thread per step of the grid-stride loop, a plain binary
//     search in global memory (the teaching variant). No shared memory.
//   search_tree<T>: tree[k] = a[splitter of node k] for the nodes k in [1, 2^levels) that exist
//     (len > 0): one thread per node walks its path from the root. A few thousand threads.
//   search_cached<T, P, BLOCK, ITEMS>: each block copies tree[0, 2^levels) into dynamic shared
//     memory (16-byte vectors), then each thread takes ITEMS queries of a BLOCK * ITEMS tile
//     (query q of thread t is element t + q * BLOCK of the tile: coalesced loads and stores),
//     descends the top `levels` levels in shared memory and the rest in global memory, its ITEMS
//     searches interleaved step by step so that ITEMS independent loads are in flight per thread
//     (the bottom levels are random DRAM reads, latency bound). P: the type of perm, the original
//     position of each query (out[perm[i]] = result of v[i]: the sorted-queries variant, whose v
//     is sorted so that neighbouring threads share their paths' cache lines), or void (out[i]).
// Launch: BLOCK threads; dynamic shared memory = tree_bytes (2^levels * sizeof(T) rounded up to
// 16 bytes), at most the device's opt-in limit. The only barrier follows the tree copy, which
// every thread of the block reaches. Preconditions: n >= 1, m >= 1, 1 <= levels <= 30, tree
// 16-byte aligned with tree_bytes bytes (entries of absent nodes are never read), out has m
// int64 entries, perm (when P is not void) a permutation of [0, m).
#include "common/prim.cuh"

namespace prim {
namespace search {

// NumPy's order: a NaN follows every number, and NaNs are equal.
template <class T>
__device__ __forceinline__ bool search_less(T x, T y) {
    return x < y || (is_nan(y) && !is_nan(x));
}

// Whether the search goes to the upper part at a splitter x for the query q.
template <class T>
__device__ __forceinline__ bool goes_up(T x, T q, bool right) {
    return right ? !search_less(q, x) : search_less(x, q);
}

// One step of the implicit tree: (lo, len) of the part the probe of x sends q to.
template <class T>
__device__ __forceinline__ void step(T x, T q, bool right, long long& lo, long long& len) {
    const long long half = len >> 1;
    if (goes_up(x, q, right)) {
        lo += half + 1;
        len -= half + 1;
    } else {
        len = half;
    }
}

template <class P> struct Scatter {  // out[perm[i]]
    static __device__ __forceinline__ long long where(const P* perm, long long i) {
        return static_cast<long long>(perm[i]);
    }
};
template <> struct Scatter<void> {  // out[i]
    static __device__ __forceinline__ long long where(const void*, long long i) { return i; }
};

}  // namespace search
}  // namespace prim

template <class T>
__global__ void search_binary(const T* __restrict__ a, long long n, const T* __restrict__ v,
                              long long m, int right, long long* __restrict__ out) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
         i += stride) {
        const T q = v[i];
        long long lo = 0, len = n;
        while (len > 0) prim::search::step(a[lo + (len >> 1)], q, right != 0, lo, len);
        out[i] = lo;
    }
}

template <class T>
__global__ void search_tree(const T* __restrict__ a, long long n, int levels,
                            T* __restrict__ tree) {
    const long long nodes = 1ll << levels;
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x + 1;
         k < nodes; k += stride) {
        int depth = 0;
        while ((k >> (depth + 1)) != 0) ++depth;  // the level of node k: its bits after the 1
        long long lo = 0, len = n;
        for (int d = depth - 1; d >= 0 && len > 0; --d) {
            const long long half = len >> 1;
            if ((k >> d) & 1) {
                lo += half + 1;
                len -= half + 1;
            } else {
                len = half;
            }
        }
        if (len > 0) tree[k] = a[lo + (len >> 1)];
    }
}

template <class T, class P, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
search_cached(const T* __restrict__ a, long long n, const T* __restrict__ tree, int levels,
              int tree_vectors, const T* __restrict__ v, long long m, int right,
              const P* __restrict__ perm, long long* __restrict__ out) {
    PRIM_DYNAMIC_SHARED(T, top);
    {
        uint4* dst = reinterpret_cast<uint4*>(top);
        const uint4* src = reinterpret_cast<const uint4*>(tree);
        for (int j = threadIdx.x; j < tree_vectors; j += BLOCK) dst[j] = __ldg(src + j);
    }
    __syncthreads();
    const bool up = right != 0;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    for (long long base = static_cast<long long>(blockIdx.x) * TILE; base < m;
         base += static_cast<long long>(gridDim.x) * TILE) {
        T q[ITEMS];
        long long lo[ITEMS], len[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long i = base + threadIdx.x + k * BLOCK;
            lo[k] = 0;
            len[k] = i < m ? n : 0;  // past the end: an empty search, never stored
            q[k] = i < m ? v[i] : T();
        }
        // the top levels: splitters from shared memory, node by node
        long long node[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) node[k] = 1;
        for (int level = 0; level < levels; ++level) {
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                if (len[k] > 0) {
                    const T x = top[node[k]];
                    const long long before = lo[k];
                    prim::search::step(x, q[k], up, lo[k], len[k]);
                    node[k] = 2 * node[k] + (lo[k] != before);
                }
            }
        }
        // the remaining levels from global memory: the ITEMS probes of a step loaded together
        for (;;) {
            T x[ITEMS];
            bool more = false;
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                if (len[k] > 0) {
                    x[k] = a[lo[k] + (len[k] >> 1)];
                    more = true;
                }
            }
            if (!more) break;
#pragma unroll
            for (int k = 0; k < ITEMS; ++k)
                if (len[k] > 0) prim::search::step(x[k], q[k], up, lo[k], len[k]);
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long i = base + threadIdx.x + k * BLOCK;
            if (i < m) out[prim::search::Scatter<P>::where(perm, i)] = lo[k];
        }
    }
}
