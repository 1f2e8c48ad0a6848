// kernels/emulator/emu.h -- CPU emulation of the CUDA device runtime.
//
// Force-included (g++ -include) in front of a kernel source when the
// primitives library runs kernels on the CPU (primitives/_core/emulator.py).
// One translation unit per shared object, linked with the runtime object:
// this header compiled once with PRIM_EMU_RUNTIME defined (run_launch and
// pool_create, and the scheduler they call; see run_launch).
//
// Model: blocks run one after another (linear index, x fastest).  Inside a
// block every CUDA thread is a fiber with its own mmap'd stack (guard page
// below it).  A fiber runs until it reaches a synchronisation point
// (__syncthreads*, a warp intrinsic / __syncwarp, __nanosleep) or exits, then
// control goes back to the scheduler, which releases barriers once every
// participant has arrived and diagnoses divergence, deadlock and endless spins.
// See docs/emulator.md.
#ifndef PRIM_EMU_H_INCLUDED
#define PRIM_EMU_H_INCLUDED

#ifndef PRIM_EMULATOR
#define PRIM_EMULATOR 1
#endif

// assert() in kernels reports an EmulatorError instead of aborting the
// process: glibc's assert macro calls __assert_fail, renamed here (this works
// for every later #include <assert.h>/<cassert> too).
#define __assert_fail prim_emu_assert_fail
#include <assert.h>

#include <cfenv>
#include <cfloat>
#include <climits>
#include <cmath>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <math.h>
#include <memory>  // before __noinline__ is defined: libstdc++ uses __attribute__((__noinline__))
#include <new>
#include <tuple>
#include <type_traits>
#include <utility>

#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#if !defined(__x86_64__) || defined(PRIM_EMU_UCONTEXT)
#define PRIM_EMU_USE_UCONTEXT 1
#include <ucontext.h>
#endif

// ---------------------------------------------------------------------------
// Qualifiers
// ---------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __grid_constant__
#define __device_builtin__
#define __forceinline__ inline
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(n) __attribute__((aligned(n)))
// Blocks run one at a time, so a block's static shared memory is a static
// variable.  The section (together with the linker script written by
// primitives/_core/emulator.py, which also collects the static locals of
// templates) lets the runtime poison all of it at every block start in race
// mode.
// Do not write "static __shared__" or "extern __shared__" (use
// PRIM_DYNAMIC_SHARED for dynamic shared memory).
#define __shared__ __attribute__((section(".bss.prim_emu_shared"), aligned(16))) static
#ifndef __builtin_assume
#define __builtin_assume(x) ((void)0)
#endif

// ---------------------------------------------------------------------------
// Vector types (CUDA alignments) and make_* helpers
// ---------------------------------------------------------------------------
#define PRIM_EMU_VEC1(N, T, A)                     \
    struct __attribute__((aligned(A))) N { T x; }; \
    inline N make_##N(T x) {                       \
        N r;                                       \
        r.x = x;                                   \
        return r;                                  \
    }
#define PRIM_EMU_VEC2(N, T, A)                        \
    struct __attribute__((aligned(A))) N { T x, y; }; \
    inline N make_##N(T x, T y) {                     \
        N r;                                          \
        r.x = x;                                      \
        r.y = y;                                      \
        return r;                                     \
    }
#define PRIM_EMU_VEC3(N, T, A)                           \
    struct __attribute__((aligned(A))) N { T x, y, z; }; \
    inline N make_##N(T x, T y, T z) {                   \
        N r;                                             \
        r.x = x;                                         \
        r.y = y;                                         \
        r.z = z;                                         \
        return r;                                        \
    }
#define PRIM_EMU_VEC4(N, T, A)                              \
    struct __attribute__((aligned(A))) N { T x, y, z, w; }; \
    inline N make_##N(T x, T y, T z, T w) {                 \
        N r;                                                \
        r.x = x;                                            \
        r.y = y;                                            \
        r.z = z;                                            \
        r.w = w;                                            \
        return r;                                           \
    }

PRIM_EMU_VEC1(char1, signed char, 1)
PRIM_EMU_VEC2(char2, signed char, 2)
PRIM_EMU_VEC3(char3, signed char, 1)
PRIM_EMU_VEC4(char4, signed char, 4)
PRIM_EMU_VEC1(uchar1, unsigned char, 1)
PRIM_EMU_VEC2(uchar2, unsigned char, 2)
PRIM_EMU_VEC3(uchar3, unsigned char, 1)
PRIM_EMU_VEC4(uchar4, unsigned char, 4)
PRIM_EMU_VEC1(short1, short, 2)
PRIM_EMU_VEC2(short2, short, 4)
PRIM_EMU_VEC3(short3, short, 2)
PRIM_EMU_VEC4(short4, short, 8)
PRIM_EMU_VEC1(ushort1, unsigned short, 2)
PRIM_EMU_VEC2(ushort2, unsigned short, 4)
PRIM_EMU_VEC3(ushort3, unsigned short, 2)
PRIM_EMU_VEC4(ushort4, unsigned short, 8)
PRIM_EMU_VEC1(int1, int, 4)
PRIM_EMU_VEC2(int2, int, 8)
PRIM_EMU_VEC3(int3, int, 4)
PRIM_EMU_VEC4(int4, int, 16)
PRIM_EMU_VEC1(uint1, unsigned int, 4)
PRIM_EMU_VEC2(uint2, unsigned int, 8)
PRIM_EMU_VEC3(uint3, unsigned int, 4)
PRIM_EMU_VEC4(uint4, unsigned int, 16)
PRIM_EMU_VEC1(long1, long, 8)
PRIM_EMU_VEC2(long2, long, 16)
PRIM_EMU_VEC1(ulong1, unsigned long, 8)
PRIM_EMU_VEC2(ulong2, unsigned long, 16)
PRIM_EMU_VEC1(longlong1, long long, 8)
PRIM_EMU_VEC2(longlong2, long long, 16)
PRIM_EMU_VEC1(ulonglong1, unsigned long long, 8)
PRIM_EMU_VEC2(ulonglong2, unsigned long long, 16)
PRIM_EMU_VEC1(float1, float, 4)
PRIM_EMU_VEC2(float2, float, 8)
PRIM_EMU_VEC3(float3, float, 4)
PRIM_EMU_VEC4(float4, float, 16)
PRIM_EMU_VEC1(double1, double, 8)
PRIM_EMU_VEC2(double2, double, 16)
PRIM_EMU_VEC3(double3, double, 8)
PRIM_EMU_VEC4(double4, double, 16)

struct dim3 {
    unsigned int x, y, z;
    constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
        : x(vx),
          y(vy),
          z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
    constexpr operator uint3() const { return uint3{x, y, z}; }
};

static constexpr int warpSize = 32;

// ---------------------------------------------------------------------------
// Runtime
// ---------------------------------------------------------------------------
#define PRIM_EMU_EXPORT extern "C" __attribute__((visibility("default")))
#define PRIM_EMU_ABI 1
#define PRIM_EMU_MAX_THREADS 1024
#define PRIM_EMU_MAX_DYN_SHARED (227 * 1024)

#ifndef PRIM_EMU_USE_UCONTEXT
// void prim_emu_swap_ctx(void** save_sp, void* new_sp): saves callee-saved
// registers, MXCSR and the x87 control word on the current stack, stores the
// stack pointer in *save_sp and resumes the context whose stack pointer is
// new_sp (System V x86-64).
__asm__(
    ".pushsection .text\n"
    ".weak prim_emu_swap_ctx\n"
    ".hidden prim_emu_swap_ctx\n"
    ".type prim_emu_swap_ctx,@function\n"
    ".p2align 4\n"
    "prim_emu_swap_ctx:\n"
    "  pushq %rbp\n"
    "  pushq %rbx\n"
    "  pushq %r12\n"
    "  pushq %r13\n"
    "  pushq %r14\n"
    "  pushq %r15\n"
    "  subq $16, %rsp\n"
    "  stmxcsr (%rsp)\n"
    "  fnstcw 4(%rsp)\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  ldmxcsr (%rsp)\n"
    "  fldcw 4(%rsp)\n"
    "  addq $16, %rsp\n"
    "  popq %r15\n"
    "  popq %r14\n"
    "  popq %r13\n"
    "  popq %r12\n"
    "  popq %rbx\n"
    "  popq %rbp\n"
    "  ret\n"
    ".size prim_emu_swap_ctx, .-prim_emu_swap_ctx\n"
    ".popsection\n");
extern "C" __attribute__((visibility("hidden"))) void prim_emu_swap_ctx(void** save_sp,
                                                                        void* new_sp);
#endif

// Bounds of static shared memory (defined by the linker script; weak: absent
// when the module was linked without it).
extern "C" __attribute__((weak, visibility("hidden"))) char prim_emu_tshared_begin[];
extern "C" __attribute__((weak, visibility("hidden"))) char prim_emu_tshared_end[];

