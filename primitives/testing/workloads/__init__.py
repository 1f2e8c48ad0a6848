"""The workloads every family is measured on, as data: one module per family
(``primitives/testing/workloads/<family>.py``, named as the family), read by the tour
(``primitives/tour/<family>.py``), the figures (``tools/figures/<family>.py``) and the asv suite
(``asv_bench/benchmarks/<family>.py``), so that each workload is spelled once: what is measured
(a :class:`Workload`: its size, dtypes, inputs, variants and peers) and on which data
(:func:`make`). How a tool shows a workload (titles, rows, tables, its own sweeps) is its own.

This package imports NumPy alone and nothing of ``primitives``: the asv suite loads it from its
own tree by its path, so that the same workloads measure older commits, which have none.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

__all__ = ["Workload", "make", "pow2", "sky"]


@dataclasses.dataclass(frozen=True)
class Workload:
    """One workload: an operation on inputs of one kind, at the size measured on a GPU."""

    n: int  # elements measured (the figures' size, the tour's on a GPU; 0: its params say)
    dtypes: tuple[str, ...] = ("float32",)
    data: str = "positive"  # the inputs: a distribution of :func:`make`
    small: int = 0  # the tour's size on the emulator
    tour: int = 0  # the tour's size on a GPU where it is not ``n`` (its host oracle's time)
    sizes: tuple[int, ...] = ()  # the sizes the asv suite sweeps (none: ``n``)
    variants: tuple[str, ...] | None = None  # ours: these (None: every variant of the family)
    peers: tuple[str, ...] = ()  # timed beside ours: "cupy", "cub", "torch", "cusparse"...
    params: dict[str, Any] = dataclasses.field(default_factory=dict)  # bins, k, segments...

    def size(self, gpu: bool, log2n: int | None = None) -> int:
        """The tour's size: ``2^log2n`` when given, else :attr:`tour` or :attr:`n` on a GPU,
        :attr:`small` on the emulator."""
        if log2n:
            return 1 << log2n
        return (self.tour or self.n) if gpu else self.small

    def sweep(self) -> tuple[int, ...]:
        """The sizes the asv suite measures."""
        return self.sizes or (self.n,)


def pow2(n: int) -> str:
    """``n`` as a title shows it: ``2^k`` for a power of two, else the number."""
    return f"2^{n.bit_length() - 1}" if n > 0 and n & (n - 1) == 0 else str(n)


def sky(n: int) -> np.ndarray | None:
    """A real sky image (scikit-image's Hubble deep field, grey levels) tiled to ``n`` uint8
    samples; None when scikit-image is not installed."""
    try:
        from skimage import data
    except ImportError:
        return None
    img = data.hubble_deep_field()
    grey = (img.astype(np.uint16).sum(axis=2) // 3).astype(np.uint8).reshape(-1)
    return np.tile(grey, -(-n // grey.size))[:n]


def make(data: str, shape: Any, dtype: Any = "float32", seed: int = 0, xp: Any = None, **params):
    """Random inputs on the host (NumPy), or copied to ``xp`` (``cupy``) when given. ``data``:

    * ``positive``: never zero (a zero-filled input would hide a kernel that skips work):
      floats in [0.5, 1.5), integers in [1, 1000) (one-byte ones in [1, 100)), bools all True;
    * ``unit``: floats uniform in [0, 1), uint8 over its 256 values;
    * ``bits``: every bit pattern: integers over the dtype's whole range, floats standard normal;
    * ``equal``: every element ``value`` (77), the most contended input;
    * ``half``: bools, about half of them True;
    * ``near1``: floats within ``scale`` / 2 of 1 (1e-9 for float64, 1e-7 for float32): long
      products and cumulative products stay finite;
    * ``runs``: int32 keys in runs of about ``mean`` (16), each run's key one more than the last
      one's, the first 1;
    * ``distinct``: integers drawn from [1, ``distinct``];
    * ``lengths``: integers drawn from [0, ``max_len``] (ragged segments' lengths);
    * ``sky``: :func:`sky` (uint8; None without scikit-image).

    Complex dtypes take their real and imaginary parts from the float data of half their size.
    """
    dt = np.dtype(dtype)
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if dt.kind == "c":
        parts = make(data, (n, 2), f"f{dt.itemsize // 2}", seed, **params)
        out = parts.view(dt).reshape(shape)
        return out if xp is None or xp is np else xp.asarray(out)
    if data == "positive":
        if dt.kind == "f":
            out = rng.random(n, dtype=dt) + dt.type(0.5)
        elif dt.kind == "b":
            out = np.ones(n, dt)
        else:
            out = rng.integers(1, 100 if dt.itemsize == 1 else 1000, n, dtype=dt)
    elif data == "unit":
        if dt.kind == "f":
            out = rng.random(n, dtype=dt)
        else:
            out = rng.integers(0, 256, n, dtype=dt)
    elif data == "bits":
        if dt.kind == "f":
            out = rng.standard_normal(n, dtype=dt)
        else:
            info = np.iinfo(dt)
            out = rng.integers(info.min, info.max, n, dtype=dt, endpoint=True)
    elif data == "equal":
        out = np.full(n, params.get("value", 77), dt)
    elif data == "half":
        out = np.frombuffer(rng.bytes(n), np.uint8) < 128
    elif data == "near1":
        scale = params.get("scale", 1e-9 if dt.itemsize == 8 else 1e-7)
        out = 1 + (rng.random(n, dtype=dt) - dt.type(0.5)) * dt.type(scale)
    elif data == "runs":
        heads = rng.random(n, dtype=np.float32) < np.float32(1 / params.get("mean", 16))
        heads[:1] = True
        out = np.cumsum(heads, dtype=dt)
    elif data == "distinct":
        out = rng.integers(1, params["distinct"] + 1, n, dtype=np.int64).astype(dt)
    elif data == "lengths":
        out = rng.integers(0, params["max_len"] + 1, n, dtype=np.int64).astype(dt)
    elif data == "sky":
        out = sky(n)
        if out is None:
            return None
    else:
        raise ValueError(f"workloads: no data {data!r}")
    out = out.reshape(shape)
    return out if xp is None or xp is np else xp.asarray(out)
