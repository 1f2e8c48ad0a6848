"""GPU-to-GPU copies: whether each pair of GPUs has peer access and the rate of a device to device
copy between them, beside each GPU's own copy rate (what a transfer between Dask workers on one
host can reach).

    python -m tools.probes.peer_copy [--mib N] [--out FILE]

For every ordered pair (src, dst) of the visible GPUs: ``cudaDeviceCanAccessPeer``, and the
median of CUDA-event times of ``cudaMemcpyPeerAsync`` of N MiB (default 1024) from src to dst
after a warm-up, with peer access enabled where it is possible (else the driver stages the copy
through the host). The diagonal is the GPU's own device to device copy. Needs two GPUs or more
for the pairs; on one GPU it gives the diagonal.
"""

from __future__ import annotations

import argparse
import statistics
import sys


def _rate(src, dst, nbytes, repeat=7):
    """GB/s of a copy of ``nbytes`` from GPU ``src`` to GPU ``dst`` (median of ``repeat``)."""
    import cupy

    with cupy.cuda.Device(src):
        a = cupy.ones(nbytes, dtype=cupy.uint8)
    with cupy.cuda.Device(dst):
        b = cupy.empty(nbytes, dtype=cupy.uint8)
        stream = cupy.cuda.Stream(non_blocking=True)
        times = []
        for i in range(repeat + 1):
            start, stop = cupy.cuda.Event(), cupy.cuda.Event()
            start.record(stream)
            cupy.cuda.runtime.memcpyPeerAsync(b.data.ptr, dst, a.data.ptr, src, nbytes, stream.ptr)
            stop.record(stream)
            stop.synchronize()
            if i:
                times.append(cupy.cuda.get_elapsed_time(start, stop) * 1e-3)
    return nbytes / statistics.median(times) / 1e9


def main(argv=None):
    ap = argparse.ArgumentParser(
        prog="python -m tools.probes.peer_copy", description=__doc__.split("\n\n")[0]
    )
    ap.add_argument("--mib", type=int, default=1024, help="MiB per copy")
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    import cupy

    rt = cupy.cuda.runtime
    n = rt.getDeviceCount()
    for src in range(n):  # peer access both ways where the hardware allows it
        with cupy.cuda.Device(src):
            for dst in range(n):
                if dst != src and rt.deviceCanAccessPeer(src, dst):
                    try:
                        rt.deviceEnablePeerAccess(dst)
                    except cupy.cuda.runtime.CUDARuntimeError:
                        pass  # already enabled
    nbytes = args.mib << 20
    lines = [
        f"device to device copies of {args.mib} MiB, GB/s (median of 7 after a warm-up); "
        f"'peer' where cudaDeviceCanAccessPeer, 'host' where the copy is staged",
        "",
        "| src \\ dst | " + " | ".join(str(d) for d in range(n)) + " |",
        "|---|" + "---|" * n,
    ]
    for src in range(n):
        cells = []
        for dst in range(n):
            how = "" if src == dst else (" peer" if rt.deviceCanAccessPeer(src, dst) else " host")
            cells.append(f"{_rate(src, dst, nbytes):.0f}{how}")
        lines.append(f"| {src} | " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    print(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
