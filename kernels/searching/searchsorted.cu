// searchsorted.cu -- numpy.searchsorted: for each query v[i], the index where it would be inserted
// into the sorted array a (side "left": the first j with !(a[j] < v), the lower bound; side
// "right": the first j with v < a[j], the upper bound).
//
// Order: NumPy's, where NaNs sort last and compare equal to each other (search_less below); for
// integers the plain <; for complex numbers NumPy's lexicographic order with NaNs last (the
// complex search_less). T is the common dtype of a and v (the host converts both to it): signed
// and unsigned char, short, int, long long, their unsigned twins, float, double, prim::c64 and
// prim::c128 (bool is searched as unsigned char, float16 as float, both exact).
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
//   search_cached<T, BLOCK, ITEMS>: each block copies tree[0, 2^levels) into dynamic shared
//     memory (16-byte vectors), then each thread takes ITEMS queries of a BLOCK * ITEMS tile
//     (query q of thread t is element t + q * BLOCK of the tile: coalesced loads and stores),
//     descends the top `levels` levels in shared memory and the rest in global memory, its ITEMS
//     searches interleaved step by step so that ITEMS independent loads are in flight per thread;
//     out[i] = the answer of v[i]. (Measured on an H200 past the L2: the bottom levels' random
//     reads are bound by DRAM sectors more than by latency, so this is not faster than binary
//     there; the sorted and bucketed variants below read a in order instead.)
//   search_index<T> / search_tile_range<T, TILE, GROUPS> / search_indexed<T, BLOCK, ITEMS> /
//     search_near<T, BLOCK, ITEMS>: the indexed variant (the tile ranges also the sorted
//     variant's), further below.
// Launch: BLOCK threads; dynamic shared memory = tree_bytes (2^levels * sizeof(T) rounded up to
// 16 bytes), at most the device's opt-in limit. The only barrier follows the tree copy, which
// every thread of the block reaches. Preconditions: n >= 1, m >= 1, 1 <= levels <= 30, tree
// 16-byte aligned with tree_bytes bytes, all of them written (the copy reads entry 0, the absent
// nodes' entries and the padding as part of its vectors, though their values are never used:
// the host zeroes the tree once, search_tree writes only the nodes), out has m int64 entries,
// perm (when P is not void) a permutation of [0, m).
#include "util/prim.cuh"
#include "util/complex.cuh"
#include "util/load.cuh"
#include "util/pack16.cuh"
#include "warp/shfl.cuh"

namespace prim {
namespace search {

// NumPy's order: a NaN follows every number, and NaNs are equal.
template <class T>
__device__ __forceinline__ bool search_less(T x, T y) {
    return x < y || (is_nan(y) && !is_nan(x));
}

// NumPy's complex order (its CFLOAT_LT): numbers with no NaN part by (real, imag), then R + nan j by
// the real part, then nan + R j by the imaginary part, then nan + nan j, all equal.
template <class R>
__device__ __forceinline__ bool search_less(Complex<R> a, Complex<R> b) {
    const bool an = a.re != a.re, bn = b.re != b.re, ain = a.im != a.im, bin = b.im != b.im;
    if (a.re < b.re) return !ain || bin;
    if (a.re > b.re) return bin && !ain;
    if (a.re == b.re || (an && bn)) return a.im < b.im || (bin && !ain);
    return bn;
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

// (lo, len) of node `path` (its `levels` bits, the first step the highest) of the tree over [0, n).
__device__ __forceinline__ void walk(long long path, int levels, long long n, long long& lo,
                                     long long& len) {
    lo = 0;
    len = n;
    for (int d = levels - 1; d >= 0 && len > 0; --d) {
        const long long half = len >> 1;
        if ((path >> d) & 1) {
            lo += half + 1;
            len -= half + 1;
        } else {
            len = half;
        }
    }
}

// Copy the tree's tree_vectors 16-byte vectors into shared memory (the caller's barrier follows).
template <class T>
__device__ __forceinline__ void copy_tree(const T* tree, T* top, int tree_vectors) {
    uint4* dst = reinterpret_cast<uint4*>(top);
    const uint4* src = reinterpret_cast<const uint4*>(tree);
    for (int j = threadIdx.x; j < tree_vectors; j += blockDim.x) dst[j] = __ldg(src + j);
}

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
    for (long long k = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x + 1; k < nodes;
         k += stride) {
        int depth = 0;
        while ((k >> (depth + 1)) != 0) ++depth;  // the level of node k: its bits after the 1
        long long lo, len;
        prim::search::walk(k, depth, n, lo, len);
        if (len > 0) tree[k] = a[lo + (len >> 1)];
    }
}

template <class T, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    search_cached(const T* __restrict__ a, long long n, const T* __restrict__ tree, int levels,
                  int tree_vectors, const T* __restrict__ v, long long m, int right,
                  long long* __restrict__ out) {
    PRIM_DYNAMIC_SHARED(T, top);
    prim::search::copy_tree(tree, top, tree_vectors);
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
            if (i < m) out[i] = lo[k];
        }
    }
}

