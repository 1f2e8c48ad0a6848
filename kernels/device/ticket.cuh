// ticket.cuh -- the last-block finish: the blocks of one launch that each leave a partial result
// in global memory take a ticket from a counter, and the block that takes the last ticket combines
// the partials in the same launch (no second launch over them).
//
// last_ticket(ticket, count, flag): thread 0 fences (__threadfence: its own earlier stores, and
//   the other threads' where a barrier ordered them before the call, are visible device-wide
//   before the ticket) and takes a ticket of *ticket; returns whether it was the last of the
//   `count` the launch takes there, the same answer for the whole block (broadcast through `flag`,
//   a __shared__ bool of the kernel, by one barrier). Whole block. The block that gets true reads
//   the partials past L1 (load_cg) and sets *ticket back to 0, so it is 0 for the next launch.
//   Users: reduce.cu's grid_finish, arg.cu's arg_flat, axis.cu's axis_slab_finish (a ticket per
//   slab), stats.cu's grid_total.
#pragma once
#include "util/prim.cuh"

namespace prim {

__device__ __forceinline__ bool last_ticket(unsigned int* ticket, unsigned int count, bool& flag) {
    if (threadIdx.x == 0) {
        __threadfence();  // the block's partial is visible device-wide before the ticket
        flag = atomicAdd(ticket, 1u) == count - 1u;
    }
    __syncthreads();
    return flag;
}

}  // namespace prim
