// zip.cuh -- tuples of elements, and several arrays read and written as one array of tuples.
//
// Tuple<T...>: a value of 2 to 4 fields f0..f3 (an aggregate: trivially copyable, so the warp
//   shuffles move it word by word, warp/shfl.cuh, and the look-back publishes it, device/
//   lookback.cuh). The accumulator of a user operator over tuples (primitives/_core/ops.py
//   generates the functor; its expressions name the fields a.f0, b.f1, ...). Field<I>::of(t) is
//   field I of any tuple, At<I, T...> its type, Each<N>::run(f) calls f(Index<I>()) for I < N
//   (f a functor: NVRTC compiles no device lambdas without --extended-lambda).
// Zip<T...>: the element type of kernels that read (or write) the arrays of T... together, one
//   element of each per index (structure of arrays): as a value it is the Tuple<T...>, and as a
//   kernel parameter, through In<> / Out<> (util/prim.cuh), it is ZipIn / ZipOut: the arrays'
//   pointers in one structure passed by value (a numpy.void of the pointers on the host). So a
//   kernel template written over In<InT>::type / Out<OutT>::type takes zipped arrays unchanged
//   where it indexes (p[i]), offsets (p + i) and uses the I/O helpers below, overloads of
//   util/load.cuh's: each field's array moves through the element helpers of its own type (the
//   16-byte warp exchanges of load_striped_to_blocked16 / store_blocked_to_striped16; a warp's
//   loads of every field are issued before the first exchange), so the tuples cost the bandwidth
//   of their fields. Vec16<Zip<T...>>::N and Vec16<Tuple<T...>>::N are
//   the largest of the fields' (a multiple of every field's: powers of two), for the kernels'
//   ITEMS checks; neither has a 16-byte vector of its own (HasVec16 false).
//   A null pointer in a ZipOut is a field not written (the caller keeps only some fields).
// Preconditions: every field's array aligned to its element size; a zipped input is never written
//   in the same launch.
#pragma once
#include "util/prim.cuh"
#include "util/load.cuh"