// ---- bucketed: the queries grouped by the node they reach at the tree's level `levels` -------
// The grouping kernels take the queries in chunks, one per block (chunk = ceil(m / grid)), and
// count in shared memory, so that a bucket's global counter sees one atomic per block, not one per
// query (2^24 queries in a few buckets would serialize on them).
// search_bucket<T>: each query descends the top `levels` levels in shared memory (the tree of
//   search_tree, as search_cached) to its bucket, the node it reaches at level `levels` (a path
//   that ends sooner goes on with 0 bits: its node keeps len == 0), numbered left to right;
//   bucket[i] = that number; the block's counts go to count[] (one atomicAdd per bucket and
//   block). Dynamic shared memory: the tree (16 * tree_vectors bytes), then 2^levels counters.
// search_scatter<T, P>: the block counts its chunk's queries per bucket again, claims a run of
//   each bucket's slots (atomicAdd on cursor[bucket], which the host set to the buckets'
//   exclusive offsets), then each query takes the next slot of its bucket's run (a shared
//   atomic), writes its value there (qv: the queries grouped by bucket, in no order within a
//   bucket) and the slot to pos[i] (coalesced). Dynamic shared memory: 2^levels 8-byte bases,
//   then 2^levels counters.
//   Both: any 1-D grid; barriers in code every thread of the block runs.
// search_buckets<T, BLOCK>: block per bucket (grid-stride over buckets): the bucket's node
//   (lo, len) from its number's bits; when len <= cap, a[lo, lo + len) is copied into dynamic
//   shared memory (cap elements) and the bucket's queries finish their search there, else in
//   global memory; grouped[j] = the answer of qv[j] (coalesced). Barriers at the top and after
//   the copy of every bucket, in code every thread of the block runs (the loop over buckets is
//   uniform; an empty bucket is skipped by the whole block).
// search_gather<P>: out[i] = grouped[pos[i]]: the answers back in the queries' order, a random
//   read per query rather than a random write (no read-modify-write of partial sectors). Any
//   1-D grid.
// Preconditions: count zeroed; offsets[b] the exclusive scan of count, offsets[buckets] = m.

template <class T>
__global__ void search_bucket(const T* __restrict__ tree, int levels, int tree_vectors, long long n,
                              const T* __restrict__ v, long long m, long long chunk, int right,
                              unsigned* __restrict__ bucket,
                              unsigned long long* __restrict__ count) {
    PRIM_DYNAMIC_SHARED(unsigned char, smem);
    T* top = reinterpret_cast<T*>(smem);
    unsigned* hist = reinterpret_cast<unsigned*>(smem + 16 * tree_vectors);
    const int buckets = 1 << levels;
    prim::search::copy_tree(tree, top, tree_vectors);
    for (int b = threadIdx.x; b < buckets; b += blockDim.x) hist[b] = 0u;
    __syncthreads();
    const bool up = right != 0;
    const long long first = static_cast<long long>(blockIdx.x) * chunk;
    const long long last = first + chunk < m ? first + chunk : m;
    for (long long i = first + threadIdx.x; i < last; i += blockDim.x) {
        const T q = v[i];
        long long lo = 0, len = n, node = 1;
        for (int level = 0; level < levels; ++level) {
            int bit = 0;
            if (len > 0) {
                const long long before = lo;
                prim::search::step(top[node], q, up, lo, len);
                bit = lo != before;
            }
            node = 2 * node + bit;
        }
        const unsigned b = static_cast<unsigned>(node - (1ll << levels));
        bucket[i] = b;
        atomicAdd(hist + b, 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < buckets; b += blockDim.x)
        if (hist[b]) atomicAdd(count + b, static_cast<unsigned long long>(hist[b]));
}

template <class T, class P>
__global__ void search_scatter(const T* __restrict__ v, const unsigned* __restrict__ bucket,
                               long long m, long long chunk, int levels,
                               unsigned long long* __restrict__ cursor, T* __restrict__ qv,
                               P* __restrict__ pos) {
    PRIM_DYNAMIC_SHARED(unsigned long long, base);
    const int buckets = 1 << levels;
    unsigned* hist = reinterpret_cast<unsigned*>(base + buckets);
    for (int b = threadIdx.x; b < buckets; b += blockDim.x) hist[b] = 0u;
    __syncthreads();
    const long long first = static_cast<long long>(blockIdx.x) * chunk;
    const long long last = first + chunk < m ? first + chunk : m;
    for (long long i = first + threadIdx.x; i < last; i += blockDim.x)
        atomicAdd(hist + bucket[i], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < buckets; b += blockDim.x) {
        if (hist[b]) base[b] = atomicAdd(cursor + b, static_cast<unsigned long long>(hist[b]));
        hist[b] = 0u;
    }
    __syncthreads();
    for (long long i = first + threadIdx.x; i < last; i += blockDim.x) {
        const unsigned b = bucket[i];
        const unsigned long long slot = base[b] + atomicAdd(hist + b, 1u);
        qv[slot] = v[i];
        pos[i] = static_cast<P>(slot);
    }
}

template <class P>
__global__ void search_gather(const long long* __restrict__ grouped, const P* __restrict__ pos,
                              long long m, long long* __restrict__ out) {
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < m;
         i += stride)
        out[i] = grouped[pos[i]];
}

