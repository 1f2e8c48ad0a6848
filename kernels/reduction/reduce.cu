// reduce.cu -- device-wide reduction: the classic ladder (alpha..zeta, after Harris, "Optimizing
// Parallel Reduction in CUDA") and the production kernel.
//
// Every kernel is templated on <InT, AccT, Op>: elements of InT are converted to the accumulator
// AccT on load and combined with Op (prim::Sum/Min/Max<AccT>). Sizes are 64-bit.
//
// Ladder kernels (alpha..epsilon): one partial per block, out[blockIdx.x]; the host relaunches on
// the partials until one value is left. Launch: 1-D, blockDim.x a power of two in [64, 1024],
// dynamic shared memory blockDim.x * sizeof(AccT). Each thread loads 1 element (alpha, beta,
// gamma) or 2 (delta, epsilon); grid = ceil(n / (blockDim.x * items)).
//   alpha   interleaved addressing, `tid % (2*s) == 0`: divergent warps and a slow modulo;
//   beta    interleaved addressing with a strided index: no divergence, but bank conflicts;
//   gamma   sequential addressing: conflict-free, but half the threads idle from the first step;
//   delta   first add during load: each thread adds two elements before the tree;
//   epsilon delta + the last warp unrolled. The original relied on implicit warp-synchronous
//           execution through a volatile pointer; since Volta each step is read, __syncwarp,
//           write, __syncwarp.
// zeta: BLOCK a template parameter (the tree completely unrolled at compile time), static shared
//   memory BLOCK * sizeof(AccT), a grid sized to the machine and a grid-stride loop, so each thread
//   folds many elements before the tree. Launch: blockDim.x == BLOCK; grid any (host: resident
//   blocks), then once more with one block over the partials.
// production: BLOCK threads, grid-stride over 16-byte vectors (VECS independent loads in flight
//   per iteration), a scalar head up to the first 16-byte boundary and a scalar tail, a shuffle-based
//   block reduction (block/reduce.cuh), and a single launch: each block stores its partial, takes
//   a ticket with an atomic, and the block that takes the last ticket reduces the partials in block
//   order (deterministic) and resets the ticket to 0 for the next launch. Shared memory: static,
//   BLOCK/32 accumulators. Preconditions: *tickets == 0 on entry; partials holds gridDim.x values;
//   the input is aligned to sizeof(InT).
//   Narrow inputs (1- and 2-byte: signed/unsigned char, short, unsigned short, prim::f16,
//   prim::bf16) are read
//   16 bytes per load like the others (16 / sizeof(InT) elements: 16 chars, 8 shorts), through
//   Load16 below; the 4- and 8-byte types take util/load.cuh's load16 unchanged. Sums of narrow
//   integers add each 16-byte packet in 32 bits (__dp4a for bytes on the GPU) and the packet's
//   total into the 64-bit accumulator. OutT (default AccT) is the result's type: the accumulator
//   (and the partials, and the shuffles) stay 4 or 8 bytes wide, and only the final value is
//   narrowed (min/max of int8 accumulate in int and store signed char; float16 and bfloat16
//   accumulate in float and store prim::f16 / prim::bf16, rounded to nearest even). Products of
//   narrow integers multiply each packet's elements in 64 bits as a tree (log2 N dependent
//   multiplies) and the packet's
//   product into the 64-bit accumulator; integer products wrap modulo 2^64 as NumPy's. bool is
//   read as prim::Flag (util/flag.cuh: any nonzero byte true, as NumPy reads it): a packet's sum
//   is the count of its nonzero bytes, its product, minimum and maximum whether all or any of
//   them are, word by word (no per-element conversion); min/max store Flag (0 or 1 bytes).
//   Complex inputs (prim::c64, prim::c128 of util/complex.cuh; Sum, Prod, and Min/Max in NumPy's
//   lexicographic order with NaN winning, util/complex.cuh) are read 16
//   bytes per load as well (2 c64 or 1 c128 per packet, through util/pack16.cuh's Pack16); the
//   block's shuffles move them word by word (warp/shfl.cuh) and the last block reads the partials
//   as float2/double2. Preconditions as above: the input aligned to sizeof(InT) (16 bytes for c128).
//   Zipped arrays (InT = prim::Zip<T...>, AccT the prim::Tuple<T...> of a user operator, util/
//   zip.cuh): `in` is the structure of the arrays' pointers; a grid-stride loop reads a tuple per
//   index (each field's load coalesced across the warp, VECS indices in flight per thread), then
//   the same finish; partials and *out hold tuples.
// reduce_masked: NumPy's where= over the whole array, fused on load: element i is read with its
//   mask byte and counts as Op's identity where the byte is 0 (no masked copy of the input). A
//   grid-stride loop of scalar loads (one element and one mask byte per thread per step,
//   coalesced across the warp), then the production kernel's finish: block_reduce, each block's
//   partial, a ticket, and the last block reduces the partials in block order and resets the
//   ticket (grid_finish below). Launch, shared memory and preconditions as production's, and the
//   mask holds n bytes (0 or 1) laid out as the input.
// reduce_rows: one row of `width` contiguous elements per block (rows `blockIdx.x`,
//   `blockIdx.x + gridDim.x`, ...): the block's threads stride over the row, block_reduce, thread
//   0 stores out[row] as OutT. Launch: blockDim.x == BLOCK (a multiple of 32, at most 1024), any
//   grid; static shared memory BLOCK/32 accumulators. Preconditions: width >= 1, the rows laid out
//   one after another (row r at in + r * width). The loop bound and the barrier are block-uniform.
//   It serves reductions over axes the segmented kernels have no instantiation for (complex
//   products, minima and maxima): one pass, reading each element once.
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/pack16.cuh"
#include "util/narrow.cuh"  // prim::f16, prim::bf16
#include "util/flag.cuh"  // prim::Flag (bool)
#include "util/complex.cuh"
#include "util/zip.cuh"  // prim::Zip (tuples of several arrays)
#include "block/reduce.cuh"
#include "device/ticket.cuh"  // last_ticket

