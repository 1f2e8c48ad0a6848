// gather.cu -- the steps around a selection: the selected values gathered from their rows, and
// argpartition's full index rows (the selected indices, then every other index in index order).
// Rows are contiguous: R rows of L elements, row r at r * L; index rows of m entries at r * m.
//
// gather_rows<T>: out[r * m + j] = in[r * L + idx[r * m + j]] for r < R, j < m (T: the unsigned
//   type of the element's size, so every dtype of one size shares the kernel; bit patterns kept).
// flag_rest: keep[r * L + j] = 1 for every element (the first launch), then unflag_selected:
//   keep[r * L + sel[r * m + j]] = 0 for the selected ones (the second launch, after the first
//   on the stream): keep marks the elements not selected, for the compaction of their indices.
// assemble_partition: res[r * L + j], the full index row: with small != 0 the m selected first
//   (sel in its order), then the L - m others (rest: their flat indices r * L + j' in increasing
//   order, as the compaction of keep gives them); with small == 0 the others first, then the
//   selected in reverse order (sel holds the m largest, largest first: reversed, ascending).
// pack_winners: out[i] = img[i] << ib | idx[i] (32-bit images, indices below 2^ib, ib <= 32):
//   one 64-bit key per winner whose order is the (image, index) order; unpack_index: the index
//   back, out[i] = in[i] & mask.
// Launch (all): 1-D grid-stride, any block and grid; no shared memory. Preconditions: indices in
//   sel/idx are in [0, L) and distinct within a row; rest holds R * (L - m) entries (unread when
//   m == L); the arrays do not overlap.
#include "util/prim.cuh"
#include "util/thread.cuh"

template <class T>
__global__ void gather_rows(const T* __restrict__ in, const long long* __restrict__ idx,
                            T* __restrict__ out, long long rows, long long m, long long L) {
    const long long n = rows * m;
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads()) {
        const long long r = i / m;
        out[i] = in[r * L + idx[i]];
    }
}

__global__ void flag_rest(unsigned char* __restrict__ keep, long long n) {
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads()) keep[i] = 1;
}

__global__ void unflag_selected(const long long* __restrict__ sel, long long rows, long long m,
                                long long L, unsigned char* __restrict__ keep) {
    const long long n = rows * m;
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads())
        keep[(i / m) * L + sel[i]] = 0;
}

__global__ void assemble_partition(const long long* __restrict__ sel,
                                   const long long* __restrict__ rest, long long rows, long long m,
                                   long long L, int small, long long* __restrict__ res) {
    const long long n = rows * L, others = L - m;
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads()) {
        const long long r = i / L, j = i - r * L;
        long long v;
        if (small)
            v = j < m ? sel[r * m + j] : rest[r * others + (j - m)] - r * L;
        else
            v = j < others ? rest[r * others + j] - r * L : sel[r * m + (m - 1 - (j - others))];
        res[i] = v;
    }
}

__global__ void pack_winners(const unsigned* __restrict__ img, const long long* __restrict__ idx,
                             long long n, int ib, unsigned long long* __restrict__ out) {
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads())
        out[i] = (static_cast<unsigned long long>(img[i]) << ib) |
            static_cast<unsigned long long>(idx[i]);
}

__global__ void unpack_index(const unsigned long long* __restrict__ in, long long n,
                             unsigned long long mask, long long* __restrict__ out) {
    for (long long i = prim::global_thread(); i < n; i += prim::global_threads())
        out[i] = static_cast<long long>(in[i] & mask);
}