namespace prim_emu {

enum : int { ST_RUN = 0, ST_BAR, ST_WARP, ST_SLEEP, ST_EXIT, ST_ERROR };

enum : int { BAR_PLAIN = 0, BAR_COUNT, BAR_AND, BAR_OR };

enum : int {
    W_SYNCWARP = 1,
    W_SHFL,
    W_SHFL_UP,
    W_SHFL_DOWN,
    W_SHFL_XOR,
    W_BALLOT,
    W_ANY,
    W_ALL,
    W_MATCH_ANY,
    W_MATCH_ALL,
    W_REDUCE_ADD,
    W_REDUCE_MIN,
    W_REDUCE_MAX,
    W_REDUCE_AND,
    W_REDUCE_OR,
    W_REDUCE_XOR,
    W_PHASE2 = 0x100
};

inline const char* warp_kind_name(int k) {
    static const char* const names[] = {"?",
                                        "__syncwarp",
                                        "__shfl_sync",
                                        "__shfl_up_sync",
                                        "__shfl_down_sync",
                                        "__shfl_xor_sync",
                                        "__ballot_sync",
                                        "__any_sync",
                                        "__all_sync",
                                        "__match_any_sync",
                                        "__match_all_sync",
                                        "__reduce_add_sync",
                                        "__reduce_min_sync",
                                        "__reduce_max_sync",
                                        "__reduce_and_sync",
                                        "__reduce_or_sync",
                                        "__reduce_xor_sync"};
    k &= 0xff;
    return (k >= 1 && k <= W_REDUCE_XOR) ? names[k] : "?";
}

inline const char* bar_kind_name(int k) {
    switch (k) {
        case BAR_COUNT:
            return "__syncthreads_count";
        case BAR_AND:
            return "__syncthreads_and";
        case BAR_OR:
            return "__syncthreads_or";
        default:
            return "__syncthreads";
    }
}

// Memory shared by every module of the process (allocated once by
// prim_emu_pool_create, passed to each launch): fiber stacks with guard
// pages, the dynamic shared memory window (guard page after it) and the
// signal stack.  Launches are serialised by the Python side.
struct Pool {
    long long abi;
    char* base;
    size_t total;
    size_t stride;  // guard page + stack
    size_t stack_size;
    size_t nfibers;
    char* dyn_lo;  // dynamic shared window [dyn_lo, dyn_hi); guard page at dyn_hi
    char* dyn_hi;
    char* altstack;
    size_t altstack_size;
};

struct Fiber {
    void* sp;
    uint3 tid;
    unsigned linear, lane, warp;
    int state;
    int bar_kind, pred;
    const char* file;
    int line;
    unsigned wmask;
    int wkind;
#ifdef PRIM_EMU_USE_UCONTEXT
    ucontext_t uc;
#endif
};

struct Runtime {
    Fiber fibers[PRIM_EMU_MAX_THREADS];
    unsigned ready[PRIM_EMU_MAX_THREADS];
    uint64_t xfer[PRIM_EMU_MAX_THREADS];
    unsigned exists[PRIM_EMU_MAX_THREADS / 32];
    unsigned exited[PRIM_EMU_MAX_THREADS / 32];  // as of the start of the current round
    unsigned exiting[PRIM_EMU_MAX_THREADS / 32];  // exited during the current round
    unsigned waiting[PRIM_EMU_MAX_THREADS / 32];
    Fiber* cur;
    void* sched_sp;
#ifdef PRIM_EMU_USE_UCONTEXT
    ucontext_t sched_uc;
#endif
    volatile sig_atomic_t in_fiber;
    Pool* pool;
    unsigned nthreads, nwarps;
    dim3 grid, block;
    uint3 block_idx;
    char* dyn;
    size_t dyn_size;
    void (*invoke)(void*);
    void* ctx;
    int bar_result;
    bool race;
    uint64_t rng;
    long long spin_limit;
    unsigned mxcsr;
    unsigned short fpucw;
    long long clock;
    sigjmp_buf jb;
    int fault_sig;
    void* fault_addr;
    struct sigaction old_act[3];
    stack_t old_ss;
    char msg[4096];
    size_t msg_len;
};

inline Runtime rt;

// ----- messages ------------------------------------------------------------
inline void msg_clear() {
    rt.msg[0] = 0;
    rt.msg_len = 0;
}
__attribute__((format(printf, 1, 2))) inline void msg_add(const char* fmt, ...) {
    if (rt.msg_len + 1 >= sizeof(rt.msg)) return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(rt.msg + rt.msg_len, sizeof(rt.msg) - rt.msg_len, fmt, ap);
    va_end(ap);
    if (n > 0) rt.msg_len += (size_t)n;
    if (rt.msg_len >= sizeof(rt.msg)) rt.msg_len = sizeof(rt.msg) - 1;
}
inline void msg_block() {
    msg_add("block (%u,%u,%u)", rt.block_idx.x, rt.block_idx.y, rt.block_idx.z);
}
inline void msg_thread(const Fiber* f) {
    msg_add("thread (%u,%u,%u)", f->tid.x, f->tid.y, f->tid.z);
    if (rt.block.y * rt.block.z > 1) msg_add(" [linear %u]", f->linear);
}
// Appends the linear indices of the fibers selected by pred as ranges.
template <class P>
inline void msg_threads(P pred) {
    unsigned n = rt.nthreads, count = 0, shown = 0;
    for (unsigned i = 0; i < n; ++i) count += pred(rt.fibers[i]) ? 1 : 0;
    msg_add(count == 1 ? "thread " : "threads ");
    bool first = true;
    for (unsigned i = 0; i < n;) {
        if (!pred(rt.fibers[i])) {
            ++i;
            continue;
        }
        unsigned j = i;
        while (j + 1 < n && pred(rt.fibers[j + 1])) ++j;
        if (shown == 8) {
            msg_add(", ...");
            break;
        }
        msg_add(first ? "%u" : ", %u", i);
        if (j > i) msg_add("-%u", j);
        first = false;
        ++shown;
        i = j + 1;
    }
    if (rt.block.y * rt.block.z > 1) msg_add(" (linear thread index, x fastest)");
}

// ----- context switching ---------------------------------------------------
inline void fiber_main();

#ifndef PRIM_EMU_USE_UCONTEXT
[[noreturn]] inline void fiber_entry() {
    fiber_main();
    __builtin_unreachable();
}
inline void switch_to_scheduler(Fiber* f) {
    __asm__ __volatile__("" ::: "memory");
    prim_emu_swap_ctx(&f->sp, rt.sched_sp);
    __asm__ __volatile__("" ::: "memory");
}
inline void resume(Fiber* f) {
    rt.cur = f;
    rt.in_fiber = 1;
    __asm__ __volatile__("" ::: "memory");
    prim_emu_swap_ctx(&rt.sched_sp, f->sp);
    __asm__ __volatile__("" ::: "memory");
    rt.in_fiber = 0;
}
inline void prepare_fiber(Fiber* f, char* stack_lo, size_t stack_size, unsigned i) {
    (void)stack_lo;
    // stagger the stack tops so that the fibers' hot lines use different cache sets
    size_t offset = (size_t)(i & 63) * 64 + (size_t)((i >> 6) & 7) * 512;
    uintptr_t top = ((uintptr_t)(stack_lo + stack_size) - offset) & ~(uintptr_t)15;
    uint64_t* sp = (uint64_t*)top;
    *--sp = 0;  // return address of fiber_entry (none)
    *--sp = (uint64_t)(uintptr_t)&fiber_entry;  // popped by 'ret'
    for (int r = 0; r < 6; ++r) *--sp = 0;  // rbp rbx r12 r13 r14 r15
    sp -= 2;
    uint32_t ctl[4] = {rt.mxcsr, (uint32_t)rt.fpucw, 0, 0};
    memcpy(sp, ctl, sizeof ctl);
    f->sp = sp;
}
inline void capture_fp_control() {
    unsigned m;
    unsigned short c;
    __asm__ __volatile__("stmxcsr %0" : "=m"(m));
    __asm__ __volatile__("fnstcw %0" : "=m"(c));
    rt.mxcsr = m;
    rt.fpucw = c;
}
#else
inline void fiber_entry_uc() { fiber_main(); }
inline void switch_to_scheduler(Fiber* f) { swapcontext(&f->uc, &rt.sched_uc); }
inline void resume(Fiber* f) {
    rt.cur = f;
    rt.in_fiber = 1;
    swapcontext(&rt.sched_uc, &f->uc);
    rt.in_fiber = 0;
}
inline void prepare_fiber(Fiber* f, char* stack_lo, size_t stack_size, unsigned) {
    getcontext(&f->uc);
    f->uc.uc_stack.ss_sp = stack_lo;
    f->uc.uc_stack.ss_size = stack_size;
    f->uc.uc_link = nullptr;
    makecontext(&f->uc, (void (*)())fiber_entry_uc, 0);
}
inline void capture_fp_control() {}
#endif

// ----- fiber side ----------------------------------------------------------
inline Fiber* current() {
    if (__builtin_expect(!rt.in_fiber, 0)) {
        fprintf(stderr, "primitives emulator: device intrinsic called outside a kernel launch\n");
        abort();
    }
    return rt.cur;
}

// Reports an error from inside a fiber; the fiber is never resumed.
[[noreturn]] __attribute__((format(printf, 1, 2))) inline void fail(const char* fmt, ...) {
    Fiber* f = current();
    msg_clear();
    msg_block();
    msg_add(", ");
    msg_thread(f);
    msg_add(": ");
    if (rt.msg_len + 1 < sizeof(rt.msg)) {
        va_list ap;
        va_start(ap, fmt);
        int n = vsnprintf(rt.msg + rt.msg_len, sizeof(rt.msg) - rt.msg_len, fmt, ap);
        va_end(ap);
        if (n > 0) rt.msg_len += (size_t)n;
        if (rt.msg_len >= sizeof(rt.msg)) rt.msg_len = sizeof(rt.msg) - 1;
    }
    f->state = ST_ERROR;
    switch_to_scheduler(f);
    __builtin_unreachable();
}

inline void fiber_main() {
    rt.invoke(rt.ctx);
    Fiber* f = rt.cur;
    f->state = ST_EXIT;
    switch_to_scheduler(f);
    __builtin_unreachable();
}

inline int block_barrier(int kind, int pred, const char* file, int line) {
    Fiber* f = current();
    f->state = ST_BAR;
    f->bar_kind = kind;
    f->pred = pred != 0;
    f->file = file;
    f->line = line;
    switch_to_scheduler(f);
    return rt.bar_result;
}

inline void warp_arrive(Fiber* f, unsigned mask, int kind) {
    if (__builtin_expect(!((mask >> f->lane) & 1u), 0))
        fail("%s called with mask 0x%08x that does not include the calling lane %u",
             warp_kind_name(kind), mask, f->lane);
    f->state = ST_WARP;
    f->wmask = mask;
    f->wkind = kind;
    switch_to_scheduler(f);
}

// lanes that take part in the current warp operation of f
inline unsigned participants(const Fiber* f) { return f->wmask & rt.exists[f->warp]; }

inline uint64_t* warp_slots(const Fiber* f) { return rt.xfer + (size_t)f->warp * 32; }

// Generic warp exchange: deposit, sync, combine, sync.
template <class T, class Combine>
inline auto warp_exchange(unsigned mask, T value, int kind, Combine combine) {
    static_assert(sizeof(T) <= 8 && std::is_trivially_copyable<T>::value,
                  "warp value must be <= 8 bytes");
    Fiber* f = current();
    uint64_t bits = 0;
    memcpy(&bits, &value, sizeof(T));
    rt.xfer[f->linear] = bits;
    warp_arrive(f, mask, kind);
    auto result = combine(f, participants(f), warp_slots(f));
    warp_arrive(f, mask, kind | W_PHASE2);
    return result;
}

template <class T>
inline T slot_as(uint64_t bits) {
    T v;
    memcpy(&v, &bits, sizeof(T));
    return v;
}

enum { SH_IDX, SH_UP, SH_DOWN, SH_XOR };

template <class T>
inline T shfl_impl(unsigned mask, T var, long long b, int width, int mode, int kind) {
    static_assert(sizeof(T) == 4 || sizeof(T) == 8, "shuffle of a 4- or 8-byte type");
    if (__builtin_expect(width < 1 || width > 32 || (width & (width - 1)) != 0, 0))
        fail("%s: width %d is not a power of two in [1, 32]", warp_kind_name(kind), width);
    return warp_exchange(mask, var, kind, [&](Fiber* f, unsigned part, const uint64_t* s) -> T {
        long long lane = f->lane;
        long long seg = 32 - width;  // lane bits that select the segment
        long long start = lane & seg, end = start | (31 & ~seg);
        long long j;
        bool ok;
        switch (mode) {
            case SH_IDX:
                j = start | (b & 31 & ~seg);
                ok = true;
                break;
            case SH_UP:
                j = lane - b;
                ok = j >= start;
                break;
            case SH_DOWN:
                j = lane + b;
                ok = j <= end;
                break;
            default:
                j = lane ^ b;
                ok = j >= 0 && j <= end;
                break;
        }
        if (!ok || j == lane) return var;
        if (!((part >> j) & 1u)) {  // source lane does not take part: undefined value
            uint64_t poison = ~(uint64_t)0;
            return slot_as<T>(poison);
        }
        return slot_as<T>(s[j]);
    });
}

}  // namespace prim_emu

