// Emulator tests: intrinsics, atomics, shared memory, launch geometry, arguments.
// (Emulator-only: the kernels use emulator internals in a few places.)
#include <cassert>

// ---- vector types have CUDA's sizes and alignments ----------------------------------------
#define CHECK_VEC(T, S, A) static_assert(sizeof(T) == S && alignof(T) == A, #T)
CHECK_VEC(char2, 2, 2); CHECK_VEC(char4, 4, 4); CHECK_VEC(uchar2, 2, 2); CHECK_VEC(uchar4, 4, 4);
CHECK_VEC(short2, 4, 4); CHECK_VEC(short4, 8, 8); CHECK_VEC(ushort2, 4, 4); CHECK_VEC(ushort4, 8, 8);
CHECK_VEC(int2, 8, 8); CHECK_VEC(int3, 12, 4); CHECK_VEC(int4, 16, 16);
CHECK_VEC(uint2, 8, 8); CHECK_VEC(uint3, 12, 4); CHECK_VEC(uint4, 16, 16);
CHECK_VEC(float2, 8, 8); CHECK_VEC(float3, 12, 4); CHECK_VEC(float4, 16, 16);
CHECK_VEC(double2, 16, 16); CHECK_VEC(longlong2, 16, 16); CHECK_VEC(ulonglong2, 16, 16);
CHECK_VEC(long2, 16, 16); CHECK_VEC(dim3, 12, 4);
static_assert(warpSize == 32, "warpSize");

// ---- shuffles -------------------------------------------------------------------------------
template <class T>
__global__ void shfl_kernel(const T* __restrict__ in, T* __restrict__ out, int mode, int arg, int width,
                            unsigned mask) {
    const unsigned tid = threadIdx.x, lane = tid % 32;
    const T v = in[tid];
    T r = v;
    if ((mask >> lane) & 1u) {
        switch (mode) {
            case 0: r = __shfl_sync(mask, v, (int)(lane * 7 + arg), width); break;
            case 1: r = __shfl_up_sync(mask, v, (unsigned)arg, width); break;
            case 2: r = __shfl_down_sync(mask, v, (unsigned)arg, width); break;
            default: r = __shfl_xor_sync(mask, v, arg, width); break;
        }
    }
    out[tid] = r;
}

// ---- votes, matches, warp reductions --------------------------------------------------------
extern "C" __global__ void vote_kernel(const int* val, unsigned* out, unsigned user_mask) {
    const unsigned tid = threadIdx.x, lane = tid % 32;
    const int v = val[tid];
    if (v < 0) return;  // these lanes exit first
    unsigned* o = out + tid * 16;
    const unsigned active = __activemask();
    o[0] = active;
    const unsigned mask = active & user_mask;
    if (!((mask >> lane) & 1u)) return;
    o[1] = __ballot_sync(mask, v & 1);
    o[2] = (unsigned)__any_sync(mask, v == 5);
    o[3] = (unsigned)__all_sync(mask, v >= 1);
    o[4] = __match_any_sync(mask, (unsigned)v % 3u);
    int pred = -1;
    o[5] = __match_all_sync(mask, (long long)(v / 100), &pred);
    o[6] = (unsigned)pred;
    o[7] = __reduce_add_sync(mask, (unsigned)v);
    o[8] = (unsigned)__reduce_add_sync(mask, v - 10);
    o[9] = __reduce_min_sync(mask, (unsigned)v);
    o[10] = (unsigned)__reduce_min_sync(mask, 7 - v);
    o[11] = __reduce_max_sync(mask, (unsigned)v);
    o[12] = (unsigned)__reduce_max_sync(mask, 7 - v);
    o[13] = __reduce_and_sync(mask, (unsigned)v | 0x100u);
    o[14] = __reduce_or_sync(mask, (unsigned)v);
    o[15] = __reduce_xor_sync(mask, (unsigned)v);
    __syncwarp(mask);
}

extern "C" __global__ void block_vote(const int* pred, int* out) {
    const int p = pred[blockIdx.x * blockDim.x + threadIdx.x];
    const int c = __syncthreads_count(p);
    const int a = __syncthreads_and(p);
    const int o = __syncthreads_or(p);
    if (threadIdx.x == blockDim.x - 1) {
        out[blockIdx.x * 3 + 0] = c;
        out[blockIdx.x * 3 + 1] = a;
        out[blockIdx.x * 3 + 2] = o;
    }
}

