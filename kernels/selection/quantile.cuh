// quantile.cuh -- what quantile.cu's order statistics and split.cu's split of rows by one kth
// share: a slot's state (QField), the selection's image of a key and its inverse, the striped
// loads of a tile or a warp's run, a slot's share of the candidate buffer and the bin of a rank
// in a histogram. Device functions only: no kernel, no shared memory of its own (the kernels'
// headers say how these are used).
#pragma once
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/pack16.cuh"
#include "util/key_image.cuh"
#include "warp/scan.cuh"
#include "block/scan.cuh"
#include "block/reduce.cuh"

namespace prim {
namespace quantile {

// A slot's state: 64-bit fields, FIELDS per (row, slot).
enum QField {
    PREFIX = 0,  // image bits fixed so far (under MASK)
    MASK,
    K_REM,  // the slot's rank among the keys matching the prefix (1-based)
    COUNT,  // keys matching the prefix
    LIVE,  // selected (not an alias of the slot before it)
    SRC_BUFFER,  // the matching keys are all in the slot's buffer (else: read the row)
    WILL_BUFFER,  // the next pass writes the matching keys to the buffer
    WRITTEN,  // keys written to the buffer by the running pass
    SRC_COUNT,  // keys in the buffer
    OFFSET,  // where the slot's keys start in its row's buffer
    FOLLOW,  // the earlier slot whose keys the running pass writes for this one too (or -1)
    SAME,  // the earlier slot of the same prefix whose histogram serves this one too (or -1)
    FIELDS
};

constexpr int MAX_BINS = 8192;

// The selection's image of a key (ascending): integers as prim::radix::ordered; floats with
// every NaN folded into the positive quiet NaN (above +inf), the negative ones complemented
// (-0.0 lands just below +0.0), the others with the sign bit set.
template <class U>
__device__ __forceinline__ U image(U key, int kind) {
    using B = prim::radix::Bits<U>;
    if (kind == prim::radix::FLOAT) {
        if ((key & ~B::TOP) > B::INF) return B::QNAN | B::TOP;
        return (key & B::TOP) ? static_cast<U>(~key) : static_cast<U>(key | B::TOP);
    }
    if (kind == prim::radix::SIGNED) return key ^ B::TOP;
    return key;
}

// The key bits of an image (the inverse of `image`: exact but for NaNs, which come back as the
// positive quiet NaN).
template <class U>
__device__ __forceinline__ U key_of(U img, int kind) {
    using B = prim::radix::Bits<U>;
    if (kind == prim::radix::FLOAT)
        return (img & B::TOP) ? static_cast<U>(img ^ B::TOP) : static_cast<U>(~img);
    if (kind == prim::radix::SIGNED) return img ^ B::TOP;
    return img;
}

// The ITEMS keys of `thread` of a run of SPAN threads at t0 (SPAN * ITEMS consecutive keys)
// striped over them: key[u * VN + v] = row_keys[t0 + (u * SPAN + thread) * VN + v], VN keys a
// 16-byte vector. `full` (a whole run of an aligned row): every vector load issued before any key
// is used (ITEMS / VN in flight a thread); otherwise key by key, those past len left 0. Returns
// the bit mask of the keys within len. SPAN: a block (load_striped, a tile of the block) or a
// warp (split.cu's scatter, each warp its own run).
template <class U, int SPAN, int ITEMS>
__device__ __forceinline__ unsigned load_run(const U* row_keys, long long t0, long long len,
                                             bool full, int thread, U (&key)[ITEMS]) {
    constexpr int VN = prim::Vec16<U>::N;
    if (full) {
        prim::Packet<U> p[ITEMS / VN];
#pragma unroll
        for (int u = 0; u < ITEMS / VN; ++u)
            p[u] = prim::load16(row_keys + t0 + (static_cast<long long>(u) * SPAN + thread) * VN);
#pragma unroll
        for (int u = 0; u < ITEMS / VN; ++u)
#pragma unroll
            for (int v = 0; v < VN; ++v) key[u * VN + v] = p[u].v[v];
        return ITEMS == 32 ? ~0u : (1u << ITEMS) - 1u;
    }
    unsigned valid = 0;
#pragma unroll
    for (int u = 0; u < ITEMS / VN; ++u)
#pragma unroll
        for (int v = 0; v < VN; ++v) {
            const long long i = t0 + (static_cast<long long>(u) * SPAN + thread) * VN + v;
            const bool in = i < len;
            valid |= static_cast<unsigned>(in) << (u * VN + v);
            key[u * VN + v] = in ? row_keys[i] : static_cast<U>(0);
        }
    return valid;
}

// The keys of tile t0 (a block's TILE = BLOCK * ITEMS consecutive keys) striped over its
// threads (load_run).
template <class U, int BLOCK, int ITEMS>
__device__ __forceinline__ unsigned load_striped(const U* row_keys, long long t0, long long len,
                                                 bool full, U (&key)[ITEMS]) {
    return load_run<U, BLOCK, ITEMS>(row_keys, t0, len, full, threadIdx.x, key);
}

// Slot s's part in the next pass (one thread; the earlier slots of the row already decided):
// the first earlier slot of the same prefix, whose histogram serves both (SAME: the pass counts
// its keys once); its share of the row's buffer: none when its keys are buffered already; the
// keys of an earlier slot of the same prefix that the pass writes (FOLLOW); else its COUNT keys
// when they fit what is left (`used` of `cap` taken). Slots of one prefix share their states:
// they had the same prefixes before, so the same buffer.
__device__ __forceinline__ void plan_buffer(long long* row_state, long long s, long long cap,
                                            long long& used) {
    long long* st = row_state + s * FIELDS;
    st[FOLLOW] = -1;
    st[SAME] = -1;
    st[WILL_BUFFER] = 0;
    for (long long t = 0; t < s; ++t) {
        const long long* o = row_state + t * FIELDS;
        if (o[LIVE] && o[SAME] < 0 && o[PREFIX] == st[PREFIX] && o[MASK] == st[MASK]) {
            st[SAME] = t;
            break;
        }
    }
    if (st[SRC_BUFFER]) return;
    for (long long t = 0; t < s; ++t) {
        const long long* o = row_state + t * FIELDS;
        if (o[LIVE] && o[WILL_BUFFER] && o[PREFIX] == st[PREFIX] && o[MASK] == st[MASK]) {
            st[FOLLOW] = t;
            return;
        }
    }
    if (st[COUNT] <= cap - used) {
        st[WILL_BUFFER] = 1;
        st[OFFSET] = used;
        used += st[COUNT];
    }
}

// The bin of `hist` (bins counters, one per thread and PER consecutive bins) holding the
// k-th key (1-based): found(bin, keys below it, keys in it) by the one thread that holds it.
// Whole block of BLOCK threads (the scan's barriers); scratch: BLOCK / WARP words.
template <int BLOCK, class Found>
__device__ __forceinline__ void find_bin(const unsigned long long* h, int bins,
                                         unsigned long long k, unsigned long long* scratch,
                                         Found found) {
    static_assert(MAX_BINS % BLOCK == 0, "find_bin: BLOCK divides MAX_BINS");
    constexpr int PER = MAX_BINS / BLOCK;
    unsigned long long mine[PER];
    unsigned long long sum = 0;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
        const int b = threadIdx.x * PER + j;
        mine[j] = b < bins ? h[b] : 0ull;
        sum += mine[j];
    }
    unsigned long long total;
    unsigned long long below =
        prim::block_exclusive_scan<BLOCK>(sum, prim::Sum<unsigned long long>(), scratch, total);
    if (below < k && k <= below + sum) {
#pragma unroll
        for (int j = 0; j < PER; ++j) {
            if (below < k && k <= below + mine[j]) {
                found(threadIdx.x * PER + j, below, mine[j]);
                break;
            }
            below += mine[j];
        }
    }
}

}  // namespace quantile
}  // namespace prim