template <class T, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    search_buckets(const T* __restrict__ a, long long n, int levels, long long cap,
                   const unsigned long long* __restrict__ offsets, const T* __restrict__ qv,
                   int right, long long* __restrict__ grouped) {
    PRIM_DYNAMIC_SHARED(T, part);
    const bool up = right != 0;
    const long long buckets = 1ll << levels;
    for (long long b = blockIdx.x; b < buckets; b += gridDim.x) {
        const long long first = static_cast<long long>(offsets[b]);
        const long long last = static_cast<long long>(offsets[b + 1]);
        if (last == first) continue;  // the same for the whole block: no barrier skipped by some
        long long lo0, len0;
        prim::search::walk(b, levels, n, lo0, len0);
        const bool local = len0 <= cap;
        __syncthreads();  // the previous bucket's searches are done with `part`
        if (local)
            for (long long j = threadIdx.x; j < len0; j += BLOCK) part[j] = a[lo0 + j];
        __syncthreads();
        for (long long j = first + threadIdx.x; j < last; j += BLOCK) {
            const T q = qv[j];
            long long lo = lo0, len = len0;
            if (local) {
                while (len > 0) prim::search::step(part[lo - lo0 + (len >> 1)], q, up, lo, len);
            } else {
                while (len > 0) prim::search::step(a[lo + (len >> 1)], q, up, lo, len);
            }
            grouped[j] = lo;
        }
    }
}

// search_sorted_tiles<T, P, BLOCK, ITEMS>: the sorted variant's search. The queries v are sorted
//   (NumPy's order, in which the answers do not decrease), so the answers of a tile of BLOCK *
//   ITEMS consecutive queries lie in [r0, r1], the answers of its first query and of the next
//   tile's first (the last query's for the last tile: search_tile_range, further below, with a
//   span of n: no early stop). When that range of a holds at most cap elements it is copied into
//   dynamic shared memory (cap elements) and the tile's queries search it there, else they
//   search a's range in global memory. out[perm[j]] = the answer of v[j] (perm: each query's
//   original position). Grid-stride over tiles; barriers at the top of every tile and after the
//   copy, in code every thread of the block runs. Precondition: v sorted.
template <class T, class P, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    search_sorted_tiles(const T* __restrict__ a, long long cap,
                        const long long* __restrict__ bounds, const T* __restrict__ v, long long m,
                        int right, const P* __restrict__ perm, long long* __restrict__ out) {
    PRIM_DYNAMIC_SHARED(T, part);
    const bool up = right != 0;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    for (long long base = static_cast<long long>(blockIdx.x) * TILE; base < m;
         base += static_cast<long long>(gridDim.x) * TILE) {
        const long long t = base / TILE;
        const long long r0 = bounds[2 * t];
        const long long r1 = bounds[2 * t + 1] > r0 ? bounds[2 * t + 1] : r0;
        const bool local = r1 - r0 <= cap;
        __syncthreads();  // the previous tile is done with `part`
        if (local)
            for (long long j = threadIdx.x; j < r1 - r0; j += BLOCK) part[j] = a[r0 + j];
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long j = base + threadIdx.x + static_cast<long long>(k) * BLOCK;
            if (j < m) {
                const T q = v[j];
                long long lo = r0, len = r1 - r0;
                if (local) {
                    while (len > 0) prim::search::step(part[lo - r0 + (len >> 1)], q, up, lo, len);
                } else {
                    while (len > 0) prim::search::step(a[lo + (len >> 1)], q, up, lo, len);
                }
                out[perm[j]] = lo;
            }
        }
    }
}

