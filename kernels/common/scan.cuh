// scan.cuh -- warp- and block-wide prefix scans built on register shuffles, and the tile-status
// protocol of the single-pass decoupled look-back scan (Merrill & Garland, 2016).
//
// warp_inclusive_scan: Kogge-Stone over the 32 lanes with __shfl_up_sync (5 steps).
// block_exclusive_scan<BLOCK>: each warp scans, warp totals go through `scratch` (BLOCK/32 values
//   of shared memory), warp 0 scans them; every thread gets the exclusive prefix of its value and
//   the block aggregate. Contains two __syncthreads: call with the whole block; a caller reusing
//   `scratch` must __syncthreads() in between.
// TileStatus: per-tile (status word, aggregate, inclusive prefix) in global memory. A status word
//   holds (epoch << 2) | kind, kind 1 = aggregate published, 2 = inclusive prefix published;
//   words of an older epoch read as "nothing published", so the array never needs clearing
//   between launches (the host advances the epoch per launch). Publishing writes the value,
//   __threadfence(), then the status word; a reader sees the status, __threadfence(), then reads
//   the value. lookback_prefix: warp 0 of a tile walks back over its predecessors 32 at a time
//   (one lane per predecessor), waits (with __nanosleep) until each has published something,
//   folds aggregates until the nearest inclusive prefix, and returns the tile's exclusive prefix.
#pragma once
#include "common/prim.cuh"
#include "common/warp.cuh"