namespace prim {

// Loads element i converted to the accumulator, or the identity past the end.
template <class InT, class AccT, class Op>
__device__ __forceinline__ AccT load_or_identity(const InT* in, i64 i, i64 n) {
    return i < n ? static_cast<AccT>(in[i]) : Op::identity();
}

// Sequential-addressing tree over the 2*half values in s, halving while the stride is above
// `stop` (0: down to s[0]; 32: leave 64 values for the unrolled last warp). One barrier per step.
// Precondition: called by every thread of the block.
template <class AccT, class Op>
__device__ __forceinline__ void tree_sequential(AccT* s, unsigned half, unsigned stop, Op op) {
    const unsigned tid = threadIdx.x;
    for (unsigned stride = half; stride > stop; stride >>= 1) {
        if (tid < stride) s[tid] = op(s[tid], s[tid + stride]);
        __syncthreads();
    }
}

// The last warp's six steps, unrolled: 64 values in s -> s[0]. Called by the 32 lanes of warp 0.
// Volta+: a lane's read and its neighbour's write are separated by __syncwarp.
template <class AccT, class Op>
__device__ __forceinline__ void warp_tree_unrolled(volatile AccT* s, unsigned tid, Op op) {
    AccT v = s[tid];
    v = op(v, s[tid + 32]);
    __syncwarp();
    s[tid] = v;
    __syncwarp();
    v = op(v, s[tid + 16]);
    __syncwarp();
    s[tid] = v;
    __syncwarp();
    v = op(v, s[tid + 8]);
    __syncwarp();
    s[tid] = v;
    __syncwarp();
    v = op(v, s[tid + 4]);
    __syncwarp();
    s[tid] = v;
    __syncwarp();
    v = op(v, s[tid + 2]);
    __syncwarp();
    s[tid] = v;
    __syncwarp();
    v = op(v, s[tid + 1]);
    __syncwarp();
    s[tid] = v;
}

// prim::f16 and prim::bf16 (float16 and bfloat16 as their 16 bits) are util/narrow.cuh's.

// 16-byte loads of any element type: load16 of util/load.cuh for the 4- and 8-byte types (their
// code unchanged), util/pack16.cuh's load_pack16 (one uint4 split into 16 / sizeof(T)
// elements) for the narrow ones.
template <class T, bool WIDE = (sizeof(T) >= 4)>
struct Load16 {
    static constexpr int N = Vec16<T>::N;
    typedef Packet<T> P;
    static __device__ __forceinline__ P load(const T* p) { return load16(p); }
};
template <class T>
struct Load16<T, false> {
    static constexpr int N = Pack16<T>::N;
    typedef Pack16<T> P;
    static __device__ __forceinline__ P load(const T* p) { return load_pack16(p); }
};

// Complex elements: Pack16's split of one 16-byte load (2 c64, 1 c128).
template <class R>
struct Load16<Complex<R>, true> {
    static constexpr int N = Pack16<Complex<R>>::N;
    typedef Pack16<Complex<R>> P;
    static __device__ __forceinline__ P load(const Complex<R>* p) { return load_pack16(p); }
};

// Folds one packet into acc: element by element, or, for a sum of narrow integers into a 64-bit
// accumulator, in 32 bits first (at most 16 * 65535 per packet) and once into acc.
template <class InT, class AccT, class Op>
struct FoldPacket {
    template <class P>
    static __device__ __forceinline__ AccT fold(AccT acc, const P& p, Op op) {
#pragma unroll
        for (int k = 0; k < Load16<InT>::N; ++k) acc = op(acc, static_cast<AccT>(p.v[k]));
        return acc;
    }
};

template <class InT, class W, class AccT>
struct NarrowSum {
    template <class P>
    static __device__ __forceinline__ AccT fold(AccT acc, const P& p, Sum<AccT>) {
        W s = 0;
#if defined(__CUDA_ARCH__) && !defined(PRIM_EMULATOR)
        if (sizeof(InT) == 1) {  // four bytes per instruction: dot product with 1, 1, 1, 1
            const W* w = reinterpret_cast<const W*>(p.v);
#pragma unroll
            for (int k = 0; k < 4; ++k) s = __dp4a(w[k], static_cast<W>(0x01010101), s);
            return acc + static_cast<AccT>(s);
        }
#endif
#pragma unroll
        for (int k = 0; k < Load16<InT>::N; ++k) s += static_cast<W>(p.v[k]);
        return acc + static_cast<AccT>(s);
    }
};
template <> struct FoldPacket<signed char, long long, Sum<long long>>
    : NarrowSum<signed char, int, long long> {};
template <> struct FoldPacket<short, long long, Sum<long long>> : NarrowSum<short, int, long long> {
};
template <> struct FoldPacket<unsigned char, unsigned long long, Sum<unsigned long long>>
    : NarrowSum<unsigned char, unsigned int, unsigned long long> {};
template <> struct FoldPacket<unsigned short, unsigned long long, Sum<unsigned long long>>
    : NarrowSum<unsigned short, unsigned int, unsigned long long> {};

// The product of a packet of narrow integers in the 64-bit accumulator type: a tree over the
// packet (pairs, then pairs of pairs, ...), then once into acc. Exact modulo 2^64 in any order.
template <class InT, class AccT>
struct NarrowProd {
    template <class P>
    static __device__ __forceinline__ AccT fold(AccT acc, const P& p, Prod<AccT>) {
        constexpr int N = Load16<InT>::N;
        AccT t[N];
#pragma unroll
        for (int k = 0; k < N; ++k) t[k] = static_cast<AccT>(p.v[k]);
#pragma unroll
        for (int w = N / 2; w > 0; w >>= 1) {
#pragma unroll
            for (int k = 0; k < w; ++k) t[k] *= t[k + w];
        }
        return acc * t[0];
    }
};
template <> struct FoldPacket<signed char, long long, Prod<long long>>
    : NarrowProd<signed char, long long> {};
template <> struct FoldPacket<short, long long, Prod<long long>> : NarrowProd<short, long long> {};
template <> struct FoldPacket<unsigned char, unsigned long long, Prod<unsigned long long>>
    : NarrowProd<unsigned char, unsigned long long> {};
template <> struct FoldPacket<unsigned short, unsigned long long, Prod<unsigned long long>>
    : NarrowProd<unsigned short, unsigned long long> {};

// Packets of bool elements (Flag: any nonzero byte true) by words, util/flag.cuh: a sum counts
// the nonzero bytes, a product is whether all are, min/max (into unsigned int) whether all/any
// are.
template <> struct FoldPacket<Flag, long long, Sum<long long>> {
    static __device__ __forceinline__ long long fold(long long acc, const Pack16<Flag>& p,
                                                     Sum<long long>) {
        return acc + static_cast<long long>(flag_count(p));
    }
};
template <> struct FoldPacket<Flag, long long, Prod<long long>> {
    static __device__ __forceinline__ long long fold(long long acc, const Pack16<Flag>& p,
                                                     Prod<long long>) {
        return flag_all(p) ? acc : 0ll;
    }
};
template <> struct FoldPacket<Flag, unsigned int, Max<unsigned int>> {
    static __device__ __forceinline__ unsigned int fold(unsigned int acc, const Pack16<Flag>& p,
                                                        Max<unsigned int> op) {
        return op(acc, flag_any(p) ? 1u : 0u);
    }
};
template <> struct FoldPacket<Flag, unsigned int, Min<unsigned int>> {
    static __device__ __forceinline__ unsigned int fold(unsigned int acc, const Pack16<Flag>& p,
                                                        Min<unsigned int> op) {
        return op(acc, flag_all(p) ? 1u : 0u);
    }
};

}  // namespace prim

