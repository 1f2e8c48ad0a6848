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
//   block reduction (common/block.cuh), and a single launch: each block stores its partial, takes
//   a ticket with an atomic, and the block that takes the last ticket reduces the partials in block
//   order (deterministic) and resets the ticket to 0 for the next launch. Shared memory: static,
//   BLOCK/32 accumulators. Preconditions: *tickets == 0 on entry; partials holds gridDim.x values;
//   the input is aligned to sizeof(InT).
#include "common/prim.cuh"
#include "common/block.cuh"
#include "common/load.cuh"

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
    v = op(v, s[tid + 32]); __syncwarp(); s[tid] = v; __syncwarp();
    v = op(v, s[tid + 16]); __syncwarp(); s[tid] = v; __syncwarp();
    v = op(v, s[tid + 8]);  __syncwarp(); s[tid] = v; __syncwarp();
    v = op(v, s[tid + 4]);  __syncwarp(); s[tid] = v; __syncwarp();
    v = op(v, s[tid + 2]);  __syncwarp(); s[tid] = v; __syncwarp();
    v = op(v, s[tid + 1]);  __syncwarp(); s[tid] = v;
}

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
    if (BLOCK >= 1024) { if (tid < 512) s[tid] = v = op(v, s[tid + 512]); __syncthreads(); }
    if (BLOCK >= 512) { if (tid < 256) s[tid] = v = op(v, s[tid + 256]); __syncthreads(); }
    if (BLOCK >= 256) { if (tid < 128) s[tid] = v = op(v, s[tid + 128]); __syncthreads(); }
    if (BLOCK >= 128) { if (tid < 64) s[tid] = v = op(v, s[tid + 64]); __syncthreads(); }
    if (tid < 32) prim::warp_tree_unrolled(s, tid, op);
    if (tid == 0) out[blockIdx.x] = s[0];
}

// ---- production: vector loads, shuffles, machine-sized grid, single launch ---------------------
// Policy: BLOCK threads; VECS 16-byte loads issued back to back per thread per iteration.
template <class InT, class AccT, class Op, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
reduce_production(const InT* __restrict__ in, long long n, AccT* __restrict__ partials,
                  unsigned int* __restrict__ tickets, AccT* __restrict__ out) {
    typedef prim::Vec16<InT> V;
    const Op op;
    const long long tid = static_cast<long long>(blockIdx.x) * BLOCK + threadIdx.x;
    const long long nthreads = static_cast<long long>(gridDim.x) * BLOCK;

    AccT acc = Op::identity();
    const long long head = prim::aligned_head(in, n);
    if (tid < head) acc = op(acc, static_cast<AccT>(in[tid]));
    const InT* body = in + head;
    const long long nvec = (n - head) / V::N;

    long long i = tid;
    for (; i + (VECS - 1) * nthreads < nvec; i += VECS * nthreads) {
        prim::Packet<InT> p[VECS];
#pragma unroll
        for (int u = 0; u < VECS; ++u) p[u] = prim::load16(body + (i + u * nthreads) * V::N);
#pragma unroll
        for (int u = 0; u < VECS; ++u) {
#pragma unroll
            for (int k = 0; k < V::N; ++k) acc = op(acc, static_cast<AccT>(p[u].v[k]));
        }
    }
    for (; i < nvec; i += nthreads) {
        const prim::Packet<InT> a = prim::load16(body + i * V::N);
#pragma unroll
        for (int k = 0; k < V::N; ++k) acc = op(acc, static_cast<AccT>(a.v[k]));
    }
    const long long tail = head + nvec * V::N;  // fewer than V::N elements remain
    if (tail + tid < n) acc = op(acc, static_cast<AccT>(in[tail + tid]));

    __shared__ AccT scratch[BLOCK / prim::WARP];
    __shared__ bool last_block;
    acc = prim::block_reduce<BLOCK>(acc, op, scratch);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = acc;
        __threadfence();  // the partial is visible device-wide before the ticket is taken
        last_block = atomicAdd(tickets, 1u) == gridDim.x - 1;
    }
    __syncthreads();
    if (last_block) {  // block-uniform: every thread of the block takes this branch
        AccT v = Op::identity();
        for (unsigned j = threadIdx.x; j < gridDim.x; j += BLOCK) v = op(v, __ldcg(partials + j));
        __syncthreads();  // scratch is reused
        v = prim::block_reduce<BLOCK>(v, op, scratch);
        if (threadIdx.x == 0) {
            *out = v;
            *tickets = 0u;
        }
    }
}