namespace prim {

template <class T, class Op>
__device__ __forceinline__ T warp_inclusive_scan(T v, Op op) {
    const int lane = threadIdx.x % WARP;
#pragma unroll
    for (int offset = 1; offset < WARP; offset <<= 1) {
        const T up = shfl_up(v, offset);
        if (lane >= offset) v = op(up, v);
    }
    return v;
}

template <int BLOCK, class T, class Op>
__device__ __forceinline__ T block_exclusive_scan(T v, Op op, T* scratch, T& aggregate) {
    static_assert(BLOCK % WARP == 0 && BLOCK <= 1024, "block scan: BLOCK must be 32k <= 1024");
    constexpr int WARPS = BLOCK / WARP;
    const int lane = threadIdx.x % WARP;
    const int warp = threadIdx.x / WARP;
    const T inclusive = warp_inclusive_scan(v, op);
    T exclusive = shfl_up(inclusive, 1);
    if (lane == 0) exclusive = Op::identity();
    if (lane == WARP - 1) scratch[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const T total = lane < WARPS ? scratch[lane] : Op::identity();
        const T scanned = warp_inclusive_scan(total, op);
        if (lane < WARPS) scratch[lane] = scanned;  // inclusive prefix of warp totals
    }
    __syncthreads();
    aggregate = scratch[WARPS - 1];
    if (warp > 0) exclusive = op(scratch[warp - 1], exclusive);
    return exclusive;
}

// ---- segmented operators ----------------------------------------------------------------------
// A segmented scan is an ordinary scan of (value, head) pairs under
//     (a, ha) . (b, hb) = (hb ? b : a op b, ha | hb),
// which is associative with identity (op's identity, 0) whenever op is: the value of a scanned
// pair is the op-sum since the last head at or before it (Blelloch, "Prefix sums and their
// applications", 1990). Segmented<Op> lifts any of prim's operators; every scan helper above and
// the look-back below work with it unchanged.
template <class T>
struct Flagged {
    T value;
    int head;  // 1: a segment starts in this span
};

template <class Op>
struct Segmented {
    typedef typename Op::value_type base_type;
    typedef Flagged<base_type> value_type;
    static __device__ __forceinline__ value_type identity() {
        value_type r;
        r.value = Op::identity();
        r.head = 0;
        return r;
    }
    __device__ __forceinline__ value_type operator()(value_type a, value_type b) const {
        value_type r;
        r.value = b.head ? b.value : Op()(a.value, b.value);
        r.head = a.head | b.head;
        return r;
    }
};

// ---- decoupled look-back ----------------------------------------------------------------------

// Load that bypasses L1 (values other blocks publish): scalars directly, other types by words.
template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
    if constexpr (NativeShfl<T>::value) {
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

constexpr unsigned TILE_AGGREGATE = 1u;
constexpr unsigned TILE_INCLUSIVE = 2u;

template <class T>
struct TileStatus {
    unsigned int* status;  // one word per tile
    T* aggregate;          // one value per tile
    T* inclusive;          // one value per tile
    unsigned int epoch;    // this launch's epoch (< 2^30)

    __device__ __forceinline__ void publish(long long tile, unsigned kind, T value) const {
        if (kind == TILE_AGGREGATE) aggregate[tile] = value;
        else inclusive[tile] = value;
        __threadfence();
        *reinterpret_cast<volatile unsigned int*>(status + tile) = (epoch << 2) | kind;
    }

    // Kind published for `tile` in this epoch (0: nothing yet).
    __device__ __forceinline__ unsigned peek(long long tile) const {
        const unsigned s = *reinterpret_cast<volatile unsigned int*>(status + tile);
        return (s >> 2) == epoch ? (s & 3u) : 0u;
    }
};

// Exclusive prefix of `tile` (> 0) over all earlier tiles. Call from the 32 lanes of one warp;
// the result is valid in every lane.
template <class T, class Op>
__device__ __forceinline__ T lookback_prefix(const TileStatus<T>& ts, long long tile, Op op) {
    const int lane = threadIdx.x % WARP;
    T prefix = Op::identity();
    long long window_end = tile - 1;  // nearest predecessor not yet folded
    while (true) {
        const long long pred = window_end - lane;
        unsigned kind = pred >= 0 ? ts.peek(pred) : TILE_INCLUSIVE;
        while (__any_sync(FULL_MASK, kind == 0u)) {
            if (kind == 0u) {
                __nanosleep(20);
                kind = ts.peek(pred);
            }
        }
        __threadfence();
        T value = Op::identity();
        if (pred >= 0) value = load_cg(kind == TILE_INCLUSIVE ? ts.inclusive + pred
                                                              : ts.aggregate + pred);
        const unsigned inclusive_lanes = __ballot_sync(FULL_MASK, kind == TILE_INCLUSIVE);
        // lanes beyond the nearest inclusive prefix are already counted in it
        const int stop = inclusive_lanes ? __ffs(inclusive_lanes) - 1 : WARP - 1;
        if (lane > stop) value = Op::identity();
        // lane 0 is the nearest predecessor: fold the window farthest first (op need not commute)
        prefix = op(warp_reduce_high_to_low(value, op), prefix);
        if (inclusive_lanes) return prefix;
        window_end -= WARP;
    }
}

// The next tile id, drawn by thread 0 from an atomic counter and broadcast through `slot` (shared
// memory). The block drawing the last id resets the counter for the next launch (grid = tiles).
// Call with the whole block (it contains __syncthreads).
__device__ __forceinline__ long long next_tile(unsigned int* counter, unsigned int* slot) {
    if (threadIdx.x == 0) {
        const unsigned t = atomicAdd(counter, 1u);
        if (t == gridDim.x - 1) *counter = 0u;
        *slot = t;
    }
    __syncthreads();
    return *slot;
}

// One tile's part of the protocol, run by warp 0: publish the tile's aggregate, look back for its
// exclusive prefix, publish the inclusive prefix. Lane 0 stores the exclusive prefix in
// *prefix_slot (shared memory); the caller __syncthreads() before reading it.
template <class T, class Op>
__device__ __forceinline__ void tile_lookback(const TileStatus<T>& ts, long long tile,
                                              T aggregate, Op op, T* prefix_slot) {
    if (tile == 0) {
        if (threadIdx.x == 0) {
            ts.publish(0, TILE_INCLUSIVE, aggregate);
            *prefix_slot = Op::identity();
        }
        return;
    }
    if (threadIdx.x == 0) ts.publish(tile, TILE_AGGREGATE, aggregate);
    const T before = lookback_prefix(ts, tile, op);
    if (threadIdx.x == 0) {
        ts.publish(tile, TILE_INCLUSIVE, op(before, aggregate));
        *prefix_slot = before;
    }
}

}  // namespace prim