// ---------------------------------------------------------------------------
// Built-in variables
// ---------------------------------------------------------------------------
#define threadIdx (static_cast<const uint3&>(::prim_emu::rt.cur->tid))
#define blockIdx (static_cast<const uint3&>(::prim_emu::rt.block_idx))
#define blockDim (static_cast<const dim3&>(::prim_emu::rt.block))
#define gridDim (static_cast<const dim3&>(::prim_emu::rt.grid))

// Dynamic shared memory of the launch (shared_mem bytes, 16-byte aligned).
#define PRIM_DYNAMIC_SHARED(T, name) T* name = reinterpret_cast<T*>(::prim_emu::rt.dyn)

// ---------------------------------------------------------------------------
// Synchronisation
// ---------------------------------------------------------------------------
#define __syncthreads() \
    ((void)::prim_emu::block_barrier(::prim_emu::BAR_PLAIN, 0, __FILE__, __LINE__))
#define __syncthreads_count(...) \
    ::prim_emu::block_barrier(::prim_emu::BAR_COUNT, (__VA_ARGS__) ? 1 : 0, __FILE__, __LINE__)
#define __syncthreads_and(...) \
    ::prim_emu::block_barrier(::prim_emu::BAR_AND, (__VA_ARGS__) ? 1 : 0, __FILE__, __LINE__)
#define __syncthreads_or(...) \
    ::prim_emu::block_barrier(::prim_emu::BAR_OR, (__VA_ARGS__) ? 1 : 0, __FILE__, __LINE__)

inline void __syncwarp(unsigned mask = 0xffffffffu) {
    ::prim_emu::Fiber* f = ::prim_emu::current();
    ::prim_emu::warp_arrive(f, mask, ::prim_emu::W_SYNCWARP);
}

inline void __nanosleep(unsigned) {
    ::prim_emu::Fiber* f = ::prim_emu::current();
    f->state = ::prim_emu::ST_SLEEP;
    ::prim_emu::switch_to_scheduler(f);
}

inline void __threadfence() { __asm__ __volatile__("" ::: "memory"); }
inline void __threadfence_block() { __asm__ __volatile__("" ::: "memory"); }
inline void __threadfence_system() { __asm__ __volatile__("" ::: "memory"); }

[[noreturn]] inline void __trap() { ::prim_emu::fail("__trap() called"); }
[[noreturn]] inline void __brkpt() { ::prim_emu::fail("__brkpt() called"); }

extern "C" [[noreturn]] inline void prim_emu_assert_fail(const char* expr, const char* file,
                                                         unsigned line, const char* func) noexcept {
    if (!::prim_emu::rt.in_fiber) {
        fprintf(stderr, "%s:%u: %s: Assertion `%s' failed.\n", file, line, func, expr);
        abort();
    }
    ::prim_emu::fail("assertion `%s' failed at %s:%u in %s", expr, file, line, func);
}

inline long long clock64() { return ++::prim_emu::rt.clock; }

// ---------------------------------------------------------------------------
// Warp intrinsics
// ---------------------------------------------------------------------------
// Lanes of the warp that have not exited.  Yields once first, so that lanes
// which leave the kernel before their next synchronisation point (e.g. after
// an early "return") have done so, as on a GPU where they would not be active.
inline unsigned __activemask() {
    ::prim_emu::Fiber* f = ::prim_emu::current();
    f->state = ::prim_emu::ST_SLEEP;
    ::prim_emu::switch_to_scheduler(f);
    return ::prim_emu::rt.exists[f->warp] & ~::prim_emu::rt.exited[f->warp];
}