// ---- indexed: a static index over a, a group of 16 entries read per level -----------------
// The index is a B+-tree without pointers: level 0 is a itself, level k (k >= 1) holds every
// 16^k-th element of a (level k-1's every 16th), ceil(n / 16^k) entries, the levels 1, 2, ...
// one after the other in one buffer, each rounded up to a multiple of 16 entries (so that every
// group of 16 starts 16-byte aligned). The top level `depth` (a itself when depth == 0) has at
// most the shared memory's capacity of entries.
// A query's count at level k is c_k = the number of level-k entries that send it up (for a
// sorted a: that precede it, or for side "right" that do not follow it); c_depth comes from a
// binary search of the top level in shared memory. Then, level by level down to a, the group
// g = max(c_{k+1} - 1, 0) of 16 entries of level k is read and c_k = 16 g + the group's entries
// that send the query up; c_0 is the answer. For a sorted a: entry 16 g of level k is entry g of
// level k + 1, which sends the query up when c_{k+1} >= 1, and entry 16 (g + 1) is the first
// that does not; when c_{k+1} == 0 no entry of group 0 does. For any a, 16 g < (level k's size)
// and a group is read only within its level, so an unsorted a never reads out of bounds:
// c_k <= level k's size.
// A group is 16 * sizeof(T) bytes, read by a team of LG = sizeof(T) lanes, a 16-byte piece each
// (one 64-byte line for float32 read by four lanes), their counts summed by xor shuffles within
// the team: a warp's load instruction touches 32 / LG lines, not 32 (measured faster than a
// thread reading its own groups where the levels sit in the L2).
// One query costs the top's bisection in shared memory and one group per level: for 2^26
// float32 and 64 KiB of top, groups of levels 2 and 1 (1 MiB and 16 MiB: L2-resident) and one
// 64-byte group of a from DRAM, against a random sector per step of a plain binary search past
// the top levels.
// search_index<T>: one thread per level-1 entry i (grid-stride): index[i] = a[16 i], and the
//   entries of the levels above that are the same element. Any 1-D grid. Gated (epoch != 0,
//   with near tiles): the whole launch returns at once unless *far == epoch, i.e. unless
//   search_tile_range found a tile that is not near (sorted queries build no index).
// search_indexed<T, BLOCK, ITEMS>: each block copies the top level into dynamic shared memory
//   (one barrier, reached by every thread), then grid-stride over tiles of BLOCK * ITEMS queries.
//   A warp takes ITEMS batches of 32 consecutive queries: lane l loads query l of each batch
//   (coalesced) and bisects the top for it by powers of two; then round r of a batch gives query
//   r * (32 / LG) + t to team t (its value and count shuffled from the owner), every round's
//   group loads of a level are issued before any is compared, and the team's first lane writes
//   the answer. The side is a template parameter of the body (indexed_tiles), chosen once per
//   launch. Warp-synchronous: every lane runs every shuffle (lanes past m carry the query T(),
//   read only groups within their levels, and write nothing). BLOCK a multiple of 32.
//   Dynamic shared memory: the top level's entries rounded up to 16 bytes.
//   Near tiles: with span >= 0 and `bounds` (search_tile_range's, for tiles of BLOCK * ITEMS
//   queries; not read when span < 0), a tile whose range (its first query's answer to the next
//   tile's first's) spans at most `span` elements (sorted or nearly sorted queries) is left to
//   search_near. The choice is the tile's, the same for the whole block. For an unsorted a the
//   range is still within [0, n]. Gated as search_index: with no tile that is not near, every
//   block returns before it copies the top level.
// search_near<T, BLOCK, ITEMS>: the near tiles, the same grid-stride over the same tiles: the
//   block reads the bounds of BLOCK of its tiles at once (a thread each, into static shared
//   memory), and for each near one copies a[r0, r1) and the element just past each end (where
//   a has one) into dynamic shared memory (coalesced, NEAR_LOADS loads in flight a thread; span
//   + 2 elements at most), where the tile's queries bisect the range (a tile's queries read and
//   answers written coalesced, ITEMS searches a thread interleaved, each the same
//   ceil(log2(range)) steps with no branch); each answer is checked against the copies of the
//   elements past the range's ends and, when outside (unsorted queries), searched for on that
//   side, galloping out from the range's end (near_answer).
//   Barriers around each near tile's copy, in code the whole block runs (a tile's choice is
//   uniform). PREFETCH: before a near tile's copy, the block asks the L2 cache for the next near
//   tile of its batch (its range with the two neighbours, and its queries; util/load.cuh's
//   prefetch_l2), so that copy waits for the L2 rather than DRAM. Dynamic shared memory: span + 2
//   elements (the range and its two neighbours) rounded up to 16 bytes.
// Preconditions: n >= 1; index holds the levels 1..depth as above (search_index), depth >= 0 with
// level `depth` fitting the shared memory given; out has m int64 entries; bounds, when given,
// 2 * ceil(m / (BLOCK * ITEMS)) entries in [0, n] when span >= 0.
namespace prim {
namespace search {

constexpr int FANOUT = 16;

__device__ __forceinline__ long long fan_in(long long len) { return (len + FANOUT - 1) / FANOUT; }
__device__ __forceinline__ long long padded(long long len) { return fan_in(len) * FANOUT; }

// Entries of level k: ceil(n / 16^k).
__device__ __forceinline__ long long level_size(long long n, int k) {
    for (int j = 0; j < k; ++j) n = fan_in(n);
    return n;
}

// Offset of level k >= 1 in the index buffer (the levels 1..k-1 before it, each padded).
__device__ __forceinline__ long long level_offset(long long n, int k) {
    long long off = 0;
    for (int j = 1; j < k; ++j) {
        n = fan_in(n);
        off += padded(n);
    }
    return off;
}

// One entry through the read-only cache (__ldg takes the built-in types; a complex entry is its
// two parts).
template <class T> __device__ __forceinline__ T load_entry(const T* p) { return __ldg(p); }
template <class R> __device__ __forceinline__ Complex<R> load_entry(const Complex<R>* p) {
    const R* r = reinterpret_cast<const R*>(p);
    return Complex<R>(__ldg(r), __ldg(r + 1));
}

// A lane's piece of a group: the entries [start, start + N) of L (len entries). `full`: the
// whole group lies in L and is 16-byte aligned (one 16-byte load); else entry by entry, entries
// past len left as T().
template <class T>
__device__ __forceinline__ Pack16<T> load_piece(const T* L, long long len, long long start,
                                                bool full) {
    if (full) return load_pack16(L + start);
    Pack16<T> p;
#pragma unroll
    for (int e = 0; e < Pack16<T>::N; ++e)
        p.v[e] = start + e < len ? load_entry(L + start + e) : T();
    return p;
}

}  // namespace search
}  // namespace prim

template <class T>
__global__ void search_index(const T* __restrict__ a, long long n, int depth, T* __restrict__ index,
                             const unsigned* __restrict__ far, unsigned epoch) {
    using prim::search::FANOUT;
    if (epoch != 0 && *far != epoch) return;  // every tile near: no query reads the index
    const long long n1 = prim::search::fan_in(n);
    const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
    for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < n1;
         i += stride) {
        const T x = a[i * FANOUT];
        index[i] = x;
        long long len = n1, off = prim::search::padded(n1), j = i;
        for (int k = 2; k <= depth && j % FANOUT == 0; ++k) {
            j /= FANOUT;
            index[off + j] = x;
            len = prim::search::fan_in(len);
            off += prim::search::padded(len);
        }
    }
}

