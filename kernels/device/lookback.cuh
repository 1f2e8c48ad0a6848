// lookback.cuh -- the tile-status protocol of the single-pass decoupled look-back scan (Merrill &
// Garland, "Single-pass Parallel Prefix Scan with Decoupled Look-back", 2016) between the blocks
// of one launch; the device-wide scans combine it with the block scan of block/scan.cuh.
//
// TileStatus: per-tile look-back state (status word with the launch's epoch, and the tile's
//   aggregate or inclusive prefix); values of at most 12 bytes share one 8/16-byte descriptor
//   with their status (one store publishes, one load reads, no fences), wider ones are published
//   value-fence-status. lookback_prefix: warp 0 of a tile walks back over its predecessors 32 at
//   a time (one lane per predecessor), waits (with __nanosleep) until each has published
//   something, folds aggregates until the nearest inclusive prefix, and returns the tile's
//   exclusive prefix. next_tile: tile ids drawn from an atomic counter in the order blocks start.
//   tile_lookback: one tile's publish / look back / publish; tile 0 starts from *seed when given
//   (a scan that continues another: every prefix then includes it).
#pragma once
#include "util/prim.cuh"
#include "util/load.cuh"  // load_cg
#include "warp/shfl.cuh"
#include "warp/reduce.cuh"

namespace prim {

// ---- decoupled look-back ----------------------------------------------------------------------

constexpr unsigned TILE_AGGREGATE = 1u;
constexpr unsigned TILE_INCLUSIVE = 2u;

// Raw words of 8 and 16 bytes moved by one volatile (L1-bypassing, relaxed system-scope) access.
template <int BYTES> struct RawWord;
template <> struct RawWord<8> {
    typedef unsigned long long type;
    static __device__ __forceinline__ type load(const type* p) {
        return *reinterpret_cast<const volatile type*>(p);
    }
    static __device__ __forceinline__ void store(type* p, type v) {
        *reinterpret_cast<volatile type*>(p) = v;
    }
};
template <> struct RawWord<16> {
    typedef uint4 type;
    static __device__ __forceinline__ type load(const type* p) {
        type v;
#ifdef PRIM_EMULATOR
        const volatile unsigned int* w = reinterpret_cast<const volatile unsigned int*>(p);
        v.x = w[0];
        v.y = w[1];
        v.z = w[2];
        v.w = w[3];
#else
        asm volatile("ld.volatile.global.v4.u32 {%0, %1, %2, %3}, [%4];"
                     : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                     : "l"(p)
                     : "memory");
#endif
        return v;
    }
    static __device__ __forceinline__ void store(type* p, type v) {
#ifdef PRIM_EMULATOR
        volatile unsigned int* w = reinterpret_cast<volatile unsigned int*>(p);
        w[0] = v.x;
        w[1] = v.y;
        w[2] = v.z;
        w[3] = v.w;
#else
        asm volatile("st.volatile.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x),
                     "r"(v.y), "r"(v.z), "r"(v.w)
                     : "memory");
#endif
    }
};

// Per-tile look-back state in one buffer of global memory (TileStatus<T>::bytes(tiles) bytes,
// zeroed once when allocated). A tile's status is (epoch << 2) | kind, kind 1 = aggregate
// published, 2 = inclusive prefix published; a status of an older epoch reads as "nothing
// published", so the buffer never needs clearing between launches (the host advances the epoch
// per launch).
// PACKED (values of at most 12 bytes): status and value share one 8- or 16-byte descriptor that
//   is written by one store and read by one load, so a reader that sees the status sees the value
//   and neither side needs a memory fence (16-byte vector accesses are single transactions).
// Otherwise: status words, then the aggregates, then the inclusive prefixes. Publishing writes
//   the value, __threadfence(), then the status; a reader that sees the status fences before it
//   reads the value.
// What the look-backs poll (the descriptors, the status words) lies STATUS_SPACING bytes apart,
// one tile per 32-byte sector: hundreds of look-back warps poll the last few hundred tiles while
// those tiles publish, and with the words packed (four 8-byte descriptors to a sector) the
// 4-byte scan ran at 85% of the copy rate on an H100, at 92% with them spread
// (python -m tools.tune.scan --bounds, docs/perf-log/).
constexpr int STATUS_SPACING = 32;

template <class T, bool PACKED = (sizeof(T) <= 12)>
struct TileStatus;

template <class T>
struct TileStatus<T, true> {
    static constexpr int BYTES = sizeof(T) <= 4 ? 8 : 16;
    static constexpr int STRIDE = STATUS_SPACING / BYTES;  // in descriptors
    static_assert(STATUS_SPACING % BYTES == 0, "TileStatus: whole descriptors per slot");
    typedef RawWord<BYTES> Raw;
    struct __align__(BYTES) Descriptor {
        unsigned int status;
        T value;
    };
    union Bits {
        Descriptor d;
        typename Raw::type raw;
    };
    typename Raw::type* words;
    unsigned int epoch;  // this launch's epoch (< 2^30)