#define PRIM_EMU_SHFL(T)                                                                         \
    inline T __shfl_sync(unsigned mask, T var, int srcLane, int width = 32) {                    \
        return ::prim_emu::shfl_impl<T>(mask, var, srcLane, width, ::prim_emu::SH_IDX,           \
                                        ::prim_emu::W_SHFL);                                     \
    }                                                                                            \
    inline T __shfl_up_sync(unsigned mask, T var, unsigned int delta, int width = 32) {          \
        return ::prim_emu::shfl_impl<T>(mask, var, (long long)delta, width, ::prim_emu::SH_UP,   \
                                        ::prim_emu::W_SHFL_UP);                                  \
    }                                                                                            \
    inline T __shfl_down_sync(unsigned mask, T var, unsigned int delta, int width = 32) {        \
        return ::prim_emu::shfl_impl<T>(mask, var, (long long)delta, width, ::prim_emu::SH_DOWN, \
                                        ::prim_emu::W_SHFL_DOWN);                                \
    }                                                                                            \
    inline T __shfl_xor_sync(unsigned mask, T var, int laneMask, int width = 32) {               \
        return ::prim_emu::shfl_impl<T>(mask, var, laneMask, width, ::prim_emu::SH_XOR,          \
                                        ::prim_emu::W_SHFL_XOR);                                 \
    }                                                                                            \
    inline unsigned __match_any_sync(unsigned mask, T value) {                                   \
        return ::prim_emu::warp_exchange(                                                        \
            mask, value, ::prim_emu::W_MATCH_ANY,                                                \
            [&](::prim_emu::Fiber* f, unsigned part, const uint64_t* s) {                        \
                unsigned r = 0;                                                                  \
                uint64_t mine = s[f->lane];                                                      \
                for (unsigned j = 0; j < 32; ++j)                                                \
                    if (((part >> j) & 1u) && s[j] == mine) r |= 1u << j;                        \
                return r;                                                                        \
            });                                                                                  \
    }                                                                                            \
    inline unsigned __match_all_sync(unsigned mask, T value, int* pred) {                        \
        unsigned r = ::prim_emu::warp_exchange(                                                  \
            mask, value, ::prim_emu::W_MATCH_ALL,                                                \
            [&](::prim_emu::Fiber* f, unsigned part, const uint64_t* s) {                        \
                uint64_t mine = s[f->lane];                                                      \
                for (unsigned j = 0; j < 32; ++j)                                                \
                    if (((part >> j) & 1u) && s[j] != mine) return 0u;                           \
                return part;                                                                     \
            });                                                                                  \
        *pred = r != 0;                                                                          \
        return r;                                                                                \
    }

PRIM_EMU_SHFL(int)
PRIM_EMU_SHFL(unsigned int)
PRIM_EMU_SHFL(long)
PRIM_EMU_SHFL(unsigned long)
PRIM_EMU_SHFL(long long)
PRIM_EMU_SHFL(unsigned long long)
PRIM_EMU_SHFL(float)
PRIM_EMU_SHFL(double)
#undef PRIM_EMU_SHFL

inline unsigned __ballot_sync(unsigned mask, int predicate) {
    return ::prim_emu::warp_exchange(mask, (int)(predicate != 0), ::prim_emu::W_BALLOT,
                                     [](::prim_emu::Fiber*, unsigned part, const uint64_t* s) {
                                         unsigned r = 0;
                                         for (unsigned j = 0; j < 32; ++j)
                                             if (((part >> j) & 1u) && s[j]) r |= 1u << j;
                                         return r;
                                     });
}
inline int __any_sync(unsigned mask, int predicate) {
    return ::prim_emu::warp_exchange(mask, (int)(predicate != 0), ::prim_emu::W_ANY,
                                     [](::prim_emu::Fiber*, unsigned part, const uint64_t* s) {
                                         for (unsigned j = 0; j < 32; ++j)
                                             if (((part >> j) & 1u) && s[j]) return 1;
                                         return 0;
                                     });
}
inline int __all_sync(unsigned mask, int predicate) {
    return ::prim_emu::warp_exchange(mask, (int)(predicate != 0), ::prim_emu::W_ALL,
                                     [](::prim_emu::Fiber*, unsigned part, const uint64_t* s) {
                                         for (unsigned j = 0; j < 32; ++j)
                                             if (((part >> j) & 1u) && !s[j]) return 0;
                                         return 1;
                                     });
}

#define PRIM_EMU_WREDUCE(NAME, KIND, T, INIT, OP)                      \
    inline T NAME(unsigned mask, T value) {                            \
        return ::prim_emu::warp_exchange(                              \
            mask, value, ::prim_emu::KIND,                             \
            [](::prim_emu::Fiber*, unsigned part, const uint64_t* s) { \
                T acc = INIT;                                          \
                for (unsigned j = 0; j < 32; ++j)                      \
                    if ((part >> j) & 1u) {                            \
                        T v = ::prim_emu::slot_as<T>(s[j]);            \
                        acc = OP;                                      \
                    }                                                  \
                return acc;                                            \
            });                                                        \
    }
PRIM_EMU_WREDUCE(__reduce_add_sync, W_REDUCE_ADD, unsigned, 0u, acc + v)
PRIM_EMU_WREDUCE(__reduce_add_sync, W_REDUCE_ADD, int, 0, (int)((unsigned)acc + (unsigned)v))
PRIM_EMU_WREDUCE(__reduce_min_sync, W_REDUCE_MIN, unsigned, 0xffffffffu, (v < acc ? v : acc))
PRIM_EMU_WREDUCE(__reduce_min_sync, W_REDUCE_MIN, int, INT_MAX, (v < acc ? v : acc))
PRIM_EMU_WREDUCE(__reduce_max_sync, W_REDUCE_MAX, unsigned, 0u, (v > acc ? v : acc))
PRIM_EMU_WREDUCE(__reduce_max_sync, W_REDUCE_MAX, int, INT_MIN, (v > acc ? v : acc))
PRIM_EMU_WREDUCE(__reduce_and_sync, W_REDUCE_AND, unsigned, 0xffffffffu, acc& v)
PRIM_EMU_WREDUCE(__reduce_or_sync, W_REDUCE_OR, unsigned, 0u, acc | v)
PRIM_EMU_WREDUCE(__reduce_xor_sync, W_REDUCE_XOR, unsigned, 0u, acc ^ v)
#undef PRIM_EMU_WREDUCE

// ---------------------------------------------------------------------------
// Atomics (the emulator runs on one OS thread: plain read-modify-write)
// ---------------------------------------------------------------------------
#define PRIM_EMU_ATOMIC(NAME, T, EXPR) \
    inline T NAME(T* address, T val) { \
        T old = *address;              \
        *address = (EXPR);             \
        return old;                    \
    }
PRIM_EMU_ATOMIC(atomicAdd, int, (int)((unsigned)old + (unsigned)val))
PRIM_EMU_ATOMIC(atomicAdd, unsigned int, old + val)
PRIM_EMU_ATOMIC(atomicAdd, unsigned long long, old + val)
PRIM_EMU_ATOMIC(atomicAdd, float, old + val)
PRIM_EMU_ATOMIC(atomicAdd, double, old + val)
PRIM_EMU_ATOMIC(atomicSub, int, (int)((unsigned)old - (unsigned)val))
PRIM_EMU_ATOMIC(atomicSub, unsigned int, old - val)
PRIM_EMU_ATOMIC(atomicExch, int, val)
PRIM_EMU_ATOMIC(atomicExch, unsigned int, val)
PRIM_EMU_ATOMIC(atomicExch, unsigned long long, val)
PRIM_EMU_ATOMIC(atomicExch, float, val)
PRIM_EMU_ATOMIC(atomicMin, int, (val < old ? val : old))
PRIM_EMU_ATOMIC(atomicMin, unsigned int, (val < old ? val : old))
PRIM_EMU_ATOMIC(atomicMin, long long, (val < old ? val : old))
PRIM_EMU_ATOMIC(atomicMin, unsigned long long, (val < old ? val : old))
PRIM_EMU_ATOMIC(atomicMax, int, (val > old ? val : old))
PRIM_EMU_ATOMIC(atomicMax, unsigned int, (val > old ? val : old))
PRIM_EMU_ATOMIC(atomicMax, long long, (val > old ? val : old))
PRIM_EMU_ATOMIC(atomicMax, unsigned long long, (val > old ? val : old))
PRIM_EMU_ATOMIC(atomicInc, unsigned int, (old >= val ? 0u : old + 1u))
PRIM_EMU_ATOMIC(atomicDec, unsigned int, ((old == 0u || old > val) ? val : old - 1u))
PRIM_EMU_ATOMIC(atomicAnd, int, old& val)
PRIM_EMU_ATOMIC(atomicAnd, unsigned int, old& val)
PRIM_EMU_ATOMIC(atomicAnd, unsigned long long, old& val)
PRIM_EMU_ATOMIC(atomicOr, int, old | val)
PRIM_EMU_ATOMIC(atomicOr, unsigned int, old | val)
PRIM_EMU_ATOMIC(atomicOr, unsigned long long, old | val)
PRIM_EMU_ATOMIC(atomicXor, int, old ^ val)
PRIM_EMU_ATOMIC(atomicXor, unsigned int, old ^ val)
PRIM_EMU_ATOMIC(atomicXor, unsigned long long, old ^ val)
#undef PRIM_EMU_ATOMIC