// ---- bit operations -------------------------------------------------------------------------
extern "C" __global__ void bits_kernel(const unsigned* u, const unsigned long long* v, long long* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long* o = out + i * 12;
    o[0] = __popc(u[i]);
    o[1] = __popcll(v[i]);
    o[2] = __clz((int)u[i]);
    o[3] = __clzll((long long)v[i]);
    o[4] = __ffs((int)u[i]);
    o[5] = __ffsll((long long)v[i]);
    o[6] = __brev(u[i]);
    o[7] = (long long)__brevll(v[i]);
    o[8] = __umulhi(u[i], 0x9e3779b9u);
    o[9] = (long long)__umul64hi(v[i], 0x9e3779b97f4a7c15ull);
    o[10] = __funnelshift_l(u[i], u[i] ^ 0xffffu, 7);
    o[11] = __byte_perm(u[i], 0x76543210u, 0x5140);
}

// ---- atomics (one block of 64 threads) -------------------------------------------------------
extern "C" __global__ void atomics_kernel(int* i32, unsigned* u32, unsigned long long* u64, long long* i64,
                                          float* f32, double* f64, unsigned short* u16, unsigned* olds) {
    const unsigned t = threadIdx.x;
    atomicAdd(&i32[0], (int)t - 10);
    atomicAdd(&u32[0], t);
    atomicAdd(&u64[0], (unsigned long long)t << 33);
    atomicAdd(&f32[0], 0.5f);
    atomicAdd(&f64[0], (double)t * 0.25);
    atomicSub(&i32[1], (int)t);
    atomicSub(&u32[1], 1u);
    atomicMin(&i32[2], (int)(t * 37 % 64) - 20);
    atomicMax(&i32[3], (int)(t * 37 % 64) - 20);
    atomicMin(&u32[2], t * 37 % 64 + 5);
    atomicMax(&u32[3], t * 37 % 64 + 5);
    atomicMin(&i64[0], -((long long)t << 40));
    atomicMax(&i64[1], (long long)t << 40);
    atomicMin(&u64[1], (unsigned long long)(t + 3) << 35);
    atomicMax(&u64[2], (unsigned long long)(t + 3) << 35);
    olds[t] = atomicInc(&u32[4], 9u);
    olds[64 + t] = atomicDec(&u32[5], 9u);
    olds[128 + t] = (unsigned)atomicExch(&i32[4], (int)t);
    olds[192 + t] = atomicExch(&u32[6], t + 100);
    olds[256 + t] = (unsigned)atomicExch(&u64[3], (unsigned long long)t);
    olds[320 + t] = (unsigned)atomicExch(&f32[1], (float)t);
    // float max through a CAS loop on the bits
    int* fbits = reinterpret_cast<int*>(&f32[2]);
    int old = *fbits, assumed;
    do {
        assumed = old;
        const float nv = fmaxf(__int_as_float(assumed), (float)t * 1.5f);
        old = atomicCAS(fbits, assumed, __float_as_int(nv));
    } while (assumed != old);
    unsigned o2 = u32[7], a2;
    do { a2 = o2; o2 = atomicCAS(&u32[7], a2, a2 + 2u); } while (a2 != o2);
    unsigned long long o3 = u64[4], a3;
    do { a3 = o3; o3 = atomicCAS(&u64[4], a3, a3 + t); } while (a3 != o3);
    unsigned short o4 = u16[0], a4;
    do { a4 = o4; o4 = atomicCAS(&u16[0], a4, (unsigned short)(a4 + 3)); } while (a4 != o4);
    atomicAnd(&i32[5], ~(1 << (t % 31)));
    atomicOr(&i32[6], 1 << (t % 16));
    atomicXor(&i32[7], (int)t);
    atomicAnd(&u32[8], ~(1u << (t % 32)) | 1u);
    atomicOr(&u32[9], 1u << (t % 32));
    atomicXor(&u32[10], t * 3u);
    atomicAnd(&u64[5], ~(1ull << t));
    atomicOr(&u64[6], 1ull << t);
    atomicXor(&u64[7], 1ull << (t / 2));
    atomicAdd_block(&i32[8], 1);
    atomicAdd_system(&i32[8], 2);
    atomicMax_block(&u32[11], t);
    __threadfence();
    __threadfence_block();
    __threadfence_system();
}