namespace prim {

template <class... T> struct Tuple;
template <class A, class B> struct Tuple<A, B> {
    A f0;
    B f1;
};
template <class A, class B, class C> struct Tuple<A, B, C> {
    A f0;
    B f1;
    C f2;
};
template <class A, class B, class C, class D> struct Tuple<A, B, C, D> {
    A f0;
    B f1;
    C f2;
    D f3;
};

template <int I> struct Index { static constexpr int value = I; };

template <int I> struct Field;
template <> struct Field<0> {
    template <class U> static __device__ __forceinline__ auto& of(U& t) { return t.f0; }
};
template <> struct Field<1> {
    template <class U> static __device__ __forceinline__ auto& of(U& t) { return t.f1; }
};
template <> struct Field<2> {
    template <class U> static __device__ __forceinline__ auto& of(U& t) { return t.f2; }
};
template <> struct Field<3> {
    template <class U> static __device__ __forceinline__ auto& of(U& t) { return t.f3; }
};

template <int I, class... T> struct At;
template <class A, class... T> struct At<0, A, T...> { typedef A type; };
template <int I, class A, class... T> struct At<I, A, T...> {
    typedef typename At<I - 1, T...>::type type;
};

template <int N, int I = 0> struct Each {
    template <class F> static __device__ __forceinline__ void run(const F& f) {
        f(Index<I>());
        Each<N, I + 1>::run(f);
    }
};
template <int N> struct Each<N, N> {
    template <class F> static __device__ __forceinline__ void run(const F&) {}
};

template <class... T> struct Zip : Tuple<T...> {
    Zip() = default;
    __device__ __forceinline__ Zip(const Tuple<T...>& t) : Tuple<T...>(t) {}
};

template <class T> struct IsZip { static constexpr bool value = false; };
template <class... T> struct IsZip<Zip<T...>> { static constexpr bool value = true; };

// The per-field steps of the zipped arrays' operations (functors of Each: NVRTC takes no
// lambdas in device code without --extended-lambda).
namespace zip_detail {
template <class P> struct Offset {  // each pointer of p advanced by i elements (null stays null)
    P& p;
    i64 i;
    template <int I> __device__ __forceinline__ void operator()(Index<I>) const {
        if (Field<I>::of(p) != nullptr) Field<I>::of(p) += i;
    }
};
template <class P, class R> struct Gather {  // r = the i-th element of each array of p
    const P& p;
    R& r;
    i64 i;
    template <int I> __device__ __forceinline__ void operator()(Index<I>) const {
        Field<I>::of(r) = Field<I>::of(p)[i];
    }
};
template <class P> struct Bits {  // bits |= the address of each array of p
    const P& p;
    uptr& bits;
    template <int I> __device__ __forceinline__ void operator()(Index<I>) const {
        bits |= reinterpret_cast<uptr>(Field<I>::of(p));
    }
};
}  // namespace zip_detail

template <class... T> struct ZipIn {
    static constexpr int N = sizeof...(T);
    Tuple<const T*...> p;
    __device__ __forceinline__ Tuple<T...> operator[](i64 i) const {
        Tuple<T...> t;
        Each<N>::run(zip_detail::Gather<Tuple<const T*...>, Tuple<T...>>{p, t, i});
        return t;
    }
    __device__ __forceinline__ ZipIn operator+(i64 i) const {
        ZipIn z = *this;
        Each<N>::run(zip_detail::Offset<Tuple<const T*...>>{z.p, i});
        return z;
    }
};

template <class... T> struct ZipOut {
    static constexpr int N = sizeof...(T);
    Tuple<T*...> p;
    __device__ __forceinline__ ZipOut operator+(i64 i) const {
        ZipOut z = *this;
        Each<N>::run(zip_detail::Offset<Tuple<T*...>>{z.p, i});
        return z;
    }
};

template <class... T> struct In<Zip<T...>> { typedef ZipIn<T...> type; };
template <class... T> struct Out<Zip<T...>> { typedef ZipOut<T...> type; };

template <class... T> struct MaxVecN;
template <class A> struct MaxVecN<A> { static constexpr int value = Vec16<A>::N; };
template <class A, class... T> struct MaxVecN<A, T...> {
    static constexpr int value =
        Vec16<A>::N > MaxVecN<T...>::value ? Vec16<A>::N : MaxVecN<T...>::value;
};
template <class... T> struct Vec16<Tuple<T...>> {
    typedef uint4 type;
    static constexpr int N = MaxVecN<T...>::value;
};
template <class... T> struct Vec16<Zip<T...>> : Vec16<Tuple<T...>> {};

// ---- the addresses' low bits (alignment checks), of a pointer or of every zipped array ---------
template <class T> __device__ __forceinline__ uptr addr_bits(const T* p) {
    return reinterpret_cast<uptr>(p);
}
template <class... T> __device__ __forceinline__ uptr addr_bits(const ZipIn<T...>& z) {
    uptr bits = 0;
    Each<sizeof...(T)>::run(zip_detail::Bits<Tuple<const T*...>>{z.p, bits});
    return bits;
}
template <class... T> __device__ __forceinline__ uptr addr_bits(const ZipOut<T...>& z) {
    uptr bits = 0;
    Each<sizeof...(T)>::run(zip_detail::Bits<Tuple<T*...>>{z.p, bits});
    return bits;
}

// ---- util/load.cuh's I/O helpers over zipped arrays: field by field --------------------------
namespace zip_detail {
template <int BLOCK, class P> struct Prefetch {  // prefetch_l2 of each array of p
    const P& p;
    long long first, count, n;
    template <int I> __device__ __forceinline__ void operator()(Index<I>) const {
        prefetch_l2<BLOCK>(first, count, n, Field<I>::of(p));
    }
};
template <class InT, class AccT, int ITEMS, class... T> struct LoadStriped {
    // the warp's 16-byte loads of every field, issued before the first exchange
    typedef Tuple<Packet<T>[ITEMS / Vec16<T>::N]...> Raw;
    struct Load {
        const ZipIn<T...>& base;
        Raw& raw;
        template <int I> __device__ __forceinline__ void operator()(Index<I>) const {
            typedef typename At<I, T...>::type E;
            constexpr int N = Vec16<E>::N;
            const int lane = threadIdx.x % WARP;
#pragma unroll
            for (int u = 0; u < ITEMS / N; ++u)
                Field<I>::of(raw)[u] = load16(Field<I>::of(base.p) + (u * WARP + lane) * N);
        }
    };
    struct Exchange {
        const Raw& raw;
        InT* tmp;
        AccT (&items)[ITEMS];
        template <int I> __device__ __forceinline__ void operator()(Index<I>) const {
            typedef typename At<I, T...>::type E;
            E v[ITEMS];
            exchange16_to_blocked<E, E, ITEMS>(Field<I>::of(raw), reinterpret_cast<E*>(tmp), v);
#pragma unroll
            for (int j = 0; j < ITEMS; ++j) Field<I>::of(items[j]) = v[j];
        }
    };
};
template <class V, int ITEMS, class... T> struct StoreStriped {
    const ZipOut<T...>& base;
    V* tmp;
    const V (&items)[ITEMS];
    template <int I> __device__ __forceinline__ void operator()(Index<I>) const {
        if (Field<I>::of(base.p) == nullptr) return;  // a field not written (uniform)
        typedef typename At<I, T...>::type E;
        E v[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) v[j] = Field<I>::of(items[j]);
        store_blocked_to_striped16<E, ITEMS>(Field<I>::of(base.p), reinterpret_cast<E*>(tmp), v);
    }
};
template <class V, int ITEMS, class... T> struct StoreItems {
    const ZipOut<T...>& p;
    long long avail;
    bool vector;
    const V (&items)[ITEMS];
    template <int I> __device__ __forceinline__ void operator()(Index<I>) const {
        if (Field<I>::of(p.p) == nullptr) return;  // a field not written (uniform)
        typedef typename At<I, T...>::type E;
        E v[ITEMS];
#pragma unroll
        for (int j = 0; j < ITEMS; ++j) v[j] = Field<I>::of(items[j]);
        store_items<E, ITEMS>(Field<I>::of(p.p), avail, vector, v);
    }
};
}  // namespace zip_detail

// prefetch_l2 of every zipped input array (util/load.cuh's prefetch_in of a pointer).
template <int BLOCK, class... T>
__device__ __forceinline__ void prefetch_in(long long first, long long count, long long n,
                                            const ZipIn<T...>& z) {
    Each<sizeof...(T)>::run(zip_detail::Prefetch<BLOCK, Tuple<const T*...>>{z.p, first, count, n});
}

template <class InT, class AccT, int ITEMS, class... T>
__device__ __forceinline__ void load_striped_to_blocked16(ZipIn<T...> warp_base, InT* tmp,
                                                          AccT (&items)[ITEMS]) {
    typedef zip_detail::LoadStriped<InT, AccT, ITEMS, T...> L;
    typename L::Raw raw;
    Each<sizeof...(T)>::run(typename L::Load{warp_base, raw});
    Each<sizeof...(T)>::run(typename L::Exchange{raw, tmp, items});
}

template <class InT, class AccT, class Op, int ITEMS, class... T>
__device__ __forceinline__ void load_items(ZipIn<T...> p, long long avail, bool,
                                           AccT (&items)[ITEMS]) {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) items[k] = k < avail ? AccT(p[k]) : Op::identity();
}

template <class V, int ITEMS, class... T>
__device__ __forceinline__ void store_blocked_to_striped16(ZipOut<T...> warp_base, V* tmp,
                                                           const V (&items)[ITEMS]) {
    Each<sizeof...(T)>::run(zip_detail::StoreStriped<V, ITEMS, T...>{warp_base, tmp, items});
}

template <class V, int ITEMS, class... T>
__device__ __forceinline__ void store_items(ZipOut<T...> p, long long avail, bool vector,
                                            const V (&items)[ITEMS]) {
    Each<sizeof...(T)>::run(zip_detail::StoreItems<V, ITEMS, T...>{p, avail, vector, items});
}

}  // namespace prim