namespace prim {
namespace search {

// Whether the entry x sends the query q up (side "right" when RIGHT), in NumPy's order: goes_up
// with the side a template parameter and qnan = is_nan(q) found once per query (measured faster
// in the indexed kernel's inner loop): left, x < q (a NaN query: every number); right, not
// q < x (x a NaN only for a NaN query). For integers x == x folds to true and qnan is false.
template <bool RIGHT, class T>
__device__ __forceinline__ bool sends_up(T x, T q, bool qnan) {
    if constexpr (RIGHT)
        return !(q < x) && (qnan || x == x);
    else
        return x < q || (qnan && x == x);
}

// sends_up of complex entries: NumPy's complex order (search_less), NaNs included.
template <bool RIGHT, class R>
__device__ __forceinline__ bool sends_up(Complex<R> x, Complex<R> q, bool) {
    return RIGHT ? !search_less(q, x) : search_less(x, q);
}

// One step of a bisection of [lo, lo + len) (step with the side a template parameter and the
// query's NaN test found once: sends_up): x, the element at lo + len / 2.
template <bool RIGHT, class T>
__device__ __forceinline__ void step_up(T x, T q, bool qnan, long long& lo, long long& len) {
    const long long half = len >> 1;
    if (sends_up<RIGHT>(x, q, qnan)) {
        lo += half + 1;
        len -= half + 1;
    } else {
        len = half;
    }
}

// The answer of q when a search of a's range [r0, r0 + len) gave lo (an end of the range may
// hide an answer outside it, for unsorted queries): checked against the element past that end
// (below = a[r0 - 1] must send the query up, above = a[r0 + len] must not; each read only where
// it exists: the caller's copies of them), else found on that side by a galloping search from
// that end (probes 1, 2, 4, ... elements further out until one brackets the answer, then a
// bisection of the bracket: about 2 log2(d) loads for an answer d elements out, which for nearly
// sorted queries is close, in lines the range's copy left in the L2). For any a every probe lies
// in [0, total) and the gallop ends within 64 doublings.
template <bool RIGHT, class T>
__device__ __forceinline__ long long near_answer(const T* __restrict__ a, long long total,
                                                 long long r0, long long len, long long lo, T q,
                                                 bool qnan, T below, T above) {
    long long from, count;
    if (lo == r0 && r0 > 0 && !sends_up<RIGHT>(below, q, qnan)) {
        // below the range: a[hi] does not send q up, so the answer is at most hi
        long long hi = r0 - 1, d = 1;
        while (hi - d >= 0 && !sends_up<RIGHT>(load_entry(a + hi - d), q, qnan)) {
            hi -= d;
            d <<= 1;
        }
        from = hi - d >= 0 ? hi - d + 1 : 0;  // a[hi - d] sends q up (or is past a's start)
        count = hi - from;
    } else if (lo == r0 + len && r0 + len < total && sends_up<RIGHT>(above, q, qnan)) {
        // above it: a[low - 1] sends q up, so the answer is at least low
        long long low = r0 + len + 1, d = 1;
        while (low + d - 1 < total && sends_up<RIGHT>(load_entry(a + low + d - 1), q, qnan)) {
            low += d;
            d <<= 1;
        }
        from = low;  // a[low + d - 1] does not send q up (or is past a's end)
        count = (low + d - 1 < total ? low + d - 1 : total) - low;
    } else {
        return lo;
    }
    // the answer is in [from, from + count]
    while (count > 0) step_up<RIGHT>(load_entry(a + from + (count >> 1)), q, qnan, from, count);
    return from;
}

// search_near's body for one side: the near tiles of the grid-stride over tiles of BLOCK * ITEMS
// queries. The block reads the bounds of BLOCK of its tiles at once (a thread each, into `lows`
// and `lens`), then for each near one copies a[r0, r1) and the element past each end (where a
// has one) into `s` (coalesced, NEAR_LOADS loads in flight a thread), and query k * BLOCK +
// threadIdx.x of the tile bisects the range there, its ITEMS searches interleaved step by step
// (branch-free: the same steps for every query of the tile); each answer checked at the range's
// ends against those copies (near_answer: no load from a unless an answer lies outside the
// range, i.e. unsorted queries).
constexpr int NEAR_LOADS = 8;
template <bool RIGHT, class T, int BLOCK, int ITEMS, int PREFETCH>
__device__ __forceinline__ void near_tiles(const T* __restrict__ a, long long n,
                                           const T* __restrict__ v, long long m,
                                           const long long* __restrict__ bounds, long long span,
                                           long long* __restrict__ out, T* s, long long* lows,
                                           int* lens) {
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    const long long tiles = (m + TILE - 1) / TILE;
    for (long long batch = blockIdx.x; batch < tiles;
         batch += static_cast<long long>(gridDim.x) * BLOCK) {
        {  // the bounds of the block's next BLOCK tiles: tile batch + j * gridDim.x, thread j
            const long long t = batch + static_cast<long long>(threadIdx.x) * gridDim.x;
            int len = -1;  // not near, or past the last tile
            long long r0 = 0;
            if (t < tiles) {
                const long long b0 = bounds[2 * t], b1 = bounds[2 * t + 1];
                r0 = b0 < b1 ? b0 : b1;
                const long long r1 = b0 < b1 ? b1 : b0;
                if (r1 - r0 <= span) len = static_cast<int>(r1 - r0);
            }
            __syncthreads();  // the previous batch's last tile is done with lows and lens
            lows[threadIdx.x] = r0;
            lens[threadIdx.x] = len;
            __syncthreads();
        }
        // the batch's tiles: batch + j * gridDim.x below `tiles` (BLOCK at most)
        const long long left = (tiles - batch + gridDim.x - 1) / gridDim.x;
        const int count = left < BLOCK ? static_cast<int>(left) : BLOCK;
        for (int j = 0; j < count; ++j) {
            const int len = lens[j];  // the same for the whole block
            if (len < 0) continue;
            const long long r0 = lows[j];
            // the copy: a[c0, c1), the range and the element past each end where a has one
            const int off = r0 > 0 ? 1 : 0;  // the range's first element in s
            const long long c0 = r0 - off;
            const int clen = off + len + (r0 + len < n ? 1 : 0);
            const long long base = (batch + static_cast<long long>(j) * gridDim.x) * TILE;
            // the batch's next near tile (its range and its queries), into the L2 cache
            if (PREFETCH && j + 1 < count && lens[j + 1] >= 0) {
                const long long r0n = lows[j + 1];
                prim::prefetch_l2<BLOCK>(r0n > 0 ? r0n - 1 : 0, lens[j + 1] + 2, n, a);
                prim::prefetch_l2<BLOCK>(base + static_cast<long long>(gridDim.x) * TILE, TILE, m,
                                         v);
            }
            T q[ITEMS];  // the tile's queries, loaded before the range's copy (both in flight)
            bool qnan[ITEMS];
            unsigned lo[ITEMS];
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const long long i = base + static_cast<long long>(k) * BLOCK + threadIdx.x;
                q[k] = i < m ? v[i] : T();
            }
            for (int c = threadIdx.x; c < clen; c += BLOCK * NEAR_LOADS) {
                T x[NEAR_LOADS];
#pragma unroll
                for (int u = 0; u < NEAR_LOADS; ++u) {
                    const int e = c + u * BLOCK;
                    x[u] = e < clen ? load_entry(a + c0 + e) : T();
                }
#pragma unroll
                for (int u = 0; u < NEAR_LOADS; ++u)
                    if (c + u * BLOCK < clen) s[c + u * BLOCK] = x[u];
            }
            const T* range = s + off;
            __syncthreads();
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                qnan[k] = q[k] != q[k];
                lo[k] = 0u;
            }
            // every query's answer lies in [lo, lo + w]; a probe of range[lo + w / 2] keeps the
            // upper or the lower part, both w - w / 2 wide: ceil(log2(len)) steps for each query
            // of the tile (len is the tile's: no branch), then range[lo] decides between lo and
            // lo + 1 (every index probed is below lo + w <= len)
            // (lo in bytes while it moves: one add a probe's address)
            const char* bytes = reinterpret_cast<const char*>(range);
            for (int w = len; w > 1;) {
                const int half = w >> 1;
                const unsigned step = static_cast<unsigned>(half) * sizeof(T);
#pragma unroll
                for (int k = 0; k < ITEMS; ++k) {
                    const T x = *reinterpret_cast<const T*>(bytes + lo[k] + step);
                    lo[k] += sends_up<RIGHT>(x, q[k], qnan[k]) ? step : 0u;
                }
                w -= half;
            }
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                lo[k] /= static_cast<unsigned>(sizeof(T));
                if (len > 0) lo[k] += sends_up<RIGHT>(range[lo[k]], q[k], qnan[k]) ? 1u : 0u;
            }
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
                const long long i = base + static_cast<long long>(k) * BLOCK + threadIdx.x;
                if (i < m)
                    out[i] = near_answer<RIGHT>(a, n, r0, len, r0 + lo[k], q[k], qnan[k],
                                                range[-off], range[clen - off - 1]);
            }
            __syncthreads();  // every search is done with s before the next tile's copy
        }
    }
}

