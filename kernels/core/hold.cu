// hold.cu -- a stream kept busy for a while, so that events time the device's work alone.
//
// hold_stream<N>: one thread reads the SM clock (clock64) until `cycles` cycles have passed since
//   it started; N is unused (a template, so that other modules' programs carry none of it). The
//   timings (primitives/_core/timing.py) launch it before each sample's start event: the timed
//   call's host work (argument checks, plan lookup, launches) is done while the stream is still
//   held, the call's kernels queue behind it, and the events bracket the device's work without
//   the host's (as a blocking kernel does in NVIDIA's nvbench). A call that waits for the device
//   inside (an output size read back) waits for the hold first; its sample is as without one.
//   Launch: one block of one thread, no shared memory. Preconditions: none (cycles <= 0 returns
//   at once); the clock's rate only sets how long the hold lasts, never a result.
#include "util/prim.cuh"

template <int N>
__global__ void hold_stream(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {}
}