// ---- shared memory ---------------------------------------------------------------------------
template <int K>
__global__ void static_shared(int* out, int* totals) {
    __shared__ int s[64];
    __shared__ int total;
    const unsigned t = threadIdx.x;
    if (t == 0) total = 0;
    s[t] = (int)t * K + (int)blockIdx.x;
    __syncthreads();
    atomicAdd(&total, s[63 - t]);
    __syncthreads();
    out[blockIdx.x * 64 + t] = s[63 - t];
    if (t == 0) totals[blockIdx.x] = total;
}

// address of a static shared variable, and whether it lies in the region poisoned in race mode
template <int K>
__global__ void shared_where(unsigned long long* out) {
    __shared__ double s[3];
    out[0] = (unsigned long long)(uintptr_t)s;
    out[1] = (const char*)s >= prim_emu_tshared_begin && (const char*)(s + 3) <= prim_emu_tshared_end;
}
extern "C" __global__ void shared_where_plain(unsigned long long* out) {
    __shared__ float s[5];
    out[0] = (unsigned long long)(uintptr_t)s;
    out[1] = (const char*)s >= prim_emu_tshared_begin && (const char*)(s + 5) <= prim_emu_tshared_end;
}

extern "C" __global__ void dynamic_shared(const float* in, float* out, unsigned long long* addr) {
    PRIM_DYNAMIC_SHARED(float, s);
    const unsigned t = threadIdx.x, n = blockDim.x;
    s[t] = in[blockIdx.x * n + t];
    __syncthreads();
    out[blockIdx.x * n + t] = s[n - 1 - t];
    if (t == 0) addr[blockIdx.x] = (unsigned long long)(uintptr_t)s;
}

// reads shared memory before anything wrote it (0xFFFFFFFF in race mode)
template <int K>
__global__ void poison_probe(unsigned* out) {
    __shared__ unsigned s[4];
    PRIM_DYNAMIC_SHARED(unsigned, d);
    if (threadIdx.x == 0) {
        out[blockIdx.x * 2 + 0] = s[K];
        out[blockIdx.x * 2 + 1] = d[0];
        s[K] = 0x1234u;
        d[0] = 0x5678u;
    }
}

// ---- launch geometry and execution order ------------------------------------------------------
extern "C" __global__ void dims_kernel(unsigned* out, unsigned* order, unsigned* counter) {
    const unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    const unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    const unsigned g = b * (blockDim.x * blockDim.y * blockDim.z) + t;
    unsigned* o = out + g * 12;
    o[0] = threadIdx.x; o[1] = threadIdx.y; o[2] = threadIdx.z;
    o[3] = blockIdx.x;  o[4] = blockIdx.y;  o[5] = blockIdx.z;
    o[6] = blockDim.x;  o[7] = blockDim.y;  o[8] = blockDim.z;
    o[9] = gridDim.x;   o[10] = gridDim.y;  o[11] = gridDim.z;
    order[g] = atomicAdd(counter, 1u);
}

// ---- scalar arguments ---------------------------------------------------------------------------
struct Pair { int a; float b; };
extern "C" __global__ void scalars(long long a, unsigned long long b, double c, float d, int e, short f,
                                   unsigned char g, bool h, Pair p, float4 v, long long* oi, double* of) {
    if (threadIdx.x != 0) return;
    oi[0] = a; oi[1] = (long long)b; oi[2] = e; oi[3] = f; oi[4] = g; oi[5] = h; oi[6] = p.a;
    of[0] = c; of[1] = d; of[2] = p.b; of[3] = v.x; of[4] = v.y; of[5] = v.z; of[6] = v.w;
}

// ---- math, casts, printf -------------------------------------------------------------------------
__device__ __noinline__ int noinline_helper(int x) { return x * 3; }
__device__ __forceinline__ int forceinline_helper(int x) { return x + 1; }