// search_indexed's body for one side (the kernel takes the side at run time, uniform).
template <bool RIGHT, class T, int BLOCK, int ITEMS>
__device__ __forceinline__ void indexed_tiles(const T* __restrict__ a, long long n,
                                              const T* __restrict__ index, int depth,
                                              const T* __restrict__ v, long long m,
                                              long long* __restrict__ out, const T* top, int ntop,
                                              const long long* __restrict__ bounds,
                                              long long span) {
    constexpr int N = Pack16<T>::N;  // entries of a lane's 16-byte piece
    constexpr int LG = FANOUT / N;   // lanes per group: sizeof(T)
    constexpr int QPR = WARP / LG;   // groups a warp reads per round
    int top_step = 1;                // the largest power of two <= ntop
    while (2 * top_step <= ntop) top_step *= 2;
    const bool a_vec = (reinterpret_cast<uptr>(a) & 15u) == 0;
    const int lane = threadIdx.x % WARP;
    const int team = lane / LG, piece = lane % LG;
    constexpr long long TILE = static_cast<long long>(BLOCK) * ITEMS;
    const long long stride = static_cast<long long>(gridDim.x) * TILE;
    // the bounds of the block's tile, read one tile ahead (not a dependent load per tile)
    auto bounds_of = [&](long long base, long long& b0, long long& b1) {
        b0 = b1 = -1;  // none: a tile past m, or no near tiles
        if (span >= 0 && base < m) {
            b0 = bounds[2 * (base / TILE)];
            b1 = bounds[2 * (base / TILE) + 1];
        }
    };
    long long b0, b1;
    bounds_of(static_cast<long long>(blockIdx.x) * TILE, b0, b1);
    for (long long base = static_cast<long long>(blockIdx.x) * TILE; base < m; base += stride) {
        const long long r0 = b0 < b1 ? b0 : b1, r1 = b0 < b1 ? b1 : b0;
        bounds_of(base + stride, b0, b1);  // the next tile's
        if (span >= 0 && r1 - r0 <= span) continue;  // a near tile: search_near's
        const long long wbase = base + static_cast<long long>(threadIdx.x / WARP) * WARP * ITEMS;
        // the lane's own queries, and their counts at the top level: bisection by powers of two
        // (the count is the length of the prefix of entries that send the query up)
        T q[ITEMS];
        int c[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long i = wbase + k * WARP + lane;
            q[k] = i < m ? v[i] : T();
            const bool qnan = q[k] != q[k];
            int lo = 0;
            for (int step = top_step; step > 0; step >>= 1)
                if (lo + step <= ntop && sends_up<RIGHT>(top[lo + step - 1], q[k], qnan))
                    lo += step;
            c[k] = lo;
        }
        // the teams' queries: round r of batch k gives team t query r * QPR + t
        T tq[ITEMS][LG];
        bool tnan[ITEMS][LG];
        long long tc[ITEMS][LG];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
#pragma unroll
            for (int r = 0; r < LG; ++r) {
                tq[k][r] = shfl_idx(q[k], r * QPR + team);
                tnan[k][r] = tq[k][r] != tq[k][r];
                tc[k][r] = __shfl_sync(FULL_MASK, c[k], r * QPR + team);
            }
        }
        // a group per level down to a
        for (int level = depth - 1; level >= 0; --level) {
            const T* L = level == 0 ? a : index + level_offset(n, level);
            const long long len = level_size(n, level);
            const bool vec = level > 0 || a_vec;
            Pack16<T> x[ITEMS][LG];
            long long g[ITEMS][LG];
            int avail[ITEMS][LG];
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
#pragma unroll
                for (int r = 0; r < LG; ++r) {
                    g[k][r] = (tc[k][r] > 0 ? tc[k][r] - 1 : 0) * FANOUT;
                    const long long start = g[k][r] + piece * N;
                    avail[k][r] = start + N <= len ? N : (start < len ? int(len - start) : 0);
                    x[k][r] = load_piece(L, len, start, vec && g[k][r] + FANOUT <= len);
                }
            }
#pragma unroll
            for (int k = 0; k < ITEMS; ++k) {
#pragma unroll
                for (int r = 0; r < LG; ++r) {
                    int cnt = 0;
#pragma unroll
                    for (int e = 0; e < N; ++e)
                        cnt +=
                            (e < avail[k][r]) & sends_up<RIGHT>(x[k][r].v[e], tq[k][r], tnan[k][r]);
#pragma unroll
                    for (int s = 1; s < LG; s <<= 1) cnt += __shfl_xor_sync(FULL_MASK, cnt, s);
                    tc[k][r] = g[k][r] + cnt;
                }
            }
        }
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
#pragma unroll
            for (int r = 0; r < LG; ++r) {
                const long long i = wbase + k * WARP + r * QPR + team;
                if (piece == 0 && i < m) out[i] = tc[k][r];
            }
        }
    }
}

