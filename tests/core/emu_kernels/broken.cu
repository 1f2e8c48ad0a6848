// Emulator tests: kernels that are wrong and must be caught.

// correct twin of tree_nosync
extern "C" __global__ void tree_ok(const float* in, float* out) {
    PRIM_DYNAMIC_SHARED(float, s);
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// BUG: no __syncthreads() between the tree steps
extern "C" __global__ void tree_nosync(const float* in, float* out) {
    PRIM_DYNAMIC_SHARED(float, s);
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// BUG: reads a neighbour's shared value without a barrier (right in thread order, wrong otherwise)
extern "C" __global__ void neighbour_nosync(const int* in, int* out) {
    PRIM_DYNAMIC_SHARED(int, s);
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    out[blockIdx.x * blockDim.x + t] = s[t] + (t ? s[t - 1] : 0);
}

// Volta-safe warp-synchronous tail (blockDim 64)
extern "C" __global__ void warp_tail_ok(const float* in, float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        volatile float* v = s;
        float x = v[t];
        for (int o = 32; o > 0; o >>= 1) {
            x += v[t + o];
            __syncwarp();
            v[t] = x;
            __syncwarp();
        }
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// BUG: pre-Volta implicit warp synchrony (no __syncwarp)
extern "C" __global__ void warp_tail_nosync(const float* in, float* out) {
    __shared__ float s[64];
    const unsigned t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    __syncthreads();
    if (t < 32) {
        volatile float* v = s;
        v[t] += v[t + 32];
        v[t] += v[t + 16];
        v[t] += v[t + 8];
        v[t] += v[t + 4];
        v[t] += v[t + 2];
        v[t] += v[t + 1];
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

// BUG: barrier in a divergent branch
extern "C" __global__ void sync_in_if(int* out) {
    if (threadIdx.x < 16) __syncthreads();
    out[threadIdx.x] = 1;
}

// BUG: barrier after some threads returned
extern "C" __global__ void sync_after_return(int* out) {
    if (threadIdx.x >= 48) return;
    __syncthreads();
    out[threadIdx.x] = 1;
}

// BUG: two different barriers
extern "C" __global__ void two_barriers(int* out) {
    if (threadIdx.x % 2) {
        out[threadIdx.x] = 1;
        __syncthreads();
    } else {
        out[threadIdx.x] = 2;
        __syncthreads();
    }
}

// BUG: block 0 waits for a flag that block 1 sets
extern "C" __global__ void spin_later_block(volatile int* flag) {
    if (blockIdx.x == 0) {
        if (threadIdx.x == 0)
            while (flag[0] == 0) __nanosleep(100);
    } else if (threadIdx.x == 0) {
        flag[0] = 1;
    }
}

// BUG: same, while the other threads of the block wait at a barrier
extern "C" __global__ void spin_at_barrier(volatile int* flag) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
        while (flag[0] == 0) __nanosleep(100);
    __syncthreads();
    if (blockIdx.x == 1) flag[0] = 1;
}

// BUG: full-mask shuffle after lanes exited
extern "C" __global__ void shfl_after_exit(int* out) {
    if (threadIdx.x % 32 >= 30) return;
    out[threadIdx.x] = __shfl_down_sync(0xffffffffu, (int)threadIdx.x, 1);
}

// BUG: the two halves of the warp call different intrinsics
extern "C" __global__ void warp_kind_mismatch(unsigned* out) {
    if (threadIdx.x % 32 < 16) out[threadIdx.x] = __ballot_sync(0xffffffffu, 1);
    else out[threadIdx.x] = (unsigned)__shfl_sync(0xffffffffu, 1, 0);
}

// BUG: lane 0 waits at a warp barrier while the others wait at a block barrier
extern "C" __global__ void warp_vs_block(int* out) {
    if (threadIdx.x == 0) __syncwarp();
    else __syncthreads();
    out[threadIdx.x] = 1;
}

// BUG: mask without the calling lane
extern "C" __global__ void mask_without_self(int* out) {
    __syncwarp(1u << ((threadIdx.x + 1) % 32));
    out[threadIdx.x] = 1;
}

// BUG: shuffle width not a power of two
extern "C" __global__ void bad_width(int* out) {
    out[threadIdx.x] = __shfl_sync(0xffffffffu, (int)threadIdx.x, 0, 3);
}
