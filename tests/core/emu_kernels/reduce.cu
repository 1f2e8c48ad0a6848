// Emulator tests: correct reductions (shared-memory tree, warp shuffles), compared with NumPy.

template <class T>
__global__ void tree_reduce(const T* __restrict__ in, T* __restrict__ out, long long n) {
    PRIM_DYNAMIC_SHARED(T, s);
    const unsigned t = threadIdx.x;
    const long long i = (long long)blockIdx.x * blockDim.x + t;
    s[t] = i < n ? in[i] : T(0);
    __syncthreads();
    for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

template <class T>
__global__ void shfl_reduce(const T* __restrict__ in, T* __restrict__ out, long long n) {
    __shared__ T partial[32];
    const unsigned t = threadIdx.x, lane = t % 32, warp = t / 32;
    T v = T(0);
    for (long long i = (long long)blockIdx.x * blockDim.x + t; i < n; i += (long long)gridDim.x * blockDim.x)
        v += in[i];
    v = warp_sum(v);
    if (lane == 0) partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < blockDim.x / 32 ? partial[lane] : T(0);
        v = warp_sum(v);
        if (lane == 0) out[blockIdx.x] = v;
    }
}