    static __host__ __device__ constexpr long long bytes(long long tiles) {
        return tiles * STATUS_SPACING;
    }
    __device__ __forceinline__ TileStatus(unsigned char* state, unsigned int epoch_)
        : words(reinterpret_cast<typename Raw::type*>(state)),
          epoch(epoch_) {}

    __device__ __forceinline__ void publish(long long tile, unsigned kind, T value) const {
        Bits b;
        b.raw = typename Raw::type();
        b.d.status = (epoch << 2) | kind;
        b.d.value = value;
        Raw::store(words + tile * STRIDE, b.raw);
    }
    // Kind published for `tile` in this epoch (0: nothing yet); `value` is set when it is not 0.
    __device__ __forceinline__ unsigned load(long long tile, T& value) const {
        Bits b;
        b.raw = Raw::load(words + tile * STRIDE);
        value = b.d.value;
        return (b.d.status >> 2) == epoch ? (b.d.status & 3u) : 0u;
    }
};

template <class T>
struct TileStatus<T, false> {
    static constexpr int STRIDE = STATUS_SPACING / 4;  // in status words
    unsigned int* status;  // one word per tile, STRIDE apart
    T* aggregate;          // one value per tile
    T* inclusive;          // one value per tile
    unsigned int epoch;

    static __host__ __device__ constexpr long long status_bytes(long long tiles) {
        return tiles * STATUS_SPACING;
    }
    static __host__ __device__ constexpr long long bytes(long long tiles) {
        return status_bytes(tiles) + 2 * tiles * static_cast<long long>(sizeof(T));
    }
    // The launch has one block per tile.
    __device__ __forceinline__ TileStatus(unsigned char* state, unsigned int epoch_)
        : status(reinterpret_cast<unsigned int*>(state)),
          aggregate(reinterpret_cast<T*>(state + status_bytes(gridDim.x))),
          inclusive(aggregate + gridDim.x),
          epoch(epoch_) {}

    __device__ __forceinline__ void publish(long long tile, unsigned kind, T value) const {
        if (kind == TILE_AGGREGATE)
            aggregate[tile] = value;
        else
            inclusive[tile] = value;
        __threadfence();
        *reinterpret_cast<volatile unsigned int*>(status + tile * STRIDE) = (epoch << 2) | kind;
    }
    __device__ __forceinline__ unsigned load(long long tile, T& value) const {
        const unsigned s = *reinterpret_cast<volatile unsigned int*>(status + tile * STRIDE);
        const unsigned kind = (s >> 2) == epoch ? (s & 3u) : 0u;
        if (kind != 0u) {
            __threadfence();
            value = load_cg(kind == TILE_INCLUSIVE ? inclusive + tile : aggregate + tile);
        }
        return kind;
    }
};

// Exclusive prefix of `tile` (> 0) over all earlier tiles. Call from the 32 lanes of one warp;
// the result is valid in every lane. Each lane watches one predecessor of a window of 32 (lane 0
// the nearest), waits (with __nanosleep) until it has published something, and the window folds
// aggregates up to the nearest inclusive prefix; without one it moves 32 tiles further back.
template <class T, class Op, class Status>
__device__ __forceinline__ T lookback_prefix(const Status& ts, long long tile, Op op) {
    const int lane = threadIdx.x % WARP;
    T prefix = Op::identity();
    long long window_end = tile - 1;  // nearest predecessor not yet folded
    while (true) {
        const long long pred = window_end - lane;
        T value = Op::identity();
        unsigned kind = pred >= 0 ? ts.load(pred, value) : TILE_INCLUSIVE;
        while (__any_sync(FULL_MASK, kind == 0u)) {
            if (kind == 0u) {
                __nanosleep(20);
                kind = ts.load(pred, value);
            }
        }
        const unsigned inclusive_lanes = __ballot_sync(FULL_MASK, kind == TILE_INCLUSIVE);
        // lanes beyond the nearest inclusive prefix are already counted in it
        const int stop = inclusive_lanes ? __ffs(inclusive_lanes) - 1 : WARP - 1;
        if (lane > stop || pred < 0) value = Op::identity();
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
// *prefix_slot (shared memory); the caller __syncthreads() before reading it. With a seed (device
// memory), tile 0's exclusive prefix is *seed instead of the identity, so every tile's is seeded.
template <class T, class Op>
__device__ __forceinline__ void tile_lookback(const TileStatus<T>& ts, long long tile, T aggregate,
                                              Op op, T* prefix_slot, const T* seed = nullptr) {
    if (tile == 0) {
        if (threadIdx.x == 0) {
            const T s = seed != nullptr ? *seed : Op::identity();
            ts.publish(0, TILE_INCLUSIVE, op(s, aggregate));
            *prefix_slot = s;
        }
        return;
    }
    if (threadIdx.x == 0) ts.publish(tile, TILE_AGGREGATE, aggregate);
    const T before = lookback_prefix<T>(ts, tile, op);
    if (threadIdx.x == 0) {
        ts.publish(tile, TILE_INCLUSIVE, op(before, aggregate));
        *prefix_slot = before;
    }
}

}  // namespace prim