// The answers in a[0, n) of the queries of a warp's GROUPS groups of L = 32 / GROUPS lanes (q:
// the group's own; a group that is not `active` searches nothing), found together by an L-ary
// search each: a group probes L increasing positions of its range [lo, hi] (every position once
// hi - lo <= L), counts by a ballot the probes that send its query up (for a sorted a, the
// first k) and keeps the part between the k-th probe and the next: about 1 / (L + 1) of the
// range a step (9 steps for 2^26 elements with L = 8). The groups step together; after every
// step, a pair of neighbouring groups (g, g + 1) whose ranges lie more than `span` elements
// apart has answers as far apart: bit g of the result (far pairs). The search stops once every
// pair of `pairs` is far (random queries: in a step or two, at positions the L2 keeps); else
// every lane of an active group ends with its answer in `c`. For any a, lo <= hi within [0, n]
// every step and each range shrinks until it is empty, so it ends. Called by whole warps (n >=
// 1); the result is the same for every lane.
template <bool RIGHT, class T, int GROUPS>
__device__ __forceinline__ unsigned group_answers(const T* __restrict__ a, long long n, T q,
                                                  bool active, long long span, unsigned pairs,
                                                  long long& c) {
    static_assert(GROUPS >= 2 && GROUPS <= 16 && WARP % GROUPS == 0, "group_answers: GROUPS");
    constexpr int L = WARP / GROUPS;
    const int lane = threadIdx.x % WARP;
    const int rank = lane % L, shift = lane - rank;
    const bool qnan = q != q;
    long long lo = 0, hi = active ? n : 0;
    unsigned far = 0;
    while (__any_sync(FULL_MASK, hi > lo)) {
        const bool open = hi > lo;
        const long long len = hi - lo;
        const bool every = len <= L;
        auto probe = [&](int j) { return every ? lo + j : lo + ((j + 1) * len) / (L + 1); };
        const bool up =
            open && (!every || rank < len) && sends_up<RIGHT>(load_entry(a + probe(rank)), q, qnan);
        const int k = __popc((__ballot_sync(FULL_MASK, up) >> shift) & ((1u << L) - 1u));
        if (open) {
            const long long new_lo = k == 0 ? lo : probe(k - 1) + 1;
            hi = every ? new_lo : (k == L ? hi : probe(k));  // every position probed: the answer
            lo = new_lo;
        }
        // the next group's range (the last group's own: its pair bit is never asked for)
        const long long nlo = __shfl_down_sync(FULL_MASK, lo, L);
        const long long nhi = __shfl_down_sync(FULL_MASK, hi, L);
        const unsigned b =
            __ballot_sync(FULL_MASK, rank == 0 && (nlo - hi > span || lo - nhi > span));
#pragma unroll
        for (int g = 0; g + 1 < GROUPS; ++g) far |= ((b >> (g * L)) & 1u) << g;
        if (pairs != 0 && (far & pairs) == pairs) return far;  // uniform: ballots
    }
    c = lo;
    return far;
}

}  // namespace search
}  // namespace prim