// ---- alpha: interleaved addressing, divergent branching ----------------------------------------
template <class InT, class AccT, class Op>
__global__ void reduce_alpha(const InT* __restrict__ in, AccT* __restrict__ out, long long n) {
    PRIM_DYNAMIC_SHARED(AccT, s);
    const unsigned tid = threadIdx.x;
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + tid;
    s[tid] = prim::load_or_identity<InT, AccT, Op>(in, i, n);
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        if (tid % (2 * stride) == 0) s[tid] = Op()(s[tid], s[tid + stride]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

// ---- beta: interleaved addressing, strided index (no divergence, bank conflicts) ---------------
template <class InT, class AccT, class Op>
__global__ void reduce_beta(const InT* __restrict__ in, AccT* __restrict__ out, long long n) {
    PRIM_DYNAMIC_SHARED(AccT, s);
    const unsigned tid = threadIdx.x;
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + tid;
    s[tid] = prim::load_or_identity<InT, AccT, Op>(in, i, n);
    __syncthreads();
    for (unsigned stride = 1; stride < blockDim.x; stride *= 2) {
        const unsigned index = 2 * stride * tid;
        if (index < blockDim.x) s[index] = Op()(s[index], s[index + stride]);
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = s[0];
}

// ---- gamma: sequential addressing ---------------------------------------------------------------
template <class InT, class AccT, class Op>
__global__ void reduce_gamma(const InT* __restrict__ in, AccT* __restrict__ out, long long n) {
    PRIM_DYNAMIC_SHARED(AccT, s);
    const unsigned tid = threadIdx.x;
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + tid;
    s[tid] = prim::load_or_identity<InT, AccT, Op>(in, i, n);
    __syncthreads();
    prim::tree_sequential(s, blockDim.x / 2, 0, Op());
    if (tid == 0) out[blockIdx.x] = s[0];
}

// ---- delta: first add during load ---------------------------------------------------------------
template <class InT, class AccT, class Op>
__global__ void reduce_delta(const InT* __restrict__ in, AccT* __restrict__ out, long long n) {
    PRIM_DYNAMIC_SHARED(AccT, s);
    const Op op;
    const unsigned tid = threadIdx.x;
    const long long i = static_cast<long long>(blockIdx.x) * (2 * blockDim.x) + tid;
    s[tid] = op(prim::load_or_identity<InT, AccT, Op>(in, i, n),
                prim::load_or_identity<InT, AccT, Op>(in, i + blockDim.x, n));
    __syncthreads();
    prim::tree_sequential(s, blockDim.x / 2, 0, op);
    if (tid == 0) out[blockIdx.x] = s[0];
}

// ---- epsilon: delta + unrolled last warp (Volta-safe) ------------------------------------------
template <class InT, class AccT, class Op>
__global__ void reduce_epsilon(const InT* __restrict__ in, AccT* __restrict__ out, long long n) {
    PRIM_DYNAMIC_SHARED(AccT, s);
    const Op op;
    const unsigned tid = threadIdx.x;
    const long long i = static_cast<long long>(blockIdx.x) * (2 * blockDim.x) + tid;
    s[tid] = op(prim::load_or_identity<InT, AccT, Op>(in, i, n),
                prim::load_or_identity<InT, AccT, Op>(in, i + blockDim.x, n));
    __syncthreads();
    prim::tree_sequential(s, blockDim.x / 2, 32, op);
    if (tid < 32) prim::warp_tree_unrolled(s, tid, op);
    if (tid == 0) out[blockIdx.x] = s[0];
}

// ---- zeta: completely unrolled (template block size), many elements per thread -----------------
template <class InT, class AccT, class Op, int BLOCK>
__global__ void __launch_bounds__(BLOCK)
    reduce_zeta(const InT* __restrict__ in, AccT* __restrict__ out, long long n) {
    static_assert(BLOCK >= 64 && BLOCK <= 1024 && (BLOCK & (BLOCK - 1)) == 0,
                  "reduce_zeta: BLOCK must be a power of two in [64, 1024]");
    __shared__ AccT s[BLOCK];
    const Op op;
    const unsigned tid = threadIdx.x;
    const long long grid_stride = 2LL * BLOCK * gridDim.x;
    AccT v = Op::identity();
    for (long long i = static_cast<long long>(blockIdx.x) * (2 * BLOCK) + tid; i < n;
         i += grid_stride) {
        v = op(v, static_cast<AccT>(in[i]));
        if (i + BLOCK < n) v = op(v, static_cast<AccT>(in[i + BLOCK]));
    }
    s[tid] = v;
    __syncthreads();
    if (BLOCK >= 1024) {
        if (tid < 512) s[tid] = v = op(v, s[tid + 512]);
        __syncthreads();
    }
    if (BLOCK >= 512) {
        if (tid < 256) s[tid] = v = op(v, s[tid + 256]);
        __syncthreads();
    }
    if (BLOCK >= 256) {
        if (tid < 128) s[tid] = v = op(v, s[tid + 128]);
        __syncthreads();
    }
    if (BLOCK >= 128) {
        if (tid < 64) s[tid] = v = op(v, s[tid + 64]);
        __syncthreads();
    }
    if (tid < 32) prim::warp_tree_unrolled(s, tid, op);
    if (tid == 0) out[blockIdx.x] = s[0];
}

// ---- the production kernel's parts: a thread's fold, the grid's single-launch finish --------
// The production kernel's fold of a thread's elements of in[0, n): a scalar head up to the first
// 16-byte boundary, VECS 16-byte loads in flight per iteration over the body, a scalar tail.
template <class InT, class AccT, class Op, int VECS>
__device__ __forceinline__ AccT fold_range(const InT* __restrict__ in, long long n, long long tid,
                                           long long nthreads, const Op& op) {
    typedef prim::Load16<InT> V;
    typedef prim::FoldPacket<InT, AccT, Op> Fold;
    AccT acc = Op::identity();
    const long long head = prim::aligned_head(in, n);
    if (tid < head) acc = op(acc, static_cast<AccT>(in[tid]));
    const InT* body = in + head;
    const long long nvec = (n - head) / V::N;

    long long i = tid;
    for (; i + (VECS - 1) * nthreads < nvec; i += VECS * nthreads) {
        typename V::P p[VECS];
#pragma unroll
        for (int u = 0; u < VECS; ++u) p[u] = V::load(body + (i + u * nthreads) * V::N);
#pragma unroll
        for (int u = 0; u < VECS; ++u) acc = Fold::fold(acc, p[u], op);
    }
    for (; i < nvec; i += nthreads) {
        const typename V::P a = V::load(body + i * V::N);
        acc = Fold::fold(acc, a, op);
    }
    const long long tail = head + nvec * V::N;  // fewer than V::N elements remain
    if (tail + tid < n) acc = op(acc, static_cast<AccT>(in[tail + tid]));
    return acc;
}

// The single-launch finish of a block's value `acc`: every block stores its partial and takes a
// ticket; the last one reduces the partials in block order into *out and resets the ticket.
// Called by every thread of the block (its barriers are block-uniform); `scratch` holds
// BLOCK / 32 accumulators and `last_block` is a __shared__ flag of the kernel.
template <int BLOCK, class AccT, class Op, class OutT>
__device__ void grid_finish(AccT acc, const Op& op, AccT* __restrict__ partials,
                            unsigned int* __restrict__ tickets, OutT* __restrict__ out,
                            AccT* scratch, bool& last_block) {
    acc = prim::block_reduce<BLOCK>(acc, op, scratch);
    if (threadIdx.x == 0) partials[blockIdx.x] = acc;
    if (prim::last_ticket(tickets, gridDim.x, last_block)) {  // block-uniform
        AccT v = Op::identity();
        for (unsigned j = threadIdx.x; j < gridDim.x; j += BLOCK)
            v = op(v, prim::load_cg(partials + j));
        __syncthreads();  // scratch is reused
        v = prim::block_reduce<BLOCK>(v, op, scratch);
        if (threadIdx.x == 0) {
            *out = static_cast<OutT>(v);
            *tickets = 0u;
        }
    }
}

// ---- production: vector loads, shuffles, machine-sized grid, single launch ---------------------
// Policy: BLOCK threads; VECS 16-byte loads issued back to back per thread per iteration.
template <class InT, class AccT, class Op, int BLOCK, int VECS, class OutT = AccT>
__global__ void __launch_bounds__(BLOCK)
    reduce_production(typename prim::In<InT>::type in, long long n, AccT* __restrict__ partials,
                      unsigned int* __restrict__ tickets, OutT* __restrict__ out) {
    const Op op;
    const long long tid = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
    const long long nthreads = static_cast<long long>(gridDim.x) * BLOCK;

    AccT acc = Op::identity();
    if constexpr (prim::IsZip<InT>::value) {
        // zipped arrays: a tuple per index, each field's load coalesced across the warp, VECS
        // indices in flight per thread
        long long i = tid;
        for (; i + (VECS - 1) * nthreads < n; i += VECS * nthreads) {
            AccT p[VECS];
#pragma unroll
            for (int u = 0; u < VECS; ++u) p[u] = in[i + u * nthreads];
#pragma unroll
            for (int u = 0; u < VECS; ++u) acc = op(acc, p[u]);
        }
        for (; i < n; i += nthreads) acc = op(acc, in[i]);
    } else {
        acc = fold_range<InT, AccT, Op, VECS>(in, n, tid, nthreads, op);
    }

    __shared__ AccT scratch[BLOCK / prim::WARP];
    __shared__ bool last_block;
    grid_finish<BLOCK>(acc, op, partials, tickets, out, scratch, last_block);
}

// ---- masked: where= fused on load, the production kernel's finish ------------------------------
template <class InT, class AccT, class Op, int BLOCK, class OutT = AccT>
__global__ void __launch_bounds__(BLOCK)
    reduce_masked(const InT* __restrict__ in, const unsigned char* __restrict__ mask, long long n,
                  AccT* __restrict__ partials, unsigned int* __restrict__ tickets,
                  OutT* __restrict__ out) {
    const Op op;
    const long long nthreads = static_cast<long long>(gridDim.x) * BLOCK;
    AccT acc = Op::identity();
    for (long long i = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x; i < n;
         i += nthreads)
        if (mask[i]) acc = op(acc, static_cast<AccT>(in[i]));
    __shared__ AccT scratch[BLOCK / prim::WARP];
    __shared__ bool last_block;
    grid_finish<BLOCK>(acc, op, partials, tickets, out, scratch, last_block);
}

// ---- rows: one block per row of contiguous elements --------------------------------------------
template <class InT, class AccT, class Op, int BLOCK, class OutT = AccT>
__global__ void __launch_bounds__(BLOCK) reduce_rows(const InT* __restrict__ in, long long rows,
                                                     long long width, OutT* __restrict__ out) {
    const Op op;
    __shared__ AccT scratch[BLOCK / prim::WARP];
    for (long long r = blockIdx.x; r < rows; r += gridDim.x) {  // block-uniform
        const InT* row = in + r * width;
        AccT v = Op::identity();
        for (long long i = threadIdx.x; i < width; i += BLOCK) v = op(v, static_cast<AccT>(row[i]));
        v = prim::block_reduce<BLOCK>(v, op, scratch);
        if (threadIdx.x == 0) out[r] = static_cast<OutT>(v);
        __syncthreads();  // scratch is reused by the next row
    }
}
