// channels.cu -- one pass over interleaved multi-channel data (an (H, W, C) image: RGB, RGBA):
// a histogram per channel.
//
// Algorithm: sample i belongs to channel i % channels. Each block keeps `replicas` copies of a
// (channels x nbins) table of 32-bit counters in shared memory (warp w counts into copy
// w % replicas); threads walk the data in 16-byte packets (util/pack16.cuh, VECS loads in
// flight), find the channel of a packet's first sample once and step it along the packet; at the
// end the block folds its copies and adds the non-zero counters to out[channel * nbins + bin]
// (64-bit, zeroed by the caller) with global atomics. The start (the record, the binner, the
// zeroed counters) is every histogram kernel's (histograms/bins.cuh: HistStart).
// Launch: 1-D, blockDim.x == BLOCK, a resident grid (the kernel loops). Dynamic shared memory:
// replicas * channels * nbins * 4 bytes. Preconditions: channels >= 1; `in` aligned to sizeof(T);
// a block counts fewer than 2^32 samples.
#include "util/prim.cuh"
#include "util/thread.cuh"
#include "util/pack16.cuh"
#include "histograms/bins.cuh"

template <class T, class Binner, int BLOCK, int VECS>
__global__ void __launch_bounds__(BLOCK)
    hist_channels(const T* __restrict__ in, long long n, int channels,
                  const prim::BinSpec* __restrict__ spec, int replicas,
                  unsigned long long* __restrict__ out) {
    PRIM_DYNAMIC_SHARED(unsigned int, smem);
    const prim::HistStart<Binner> start(*spec);  // histograms/bins.cuh
    const Binner bin = start.bin;
    const int nbins = start.nbins;
    const int table = channels * nbins;
    start.template zero<BLOCK>(smem, replicas * table);
    unsigned int* h = smem + (threadIdx.x / prim::WARP) % replicas * table;
    auto channel_of = [&](long long i) {
        return static_cast<int>(i < 4294967296LL ? static_cast<unsigned int>(i) % channels
                                                 : i % channels);
    };
    prim::for_each_packet<VECS>(
        in, n, prim::global_thread(), prim::global_threads(),
        [&](T x, long long i) {
            const int b = bin(x);
            if (b >= 0) atomicAdd(h + channel_of(i) * nbins + b, 1u);
        },
        [&](const prim::Pack16<T>& p, long long i0) {
            int c = channel_of(i0);
#pragma unroll
            for (int k = 0; k < prim::Pack16<T>::N; ++k) {
                const int b = bin(p.v[k]);
                if (b >= 0) atomicAdd(h + c * nbins + b, 1u);
                c = c + 1 == channels ? 0 : c + 1;
            }
        });
    __syncthreads();
    for (int k = threadIdx.x; k < table; k += BLOCK) {
        unsigned int v = 0u;
        for (int r = 0; r < replicas; ++r) v += smem[r * table + k];
        if (v) atomicAdd(out + k, static_cast<unsigned long long>(v));
    }
}