// search_tile_range<T, TILE, GROUPS>: the tile ranges of the indexed variant (near tiles) and of
//   the sorted variant (its tiles of sorted queries; a span of n: never stopped early). A warp
//   takes GROUPS - 1 consecutive tiles of TILE queries at a time (grid-stride over such tasks):
//   its group g searches the first query of tile t0 + g, or the last query of all for t0 + g ==
//   tiles (group_answers), so that tile t's range runs from its first query's answer to the next
//   tile's first query's (the last query's for the last tile): GROUPS searches for GROUPS - 1
//   tiles. A tile whose two answers are proven more than `span` elements apart stops there:
//   bounds (0, n), never near, and (when epoch != 0) *far = epoch, which tells the index's build
//   and the indexed search that some tile needs them. Else bounds[2t] and bounds[2t + 1] hold
//   the two answers: for sorted queries (ascending or descending) every answer of the tile lies
//   in between; the search checks each answer against the range's ends (near_answer). Any 1-D
//   grid of whole warps; TILE a multiple of 32; n >= 1.
template <class T, int TILE, int GROUPS>
__global__ void search_tile_range(const T* __restrict__ a, long long n, const T* __restrict__ v,
                                  long long m, int right, long long span,
                                  long long* __restrict__ bounds, unsigned* __restrict__ far,
                                  unsigned epoch) {
    static_assert(TILE % prim::WARP == 0, "search_tile_range: TILE must be a multiple of 32");
    using namespace prim::search;
    constexpr int L = prim::WARP / GROUPS;
    const int lane = threadIdx.x % prim::WARP;
    const int g = lane / L;
    const long long tiles = (m + TILE - 1) / TILE;
    const long long tasks = (tiles + GROUPS - 2) / (GROUPS - 1);
    const long long warps = static_cast<long long>(gridDim.x) * (blockDim.x / prim::WARP);
    for (long long task = static_cast<long long>(blockIdx.x) * (blockDim.x / prim::WARP) +
             threadIdx.x / prim::WARP;
         task < tasks; task += warps) {
        const long long t0 = task * (GROUPS - 1), t = t0 + g;
        const bool active = t <= tiles;
        const T q = active ? v[t < tiles ? t * TILE : m - 1] : T();
        // the task's tiles (GROUPS - 1 but at the end): pairs (g, g + 1) for g below that
        const int own = tiles - t0 < GROUPS - 1 ? static_cast<int>(tiles - t0) : GROUPS - 1;
        const unsigned pairs = (1u << own) - 1u;
        long long c = 0;
        const unsigned f = right ? group_answers<true, T, GROUPS>(a, n, q, active, span, pairs, c)
                                 : group_answers<false, T, GROUPS>(a, n, q, active, span, pairs, c);
        const long long next = __shfl_down_sync(prim::FULL_MASK, c, L);  // group g + 1's answer
        if (lane % L == 0 && g < own) {
            const bool is_far = (f >> g) & 1u;
            bounds[2 * t] = is_far ? 0 : c;
            bounds[2 * t + 1] = is_far ? n : next;
            if (is_far && epoch != 0) *far = epoch;
        }
    }
}

template <class T, int BLOCK, int ITEMS, int PREFETCH = 0>
__global__ void __launch_bounds__(BLOCK)
    search_near(const T* __restrict__ a, long long n, const T* __restrict__ v, long long m,
                int right, const long long* __restrict__ bounds, long long span,
                long long* __restrict__ out) {
    static_assert(BLOCK <= 1024, "search_near: BLOCK at most 1024");
    PRIM_DYNAMIC_SHARED(T, s);
    __shared__ long long lows[BLOCK];
    __shared__ int lens[BLOCK];
    if (right)
        prim::search::near_tiles<true, T, BLOCK, ITEMS, PREFETCH>(a, n, v, m, bounds, span, out, s,
                                                                  lows, lens);
    else
        prim::search::near_tiles<false, T, BLOCK, ITEMS, PREFETCH>(a, n, v, m, bounds, span, out, s,
                                                                   lows, lens);
}

template <class T, int BLOCK, int ITEMS>
__global__ void __launch_bounds__(BLOCK)
    search_indexed(const T* __restrict__ a, long long n, const T* __restrict__ index, int depth,
                   const T* __restrict__ v, long long m, int right,
                   const long long* __restrict__ bounds, long long span,
                   const unsigned* __restrict__ far, unsigned epoch, long long* __restrict__ out) {
    static_assert(BLOCK % prim::WARP == 0, "search_indexed: BLOCK must be a multiple of 32");
    PRIM_DYNAMIC_SHARED(T, top);
    if (epoch != 0 && *far != epoch) return;  // every tile near: search_near's (uniform)
    const long long ntop = prim::search::level_size(n, depth);
    {
        const T* src = depth == 0 ? a : index + prim::search::level_offset(n, depth);
        for (long long j = threadIdx.x; j < ntop; j += BLOCK) top[j] = src[j];
    }
    __syncthreads();
    if (right)
        prim::search::indexed_tiles<true, T, BLOCK, ITEMS>(a, n, index, depth, v, m, out, top,
                                                           static_cast<int>(ntop), bounds, span);
    else
        prim::search::indexed_tiles<false, T, BLOCK, ITEMS>(a, n, index, depth, v, m, out, top,
                                                            static_cast<int>(ntop), bounds, span);
}
