// flag.cuh -- prim::Flag, a bool element as kernels read it, and the folds of 16-byte packets of
// them.
//
// NumPy reads a bool array by its bytes, any nonzero byte True: np.frombuffer(b"\xff", bool) is
// True, sums to 1 and is the maximum of [True, that]; a uint8 array viewed as bool holds such
// bytes. Flag is that byte as a type of its own (one byte, trivially copyable, NumPy's layout):
//   static_cast<T>(f)   1 or 0 of any arithmetic T (byte != 0), so a kernel templated on its
//                       element type converts a Flag to its accumulator as any other element;
//   Flag(v)             the flag of a value, its byte 1 when v != 0, else 0: results stored as
//                       Flag are NumPy's canonical bools whatever the accumulator held.
// Vec16<Flag> (16 per uint4) lets util/load.cuh's 16-byte loads, stores and warp exchanges take
// Flag elements unchanged; Pack16<Flag> (util/pack16.cuh) is a packet of 16.
// Packet folds, 4-byte words at a time (no per-element conversion; a reduction of bools stays a
// few integer operations per 16-byte load):
//   flag_bits(w)    0x01 in each byte of the word w that is nonzero, 0x00 elsewhere:
//                   ((w & 0x7f..) + 0x7f..) sets a byte's top bit when its low 7 bits are not all
//                   zero (no carry leaves a byte: 0x7f + 0x7f < 0x100), | w adds the top bit
//                   itself, then >> 7 and the mask keep that bit as the byte's bit 0;
//   flag_count(p)   the number of nonzero bytes of the packet (0..16): the four words' flag_bits
//                   added bytewise (at most 4 a byte), then the four bytes summed by a multiply
//                   by 0x01010101 into the top byte;
//   flag_any(p)     whether some byte of the packet is nonzero (the words or-ed);
//   flag_all(p)     whether every byte is nonzero (the words' flag_bits and-ed: 0x01010101 when
//                   each byte position is nonzero in all four words).
#pragma once
#include "util/prim.cuh"
#include "util/load.cuh"
#include "util/pack16.cuh"
#include "util/narrow.cuh"  // Vec16Raw

namespace prim {

struct Flag {
    unsigned char byte;
    Flag() = default;
    template <class T>
    __device__ __forceinline__ explicit Flag(T v) : byte(v != T(0) ? 1 : 0) {}
    template <class T> __device__ __forceinline__ explicit operator T() const {
        return static_cast<T>(byte != 0 ? 1 : 0);
    }
};

template <> struct Vec16<Flag> : Vec16Raw<Flag> {};

__device__ __forceinline__ u32 flag_bits(u32 w) {
    return ((((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) >> 7) & 0x01010101u;
}

// The packet's four 4-byte words (its bytes in memory order).
__device__ __forceinline__ void flag_words(const Pack16<Flag>& p, u32 (&w)[4]) {
#pragma unroll
    for (int k = 0; k < 4; ++k)
        w[k] = static_cast<u32>(p.v[4 * k].byte) | (static_cast<u32>(p.v[4 * k + 1].byte) << 8) |
            (static_cast<u32>(p.v[4 * k + 2].byte) << 16) |
            (static_cast<u32>(p.v[4 * k + 3].byte) << 24);
}

__device__ __forceinline__ u32 flag_count(const Pack16<Flag>& p) {
    u32 w[4];
    flag_words(p, w);
    const u32 s = flag_bits(w[0]) + flag_bits(w[1]) + flag_bits(w[2]) + flag_bits(w[3]);
    return (s * 0x01010101u) >> 24;
}

__device__ __forceinline__ bool flag_any(const Pack16<Flag>& p) {
    u32 w[4];
    flag_words(p, w);
    return (w[0] | w[1] | w[2] | w[3]) != 0u;
}

__device__ __forceinline__ bool flag_all(const Pack16<Flag>& p) {
    u32 w[4];
    flag_words(p, w);
    return (flag_bits(w[0]) & flag_bits(w[1]) & flag_bits(w[2]) & flag_bits(w[3])) == 0x01010101u;
}

}  // namespace prim