#define PRIM_EMU_CAS(T)                                \
    inline T atomicCAS(T* address, T compare, T val) { \
        T old = *address;                              \
        if (old == compare) *address = val;            \
        return old;                                    \
    }
PRIM_EMU_CAS(int)
PRIM_EMU_CAS(unsigned int)
PRIM_EMU_CAS(unsigned long long)
PRIM_EMU_CAS(unsigned short)
#undef PRIM_EMU_CAS

#define PRIM_EMU_ATOMIC_ALIAS(NAME)                             \
    template <class... A>                                       \
    inline auto NAME##_block(A... a) -> decltype(NAME(a...)) {  \
        return NAME(a...);                                      \
    }                                                           \
    template <class... A>                                       \
    inline auto NAME##_system(A... a) -> decltype(NAME(a...)) { \
        return NAME(a...);                                      \
    }
PRIM_EMU_ATOMIC_ALIAS(atomicAdd)
PRIM_EMU_ATOMIC_ALIAS(atomicSub)
PRIM_EMU_ATOMIC_ALIAS(atomicExch)
PRIM_EMU_ATOMIC_ALIAS(atomicMin)
PRIM_EMU_ATOMIC_ALIAS(atomicMax)
PRIM_EMU_ATOMIC_ALIAS(atomicInc)
PRIM_EMU_ATOMIC_ALIAS(atomicDec)
PRIM_EMU_ATOMIC_ALIAS(atomicCAS)
PRIM_EMU_ATOMIC_ALIAS(atomicAnd)
PRIM_EMU_ATOMIC_ALIAS(atomicOr)
PRIM_EMU_ATOMIC_ALIAS(atomicXor)
#undef PRIM_EMU_ATOMIC_ALIAS

// ---------------------------------------------------------------------------
// Cache-hinted loads and stores (plain)
// ---------------------------------------------------------------------------
template <class T> inline T __ldg(const T* p) { return *p; }
template <class T> inline T __ldcg(const T* p) { return *p; }
template <class T> inline T __ldca(const T* p) { return *p; }
template <class T> inline T __ldcs(const T* p) { return *p; }
template <class T> inline T __ldlu(const T* p) { return *p; }
template <class T> inline T __ldcv(const T* p) { return *p; }
template <class T> inline void __stcg(T* p, std::common_type_t<T> v) { *p = v; }
template <class T> inline void __stcs(T* p, std::common_type_t<T> v) { *p = v; }
template <class T> inline void __stwb(T* p, std::common_type_t<T> v) { *p = v; }
template <class T> inline void __stwt(T* p, std::common_type_t<T> v) { *p = v; }

// ---------------------------------------------------------------------------
// Integer intrinsics
// ---------------------------------------------------------------------------
inline int __popc(unsigned int x) { return __builtin_popcount(x); }
inline int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
inline int __clzll(long long x) { return x ? __builtin_clzll((unsigned long long)x) : 64; }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline int __ffsll(long long x) { return __builtin_ffsll(x); }
inline unsigned int __brev(unsigned int x) {
    x = ((x >> 1) & 0x55555555u) | ((x & 0x55555555u) << 1);
    x = ((x >> 2) & 0x33333333u) | ((x & 0x33333333u) << 2);
    x = ((x >> 4) & 0x0f0f0f0fu) | ((x & 0x0f0f0f0fu) << 4);
    return __builtin_bswap32(x);
}
inline unsigned long long __brevll(unsigned long long x) {
    return ((unsigned long long)__brev((unsigned)x) << 32) | __brev((unsigned)(x >> 32));
}
inline unsigned int __umulhi(unsigned int a, unsigned int b) {
    return (unsigned)(((unsigned long long)a * b) >> 32);
}
inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline long long __mul64hi(long long a, long long b) {
    return (long long)(((__int128)a * b) >> 64);
}
inline int __mul24(int a, int b) { return (int)(((a << 8) >> 8) * ((b << 8) >> 8)); }
inline unsigned int __umul24(unsigned int a, unsigned int b) {
    return (a & 0xffffffu) * (b & 0xffffffu);
}
inline int __hadd(int a, int b) { return (int)(((long long)a + b) >> 1); }
inline int __rhadd(int a, int b) { return (int)(((long long)a + b + 1) >> 1); }
inline unsigned int __uhadd(unsigned a, unsigned b) {
    return (unsigned)(((unsigned long long)a + b) >> 1);
}
inline unsigned int __urhadd(unsigned a, unsigned b) {
    return (unsigned)(((unsigned long long)a + b + 1) >> 1);
}
inline unsigned int __sad(int x, int y, unsigned z) {
    return (x > y ? (unsigned)x - (unsigned)y : (unsigned)y - (unsigned)x) + z;
}
inline unsigned int __usad(unsigned x, unsigned y, unsigned z) {
    return (x > y ? x - y : y - x) + z;
}
inline unsigned int __byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned long long v = ((unsigned long long)y << 32) | x;
    unsigned r = 0;
    for (int i = 0; i < 4; ++i)
        r |= (unsigned)((v >> (((s >> (4 * i)) & 7u) * 8)) & 0xffu) << (8 * i);
    return r;
}
inline unsigned int __funnelshift_l(unsigned lo, unsigned hi, unsigned shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)((v << (shift & 31u)) >> 32);
}
inline unsigned int __funnelshift_lc(unsigned lo, unsigned hi, unsigned shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)((v << (shift < 32u ? shift : 32u)) >> 32);
}
inline unsigned int __funnelshift_r(unsigned lo, unsigned hi, unsigned shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)(v >> (shift & 31u));
}
inline unsigned int __funnelshift_rc(unsigned lo, unsigned hi, unsigned shift) {
    unsigned long long v = ((unsigned long long)hi << 32) | lo;
    return (unsigned)(v >> (shift < 32u ? shift : 32u));
}

// ---------------------------------------------------------------------------
// min / max as CUDA provides them in device code
// ---------------------------------------------------------------------------
#define PRIM_EMU_MINMAX(A, B, R)                                 \
    inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; } \
    inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