extern "C" __global__ void __launch_bounds__(32) misc_kernel(const float* x, float* of, long long* oi) {
    if (threadIdx.x != 0) return;
    of[0] = min(1.5f, -2.0f);
    of[1] = max(1.5f, -2.0f);
    of[2] = __fdividef(1.0f, 4.0f);
    of[3] = __saturatef(1.5f);
    of[4] = __saturatef(-0.5f);
    of[5] = __saturatef(x[0]);           // NaN -> 0
    of[6] = __int_as_float(0x40490fdb);
    of[7] = (float)__longlong_as_double(0x4000000000000000ll);
    of[8] = fminf(x[0], 2.0f);           // NaN ignored
    of[9] = fmaxf(x[1], 2.0f);           // +inf
    of[10] = (float)min(2.0, 3.0);
    of[11] = __uint_as_float(0x3f800000u);
    of[12] = rsqrtf(4.0f);
    of[13] = (float)fmin(-1.0, 1.0);
    oi[0] = min(3, -4);
    oi[1] = max(3u, 7u);
    oi[2] = (long long)min(5ull, 9ull);
    oi[3] = max(-5ll, 2ll);
    oi[4] = min(-1, 2u);                 // CUDA: mixed signed/unsigned -> unsigned
    oi[5] = __float_as_int(1.0f);
    oi[6] = __double_as_longlong(1.0);
    oi[7] = isnan(x[0]);
    oi[8] = isinf(x[1]);
    oi[9] = (long long)__float_as_uint(-0.0f);
    oi[10] = noinline_helper(forceinline_helper(4));
    oi[11] = __ldg(&x[2]) == 3.0f;
    oi[12] = __float2int_rn(2.5f) + 10 * __float2int_rz(-2.7f);
    oi[13] = max(7l, 9l) + min(2ul, 3ul);
    int4 iv = make_int4(1, 2, 3, 4);
    float2 fv = make_float2(0.5f, 0.25f);
    oi[14] = iv.x + iv.y + iv.z + iv.w + (long long)(4 * (fv.x + fv.y));
    __stcg(&of[14], 6.0f);
    __stcs(&of[15], __ldcg(&of[14]) + __ldcs(&of[14]));
#pragma unroll
    for (int i = 0; i < 2; ++i) of[16 + i] = (float)i;
    of[18] = __fadd_rd(1.0f, 1e-8f);     // rounded down: 1
    of[19] = __fadd_rd(-1.0f, -1e-8f);   // rounded down: the float below -1
    of[20] = __fadd_rd(2.75f, 8388608.0f) - 8388608.0f;  // floor(2.75) through 2^23
    printf("emu printf %d %.1f\n", 42, 0.5);
}

// ---- __nanosleep: a thread waits for a flag set by another thread of the block, or by an
// earlier block ----------------------------------------------------------------------------------
extern "C" __global__ void flag_wait(int* out, volatile int* cross) {
    __shared__ volatile int flag;
    __shared__ int data;
    if (threadIdx.x == 0) flag = 0;
    __syncthreads();
    if (threadIdx.x == 0) {
        while (flag == 0) __nanosleep(32);
        out[blockIdx.x] = data;
    } else if (threadIdx.x == blockDim.x - 1) {
        data = 99 + (int)blockIdx.x;
        __threadfence_block();
        flag = 1;
    }
    // block b > 0 waits for block b - 1 (which ran before it)
    if (threadIdx.x == 1) {
        if (blockIdx.x > 0)
            while (cross[blockIdx.x - 1] == 0) __nanosleep(100);
        cross[blockIdx.x] = 1;
    }
}

// ---- stacks ----------------------------------------------------------------------------------------
extern "C" __global__ void stack_heavy(long long* out) {
    volatile long long buf[8192];  // 64 KiB per thread
    for (int i = 0; i < 8192; ++i) buf[i] = (long long)i * (threadIdx.x + 1);
    __syncthreads();
    long long s = 0;
    for (int i = 0; i < 8192; ++i) s += buf[i];
    out[threadIdx.x] = s;
}

__device__ __noinline__ long long deep(long long k) {
    volatile char pad[1024];
    pad[0] = (char)k;
    if (k == 0) return 0;
    const long long r = deep(k - 1);
    return r + 1 + pad[0] - (char)k;
}
extern "C" __global__ void stack_overflow(long long* out, long long depth) { out[threadIdx.x] = deep(depth); }

// ---- faults inside kernels ---------------------------------------------------------------------------
extern "C" __global__ void do_assert(const int* x) { assert(x[threadIdx.x] >= 0); }
extern "C" __global__ void do_trap(const int* x) { if (x[threadIdx.x] == 3) __trap(); }
extern "C" __global__ void do_segv(const int* x) {
    if (x[threadIdx.x] == 5) { volatile int* p = reinterpret_cast<int*>(16); *p = 1; }
}
extern "C" __global__ void do_div(int* x, int d) { x[threadIdx.x] = 10 / d; }
extern "C" __global__ void dyn_overflow(int* x, int n) {
    PRIM_DYNAMIC_SHARED(int, s);
    s[n + threadIdx.x] = 1;
    x[threadIdx.x] = s[threadIdx.x];
}
