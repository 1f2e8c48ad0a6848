// segmented.cuh -- the generic segmented operator: Segmented<Op> lifts any of prim's operators to
// (value, head) pairs (Flagged<T>), one operator for every segmented scan; Segmented<Op, HeadFirst>
// does the same on (head, value) pairs (Flagged<T, HeadFirst>). Types and the operator only: the
// scans and reductions that run on them are warp/scan.cuh, block/scan.cuh, warp/reduce.cuh and
// device/lookback.cuh, the HeadFirst pair's own shuffle up is in warp/shfl.cuh.
#pragma once
#include "util/prim.cuh"

namespace prim {

// ---- segmented operators ----------------------------------------------------------------------
// A segmented scan is an ordinary scan of (value, head) pairs under
//     (a, ha) . (b, hb) = (hb ? b : a op b, ha | hb),
// which is associative with identity (op's identity, 0) whenever op is: the value of a scanned
// pair is the op-sum since the last head at or before it (Blelloch, "Prefix sums and their
// applications", 1990). Segmented<Op> lifts any of prim's operators; the scan helpers
// (warp/scan.cuh, block/scan.cuh) and the look-back of device/lookback.cuh work with it unchanged.
//
// The pair's field order is an optional second parameter of Flagged and Segmented: ValueFirst
// (the default) or HeadFirst (the head in the pair's first word). The two compute the same.
// HeadFirst pairs have their own shfl_up (warp/shfl.cuh), which moves the two fields one by one.
struct ValueFirst {};
struct HeadFirst {};

template <class T, class Layout = ValueFirst>
struct Flagged {
    T value;
    int head;  // 1: a segment starts in this span
};

template <class T>
struct Flagged<T, HeadFirst> {
    int head;  // 1: a segment starts in this span
    T value;
};

template <class Op, class Layout = ValueFirst>
struct Segmented {
    typedef typename Op::value_type base_type;
    typedef Flagged<base_type, Layout> value_type;
    static __device__ __forceinline__ value_type identity() {
        value_type r;
        r.value = Op::identity();
        r.head = 0;
        return r;
    }
    __device__ __forceinline__ value_type operator()(value_type a, value_type b) const {
        value_type r;
        r.value = b.head ? b.value : Op()(a.value, b.value);
        r.head = a.head | b.head;
        return r;
    }
};

}  // namespace prim