PRIM_EMU_MINMAX(int, int, int)
PRIM_EMU_MINMAX(unsigned int, unsigned int, unsigned int)
PRIM_EMU_MINMAX(int, unsigned int, unsigned int)
PRIM_EMU_MINMAX(unsigned int, int, unsigned int)
PRIM_EMU_MINMAX(long, long, long)
PRIM_EMU_MINMAX(unsigned long, unsigned long, unsigned long)
PRIM_EMU_MINMAX(long, unsigned long, unsigned long)
PRIM_EMU_MINMAX(unsigned long, long, unsigned long)
PRIM_EMU_MINMAX(long long, long long, long long)
PRIM_EMU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
PRIM_EMU_MINMAX(long long, unsigned long long, unsigned long long)
PRIM_EMU_MINMAX(unsigned long long, long long, unsigned long long)
#undef PRIM_EMU_MINMAX
inline float min(float a, float b) { return fminf(a, b); }
inline float max(float a, float b) { return fmaxf(a, b); }
inline double min(double a, double b) { return fmin(a, b); }
inline double max(double a, double b) { return fmax(a, b); }
inline double min(float a, double b) { return fmin((double)a, b); }
inline double max(float a, double b) { return fmax((double)a, b); }
inline double min(double a, float b) { return fmin(a, (double)b); }
inline double max(double a, float b) { return fmax(a, (double)b); }
inline unsigned int umin(unsigned int a, unsigned int b) { return a < b ? a : b; }
inline unsigned int umax(unsigned int a, unsigned int b) { return a > b ? a : b; }
inline long long llmin(long long a, long long b) { return a < b ? a : b; }
inline long long llmax(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long ullmin(unsigned long long a, unsigned long long b) {
    return a < b ? a : b;
}
inline unsigned long long ullmax(unsigned long long a, unsigned long long b) {
    return a > b ? a : b;
}

using std::isfinite;
using std::isinf;
using std::isnan;
using std::signbit;

// ---------------------------------------------------------------------------
// Floating point intrinsics and conversions
// ---------------------------------------------------------------------------
namespace prim_emu {
template <class To, class From>
inline To bit_cast_(From v) {
    static_assert(sizeof(To) == sizeof(From), "size mismatch");
    To r;
    memcpy(&r, &v, sizeof r);
    return r;
}
// float -> integer conversion with CUDA's saturation (NaN -> 0)
template <class I, class F>
inline I sat_cvt(F v) {
    if (v != v) return 0;
    if (v <= (F)std::numeric_limits<I>::min()) return std::numeric_limits<I>::min();
    if (v >= (F)std::numeric_limits<I>::max()) return std::numeric_limits<I>::max();
    return (I)v;
}
}  // namespace prim_emu

inline int __float_as_int(float x) { return ::prim_emu::bit_cast_<int>(x); }
inline unsigned int __float_as_uint(float x) { return ::prim_emu::bit_cast_<unsigned int>(x); }
inline float __int_as_float(int x) { return ::prim_emu::bit_cast_<float>(x); }
inline float __uint_as_float(unsigned int x) { return ::prim_emu::bit_cast_<float>(x); }
inline long long __double_as_longlong(double x) { return ::prim_emu::bit_cast_<long long>(x); }
inline double __longlong_as_double(long long x) { return ::prim_emu::bit_cast_<double>(x); }
inline int __double2hiint(double x) { return (int)(__double_as_longlong(x) >> 32); }
inline int __double2loint(double x) { return (int)__double_as_longlong(x); }
inline double __hiloint2double(int hi, int lo) {
    return __longlong_as_double(
        (long long)(((unsigned long long)(unsigned)hi << 32) | (unsigned)lo));
}

inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return x > 0.0f ? (x < 1.0f ? x : 1.0f) : 0.0f; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
inline double rsqrt(double x) { return 1.0 / sqrt(x); }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float __fsqrt_rn(float x) { return sqrtf(x); }
inline float __fadd_rn(float a, float b) { return a + b; }
inline float __fsub_rn(float a, float b) { return a - b; }
// round-down addition: the sum rounded under FE_DOWNWARD (volatile keeps it between the mode
// switches)
inline float __fadd_rd(float a, float b) {
    const int mode = fegetround();
    fesetround(FE_DOWNWARD);
    volatile float va = a, vb = b;
    volatile float r = va + vb;
    fesetround(mode);
    return r;
}
inline float __fmul_rn(float a, float b) { return a * b; }
inline float __fdiv_rn(float a, float b) { return a / b; }
inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
inline double __dadd_rn(double a, double b) { return a + b; }
inline double __dsub_rn(double a, double b) { return a - b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline double __ddiv_rn(double a, double b) { return a / b; }
inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return powf(10.0f, x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __powf(float a, float b) { return powf(a, b); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline float __tanf(float x) { return tanf(x); }
inline int __float2int_rn(float x) { return ::prim_emu::sat_cvt<int>(nearbyintf(x)); }
inline int __float2int_rz(float x) { return ::prim_emu::sat_cvt<int>(truncf(x)); }
inline int __float2int_rd(float x) { return ::prim_emu::sat_cvt<int>(floorf(x)); }
inline int __float2int_ru(float x) { return ::prim_emu::sat_cvt<int>(ceilf(x)); }
inline unsigned int __float2uint_rn(float x) {
    return ::prim_emu::sat_cvt<unsigned>(nearbyintf(x));
}
inline unsigned int __float2uint_rz(float x) { return ::prim_emu::sat_cvt<unsigned>(truncf(x)); }
inline long long __float2ll_rn(float x) { return ::prim_emu::sat_cvt<long long>(nearbyintf(x)); }
inline long long __float2ll_rz(float x) { return ::prim_emu::sat_cvt<long long>(truncf(x)); }
inline int __double2int_rn(double x) { return ::prim_emu::sat_cvt<int>(nearbyint(x)); }
inline int __double2int_rz(double x) { return ::prim_emu::sat_cvt<int>(trunc(x)); }
inline long long __double2ll_rn(double x) { return ::prim_emu::sat_cvt<long long>(nearbyint(x)); }
inline long long __double2ll_rz(double x) { return ::prim_emu::sat_cvt<long long>(trunc(x)); }
inline float __double2float_rn(double x) { return (float)x; }
inline float __int2float_rn(int x) { return (float)x; }
inline float __uint2float_rn(unsigned x) { return (float)x; }
inline float __ll2float_rn(long long x) { return (float)x; }
inline float __ull2float_rn(unsigned long long x) { return (float)x; }
inline double __int2double_rn(int x) { return (double)x; }
inline double __uint2double_rn(unsigned x) { return (double)x; }
inline double __ll2double_rn(long long x) { return (double)x; }
inline double __ull2double_rn(unsigned long long x) { return (double)x; }

// ---------------------------------------------------------------------------
// Scheduler
// ---------------------------------------------------------------------------
namespace prim_emu {

inline uint64_t rng_next() {
    uint64_t z = (rt.rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

inline bool same_site(const Fiber& a, const Fiber& b) {
    return a.bar_kind == b.bar_kind && a.line == b.line &&
        (a.file == b.file || strcmp(a.file, b.file) == 0);
}

inline Fiber& lane_fiber(unsigned w, unsigned lane) { return rt.fibers[w * 32 + lane]; }

// Releases every complete group of lanes waiting at a warp sync of warp w.
// Returns the number of released lanes, or -1 on an error (rt.msg set).
inline int release_warp(unsigned w) {
    unsigned waiting = rt.waiting[w], dead = rt.exited[w], ex = rt.exists[w];
    unsigned rem = waiting;
    int released = 0;
    while (rem) {
        unsigned l = (unsigned)__builtin_ctz(rem);
        Fiber& f = lane_fiber(w, l);
        unsigned need = f.wmask & ex;
        if (need & dead) {
            msg_clear();
            msg_block();
            msg_add(
                ", warp %u: lane(s) waiting in %s(mask 0x%08x) name lane(s) 0x%08x that already "
                "exited "
                "(first waiting: ",
                w, warp_kind_name(f.wkind), f.wmask, need & dead);
            msg_thread(&f);
            msg_add(")");
            return -1;
        }
        bool ok = (need & waiting) == need;
        for (unsigned m = need; ok && m; m &= m - 1) {
            const Fiber& g = lane_fiber(w, (unsigned)__builtin_ctz(m));
            ok = g.wmask == f.wmask && g.wkind == f.wkind;
        }
        if (ok) {
            for (unsigned m = need; m; m &= m - 1)
                lane_fiber(w, (unsigned)__builtin_ctz(m)).state = ST_RUN;
            waiting &= ~need;
            rem &= ~need;
            released += __builtin_popcount(need);
        } else {
            rem &= ~(1u << l);
        }
    }
    rt.waiting[w] = waiting;
    return released;
}

inline const char* state_desc(const Fiber& g, char* buf, size_t n) {
    switch (g.state) {
        case ST_BAR:
            snprintf(buf, n, "at %s() %s:%d", bar_kind_name(g.bar_kind), g.file, g.line);
            break;
        case ST_WARP:
            snprintf(buf, n, "in %s(mask 0x%08x)", warp_kind_name(g.wkind), g.wmask);
            break;
        case ST_EXIT:
            snprintf(buf, n, "exited");
            break;
        case ST_SLEEP:
            snprintf(buf, n, "in __nanosleep");
            break;
        default:
            snprintf(buf, n, "running");
            break;
    }
    return buf;
}

// Nothing can run any more: explain why.
inline void diagnose_stuck(unsigned live, unsigned nbar) {
    msg_clear();
    msg_block();
    msg_add(": ");
    char b1[256], b2[256];
    for (unsigned w = 0; w < rt.nwarps; ++w) {
        unsigned waiting = rt.waiting[w];
        if (!waiting) continue;
        Fiber& f = lane_fiber(w, (unsigned)__builtin_ctz(waiting));
        unsigned need = f.wmask & rt.exists[w];
        for (unsigned m = need; m; m &= m - 1) {
            Fiber& g = lane_fiber(w, (unsigned)__builtin_ctz(m));
            if (g.state == ST_WARP && g.wmask == f.wmask && g.wkind == f.wkind) continue;
            const char* what = g.state == ST_WARP ? "divergent warp synchronisation" : "deadlock";
            msg_add("%s in warp %u: ", what, w);
            msg_thread(&f);
            msg_add(" waits %s for lane %u, but lane %u (", state_desc(f, b1, sizeof b1), g.lane,
                    g.lane);
            msg_thread(&g);
            msg_add(") is %s", state_desc(g, b2, sizeof b2));
            return;
        }
    }
    msg_add("deadlock: %u live threads, %u at a block barrier, none can proceed", live, nbar);
}

// All live threads wait at a block barrier: check it and release it.
inline bool release_block_barrier(unsigned live) {
    const unsigned n = rt.nthreads;
    Fiber* first = nullptr;
    for (unsigned i = 0; i < n; ++i)
        if (rt.fibers[i].state == ST_BAR) {
            first = &rt.fibers[i];
            break;
        }
    if (live != n) {
        msg_clear();
        msg_block();
        msg_add(": %s() at %s:%d is waited on by %u thread(s) while ",
                bar_kind_name(first->bar_kind), first->file, first->line, live);
        msg_threads([](const Fiber& g) { return g.state == ST_EXIT; });
        msg_add(" already exited (a block barrier must be reached by every thread of the block)");
        return false;
    }
    for (unsigned i = 0; i < n; ++i) {
        if (!same_site(rt.fibers[i], *first)) {
            msg_clear();
            msg_block();
            msg_add(": divergent block barriers: ");
            const Fiber* sites[8];
            unsigned ns = 0;
            for (unsigned k = 0; k < n && ns < 8; ++k) {
                bool seen = false;
                for (unsigned s = 0; s < ns; ++s) seen = seen || same_site(*sites[s], rt.fibers[k]);
                if (!seen) sites[ns++] = &rt.fibers[k];
            }
            for (unsigned s = 0; s < ns; ++s) {
                const Fiber* site = sites[s];
                msg_add(s ? "; " : "");
                msg_threads([site](const Fiber& g) { return same_site(g, *site); });
                msg_add(" wait at %s() %s:%d", bar_kind_name(site->bar_kind), site->file,
                        site->line);
            }
            return false;
        }
    }
    unsigned count = 0;
    for (unsigned i = 0; i < n; ++i) count += (unsigned)rt.fibers[i].pred;
    switch (first->bar_kind) {
        case BAR_COUNT:
            rt.bar_result = (int)count;
            break;
        case BAR_AND:
            rt.bar_result = count == n;
            break;
        case BAR_OR:
            rt.bar_result = count != 0;
            break;
        default:
            rt.bar_result = 0;
            break;
    }
    for (unsigned i = 0; i < n; ++i) rt.fibers[i].state = ST_RUN;
    return true;
}

inline void poison_shared() {
    char* lo = prim_emu_tshared_begin;
    char* hi = prim_emu_tshared_end;
    if (lo && hi > lo) memset(lo, 0xff, (size_t)(hi - lo));
    if (rt.dyn_size) memset(rt.dyn, 0xff, rt.dyn_size);
}

// Runs the current block (rt.block_idx).  0: done; 1: error in rt.msg.
inline int run_block() {
    const unsigned n = rt.nthreads;
    Pool* pool = rt.pool;
    for (unsigned i = 0; i < n; ++i) {
        Fiber& f = rt.fibers[i];
        f.state = ST_RUN;
        char* lo = pool->base + (size_t)i * pool->stride + (size_t)getpagesize();
        prepare_fiber(&f, lo, pool->stack_size, i);
        rt.ready[i] = i;
    }
    for (unsigned w = 0; w < rt.nwarps; ++w) rt.exited[w] = rt.exiting[w] = rt.waiting[w] = 0;
    if (rt.race) poison_shared();
    unsigned nready = n, live = n, nbar = 0;
    long long spin = 0;
    for (;;) {
        if (rt.race)
            for (unsigned i = nready; i > 1; --i) {
                unsigned j = (unsigned)(rng_next() % i);
                unsigned t = rt.ready[i - 1];
                rt.ready[i - 1] = rt.ready[j];
                rt.ready[j] = t;
            }
        bool progress = false, any_warp = false, exited = false;
        unsigned nsleep = 0;
        for (unsigned k = 0; k < nready; ++k) {
            Fiber* f = &rt.fibers[rt.ready[k]];
            resume(f);
            switch (f->state) {
                case ST_EXIT:
                    --live;
                    rt.exiting[f->warp] |= 1u << f->lane;
                    progress = exited = true;
                    break;
                case ST_BAR:
                    ++nbar;
                    progress = true;
                    break;
                case ST_WARP:
                    rt.waiting[f->warp] |= 1u << f->lane;
                    any_warp = true;
                    progress = true;
                    break;
                case ST_SLEEP:
                    ++nsleep;
                    break;
                case ST_ERROR:
                    return 1;
                default:
                    break;
            }
        }
        if (live == 0) return 0;
        // exits become visible to __activemask at the end of the round
        for (unsigned w = 0; w < rt.nwarps; ++w) {
            rt.exited[w] |= rt.exiting[w];
            rt.exiting[w] = 0;
        }
        bool released = false;
        if (any_warp || progress) {  // arrivals complete warp groups; exits may doom them
            for (unsigned w = 0; w < rt.nwarps; ++w) {
                if (!rt.waiting[w]) continue;
                int r = release_warp(w);
                if (r < 0) return 1;
                released = released || r > 0;
            }
        }
        bool block_released = false;
        if (nbar && nbar == live) {
            if (!release_block_barrier(live)) return 1;
            nbar = 0;
            released = block_released = true;
        }
        nready = 0;
        for (unsigned i = 0; i < n; ++i) {
            int s = rt.fibers[i].state;
            if (s == ST_RUN || s == ST_SLEEP) {
                rt.fibers[i].state = ST_RUN;
                rt.ready[nready++] = i;
            }
        }
        if (nready == 0) {
            diagnose_stuck(live, nbar);
            return 1;
        }
        // A spin-wait loop keeps meeting at warp intrinsics (e.g. __any_sync around __nanosleep), so
        // only an exit or a block barrier counts as progress against the sleep count.
        if (!exited && !block_released) {
            spin += nsleep;
            if (spin > rt.spin_limit) {
                msg_clear();
                msg_block();
                msg_add(": endless spin: ");
                msg_threads([](const Fiber& g) { return g.state == ST_RUN; });
                msg_add(
                    " kept calling __nanosleep for %lld yields while no other thread of the block "
                    "made progress "
                    "(blocks run one at a time in linear order, so a block can never wait for a "
                    "later block)",
                    spin);
                return 1;
            }
        } else {
            spin = 0;
        }
    }
}

inline bool addr_in(const void* p, const char* lo, const char* hi) {
    return (const char*)p >= lo && (const char*)p < hi;
}

inline void fault_handler(int sig, siginfo_t* si, void*) {
    if (rt.in_fiber) {
        rt.in_fiber = 0;
        rt.fault_sig = sig;
        rt.fault_addr = si ? si->si_addr : nullptr;
        siglongjmp(rt.jb, 1);
    }
    // not ours: put the previous handler back; the fault repeats and reaches it
    int idx = sig == SIGSEGV ? 0 : sig == SIGBUS ? 1 : 2;
    sigaction(sig, &rt.old_act[idx], nullptr);
}

inline void describe_fault() {
    Fiber* f = rt.cur;
    Pool* pool = rt.pool;
    msg_clear();
    msg_block();
    msg_add(", ");
    msg_thread(f);
    const char* a = (const char*)rt.fault_addr;
    size_t page = (size_t)getpagesize();
    if (rt.fault_sig == SIGFPE) {
        msg_add(": arithmetic exception (SIGFPE, e.g. integer division by zero)");
        return;
    }
    if (a >= pool->base && a < pool->base + pool->nfibers * pool->stride) {
        size_t k = (size_t)(a - pool->base) / pool->stride;
        if ((size_t)(a - pool->base) % pool->stride < page) {
            msg_add(
                ": stack overflow (%s thread's %zu KiB emulator stack is exhausted; set "
                "PRIMITIVES_EMU_STACK_KB)",
                k == f->linear ? "the" : "a", pool->stack_size / 1024);
            return;
        }
    }
    if (addr_in(a, pool->dyn_hi, pool->dyn_hi + page)) {
        msg_add(
            ": access past the end of dynamic shared memory (%zu bytes requested at launch) at %p",
            rt.dyn_size, rt.fault_addr);
        return;
    }
    msg_add(": illegal memory access (%s at address %p)",
            rt.fault_sig == SIGBUS ? "SIGBUS" : "SIGSEGV", rt.fault_addr);
}

inline void install_handlers() {
    stack_t ss;
    ss.ss_sp = rt.pool->altstack;
    ss.ss_size = rt.pool->altstack_size;
    ss.ss_flags = 0;
    sigaltstack(&ss, &rt.old_ss);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = fault_handler;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &rt.old_act[0]);
    sigaction(SIGBUS, &sa, &rt.old_act[1]);
    sigaction(SIGFPE, &sa, &rt.old_act[2]);
}

inline void restore_handlers() {
    sigaction(SIGSEGV, &rt.old_act[0], nullptr);
    sigaction(SIGBUS, &rt.old_act[1], nullptr);
    sigaction(SIGFPE, &rt.old_act[2], nullptr);
    if (!(rt.old_ss.ss_flags & SS_ONSTACK)) sigaltstack(&rt.old_ss, nullptr);
}

// The runtime proper, run_launch (with the scheduler, the barrier checks and
// the fault handling it calls, all inline and so emitted only where it is
// defined) and pool_create, is compiled once per header text and options into
// an object that every module links (primitives/_core/emulator_build.py
// compiles this header with PRIM_EMU_RUNTIME defined; a module compiled with
// it defined holds the runtime itself): a module's compile is its kernels'.
int run_launch(const long long* cfg, void (*invoke)(void*), void* ctx, char* err, long long errlen);
void* pool_create(long long nfibers, long long stack_size);

#ifdef PRIM_EMU_RUNTIME
// cfg: grid[3], block[3], shared_mem, race, seed, spin_limit, pool
int run_launch(const long long* cfg, void (*invoke)(void*), void* ctx, char* err,
               long long errlen) {
    msg_clear();
    Pool* pool = (Pool*)(uintptr_t)cfg[10];
    volatile int rc = 0;  // volatile: survives the siglongjmp of a fault
    if (!pool || pool->abi != PRIM_EMU_ABI) {
        msg_add("internal error: no fiber pool (or pool of another emulator version)");
        rc = 2;
    }
    unsigned long long gx = (unsigned long long)cfg[0], gy = (unsigned long long)cfg[1],
                       gz = (unsigned long long)cfg[2];
    unsigned long long bx = (unsigned long long)cfg[3], by = (unsigned long long)cfg[4],
                       bz = (unsigned long long)cfg[5];
    if (!rc &&
        (gx < 1 || gy < 1 || gz < 1 || bx < 1 || by < 1 || bz < 1 ||
         bx * by * bz > PRIM_EMU_MAX_THREADS || bz > 64 || gx > 0x7fffffffull || gy > 65535 ||
         gz > 65535 || cfg[6] < 0 || cfg[6] > PRIM_EMU_MAX_DYN_SHARED ||
         bx * by * bz > pool->nfibers)) {
        msg_add("invalid launch configuration");
        rc = 2;
    }
    if (!rc) {
        rt.pool = pool;
        rt.grid = dim3((unsigned)gx, (unsigned)gy, (unsigned)gz);
        rt.block = dim3((unsigned)bx, (unsigned)by, (unsigned)bz);
        rt.nthreads = (unsigned)(bx * by * bz);
        rt.nwarps = (rt.nthreads + 31) / 32;
        for (unsigned i = 0; i < rt.nthreads; ++i) {
            Fiber& f = rt.fibers[i];
            f.linear = i;
            f.tid = uint3{(unsigned)(i % bx), (unsigned)((i / bx) % by), (unsigned)(i / (bx * by))};
            f.lane = i % 32;
            f.warp = i / 32;
        }
        for (unsigned w = 0; w < rt.nwarps; ++w) {
            unsigned lanes = rt.nthreads - w * 32;
            rt.exists[w] = lanes >= 32 ? 0xffffffffu : ((1u << lanes) - 1u);
        }
        rt.dyn_size = (size_t)cfg[6];
        rt.dyn = pool->dyn_hi - ((rt.dyn_size + 15) & ~(size_t)15);
        rt.race = cfg[7] != 0;
        rt.rng = (uint64_t)cfg[8];
        rt.spin_limit = cfg[9];
        rt.invoke = invoke;
        rt.ctx = ctx;
        capture_fp_control();
        install_handlers();
        if (sigsetjmp(rt.jb, 1) == 0) {
            for (unsigned z = 0; z < gz && !rc; ++z)
                for (unsigned y = 0; y < gy && !rc; ++y)
                    for (unsigned x = 0; x < gx && !rc; ++x) {
                        rt.block_idx = uint3{x, y, z};
                        rc = run_block();
                    }
        } else {
            describe_fault();
            rc = 1;
        }
        restore_handlers();
        rt.cur = nullptr;
        rt.in_fiber = 0;
        fflush(stdout);
    }
    if (rc && err && errlen > 0) {
        size_t n = strlen(rt.msg);
        if (n >= (size_t)errlen) n = (size_t)errlen - 1;
        memcpy(err, rt.msg, n);
        err[n] = 0;
    }
    return rc;
}

void* pool_create(long long nfibers, long long stack_size) {
    size_t page = (size_t)getpagesize();
    size_t ss = ((size_t)stack_size + page - 1) & ~(page - 1);
    size_t stride = ss + page;
    size_t dyn = ((size_t)PRIM_EMU_MAX_DYN_SHARED + page - 1) & ~(page - 1);
    size_t alt = 64 * 1024;
    size_t total = (size_t)nfibers * stride + page + dyn + page + alt;
    char* base = (char*)mmap(nullptr, total, PROT_READ | PROT_WRITE,
                             MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (base == MAP_FAILED) return nullptr;
    for (long long i = 0; i < nfibers; ++i) mprotect(base + (size_t)i * stride, page, PROT_NONE);
    // layout: n x ([guard][stack]), [guard], dynamic shared window, [guard], signal stack
    mprotect(base + (size_t)nfibers * stride, page, PROT_NONE);
    char* dyn_lo = base + (size_t)nfibers * stride + page;
    char* dyn_hi = dyn_lo + dyn;
    mprotect(dyn_hi, page, PROT_NONE);
    Pool* p = (Pool*)malloc(sizeof(Pool));
    if (!p) return nullptr;
    p->abi = PRIM_EMU_ABI;
    p->base = base;
    p->total = total;
    p->stride = stride;
    p->stack_size = ss;
    p->nfibers = (size_t)nfibers;
    p->dyn_lo = dyn_lo;
    p->dyn_hi = dyn_hi;
    p->altstack = dyn_hi + page;
    p->altstack_size = alt;
    return p;
}
#endif  // PRIM_EMU_RUNTIME

// ----- glue helpers ----------------------------------------------------------
enum { K_OTHER = 0, K_POINTER = 1, K_SIGNED = 2, K_UNSIGNED = 3, K_FLOAT = 4, K_BOOL = 5 };

struct ParamInfo {
    long long size, align, kind, pointee_size, pointee_kind;
    const char* pretty;
};

template <class T>
constexpr long long kind_of() {
    if constexpr (std::is_same<T, bool>::value)
        return K_BOOL;
    else if constexpr (std::is_pointer<T>::value)
        return K_POINTER;
    else if constexpr (std::is_floating_point<T>::value)
        return K_FLOAT;
    else if constexpr (std::is_integral<T>::value)
        return std::is_signed<T>::value ? K_SIGNED : K_UNSIGNED;
    else if constexpr (std::is_enum<T>::value)
        return std::is_signed<std::underlying_type_t<T>>::value ? K_SIGNED : K_UNSIGNED;
    else
        return K_OTHER;
}

template <class T>
inline const char* pretty_name() {
    return __PRETTY_FUNCTION__;
}

template <class T>
inline ParamInfo param_info_of() {
    ParamInfo p;
    p.size = (long long)sizeof(T);
    p.align = (long long)alignof(T);
    p.kind = kind_of<T>();
    p.pointee_size = 0;
    p.pointee_kind = K_OTHER;
    if constexpr (std::is_pointer<T>::value) {
        using P = std::remove_cv_t<std::remove_pointer_t<T>>;
        if constexpr (std::is_arithmetic<P>::value || std::is_enum<P>::value) {
            p.pointee_size = (long long)sizeof(P);
            p.pointee_kind = kind_of<P>();
        }
    }
    p.pretty = pretty_name<T>();
    return p;
}

template <class... A>
inline long long param_info(void (*)(A...), ParamInfo* out, long long cap) {
    ParamInfo infos[] = {param_info_of<A>()..., ParamInfo{}};
    long long n = (long long)sizeof...(A);
    for (long long i = 0; i < n && i < cap; ++i) out[i] = infos[i];
    return n;
}

template <class T>
inline T load_arg(void* p) {
    alignas(T) unsigned char buf[sizeof(T)];
    memcpy(buf, p, sizeof(T));
    return *reinterpret_cast<T*>(buf);
}

template <class... A, size_t... I>
inline int launch_impl(void (*k)(A...), const long long* cfg, void** args, char* err,
                       long long errlen, std::index_sequence<I...>) {
    struct Ctx {
        void (*k)(A...);
        std::tuple<std::remove_cv_t<A>...> a;
    };
    Ctx ctx{k, std::tuple<std::remove_cv_t<A>...>(load_arg<std::remove_cv_t<A>>(args[I])...)};
    (void)args;
    return run_launch(
        cfg,
        [](void* p) {
            Ctx* c = static_cast<Ctx*>(p);
            std::apply(c->k, c->a);
        },
        &ctx, err, errlen);
}

template <class... A>
inline int launch(void (*k)(A...), const long long* cfg, void** args, char* err, long long errlen) {
    return launch_impl(k, cfg, args, err, errlen, std::index_sequence_for<A...>{});
}

}  // namespace prim_emu

// Defines the functions every module exports (used once, by the generated glue).
#define PRIM_EMU_MODULE_EXPORTS                                                                    \
    PRIM_EMU_EXPORT long long prim_emu_abi(void) { return PRIM_EMU_ABI; }                          \
    PRIM_EMU_EXPORT void* prim_emu_pool_create(long long nfibers, long long stack_size) {          \
        return ::prim_emu::pool_create(nfibers, stack_size);                                       \
    }                                                                                              \
    PRIM_EMU_EXPORT long long prim_emu_static_shared_bytes(void) {                                 \
        return prim_emu_tshared_begin ? (long long)(prim_emu_tshared_end - prim_emu_tshared_begin) \
                                      : -1;                                                        \
    }

#endif  // PRIM_EMU_H_INCLUDED
