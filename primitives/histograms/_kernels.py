"""Kernel names: every instantiation of ``kernels/histograms/histogram.cu``, ``channels.cu`` and
``dd.cu``.

A kernel is templated on the sample type, the binner and the accumulation (counts, float64
weights, and for the variants auto runs also float32 weights: :func:`._choose.accumulations`);
the production kernels also on the production policy's block and the dtype's loads in flight
(warp_replicated on its staging slots after them). One module per variant (a test or tour
touching one variant compiles only that one) holds every dtype, binner and accumulation under
the policies in force; under an overridden policy a production variant compiles the sample
dtype's instantiations on demand, in a module of their own. Every policy of the table is
registered for the NVRTC check. ``dd.cu`` (histogramdd): one module per sample dtype, every
binner, accumulation and dimension count (:data:`DD_MODULES`).
"""

from __future__ import annotations

import functools

import numpy as np

from .._core import loader as _loader, ops as _ops
from . import _policy
from ._binning import (
    ACCS,
    BINNERS,
    CHANNEL_BINNERS,
    CTYPES,
    DD_ACCS,
    DD_BINNERS,
    F32,
    SAMPLE_DTYPES,
    SMALL,
)
from ._choose import VARIANT_TABLE, VARIANTS, accumulations

SOURCE = "histograms/histogram.cu"
CHANNELS_SOURCE = "histograms/channels.cu"
DD_SOURCE = "histograms/dd.cu"
#: dimensions the one-pass kernel takes (kernels/histograms/dd.cu: DD_MAX, the DDSamples layout)
DD_MAX = 32
#: dimensions with a kernel of their own (the others: the generic loop, D = 0)
UNROLLED = (1, 2, 3)
#: the stage count the NVRTC check compiles warp_replicated's staged count kernels with for the
#: dtypes whose loads policy keeps the register walk (the library launches none of them)
STAGED_CHECK = 4


def binner_name(dt, kind, extra):
    c = CTYPES[dt]
    if kind == "byte":
        return f"prim::BinByte<{c}>"
    if kind == "shift":
        return f"prim::BinShift<{c}>"
    if kind == "lut":
        return f"prim::BinLut<{c}>"
    if kind == "even":
        return f"prim::BinEven<{c}, {CTYPES[extra]}>"
    return f"prim::BinEdges<{c}, {CTYPES[extra]}>"


def kernel_name(variant, dt, kind, extra, acc, prod, loads, stages=0, m=None):
    """``variant``'s kernel for samples of ``dt`` binned by (``kind``, ``extra``) into ``acc``;
    ``prod``, ``loads``: the production and loads policies (production variants only); ``m``: a
    map (:class:`~.._core.ops.Map`) the samples are read through (the kernel's element type its
    ``m.ctype(dt)``, the binner's still of ``dt``), or None."""
    spec = VARIANT_TABLE[variant]
    tail = f", {prod.block}, {loads.vectors}" if spec.production else ""
    if variant == "warp_replicated":
        tail += f", {stages}"
    elem = CTYPES[dt] if m is None else m.ctype(dt)
    return f"{spec.kernel}<{elem}, {binner_name(dt, kind, extra)}, {ACCS[acc]}{tail}>"


def _dtype_names(variant, dt, prod, loads):
    """``variant``'s instantiations for samples of ``dt``: every binner and accumulation of the
    variant, and for warp_replicated also the staged count kernels of ``loads``."""
    names = [
        kernel_name(variant, dt, kind, extra, acc, prod, loads)
        for kind, extra in BINNERS[dt]
        for acc in accumulations(variant)
    ]
    if variant == "warp_replicated":
        names += [
            kernel_name(variant, dt, kind, extra, "count", prod, loads, s)
            for s in sorted({loads.stages, loads.stages_few_copies})
            if s
            for kind, extra in BINNERS[dt]
        ]
    return names


@functools.lru_cache(maxsize=64)
def module_names(variant, prod, loads):
    """The instantiations of ``variant``'s module: every sample dtype under the production
    policy ``prod`` and ``loads`` (the loads policy of each of :data:`SAMPLE_DTYPES`)."""
    return tuple(
        n for dt, pol in zip(SAMPLE_DTYPES, loads) for n in _dtype_names(variant, dt, prod, pol)
    )


def policies():
    """(production policy, loads policies of every sample dtype) in force."""
    return _policy.production(), tuple(_policy.loads(dt) for dt in SAMPLE_DTYPES)


@functools.lru_cache(maxsize=64)
def _in_table(prod, loads):
    """Whether the production policy ``prod`` and every dtype's loads policy of ``loads`` are
    policies of the table (no override of a test or a tuning run among them)."""
    return prod in _policy.TABLE.policies("production") and all(
        pol in _policy.TABLE.policies(dt.name) for dt, pol in zip(SAMPLE_DTYPES, loads)
    )


def kernel(variant, binning, acc, stages=0, m=None):
    """``variant``'s kernel for ``binning`` and ``acc`` under the policies in force: from the
    variant's module of every dtype under the table's policies (and for the textbook variants,
    whose names the policies do not enter), from the module of the sample dtype's instantiations
    alone under an override (a test's or a tuning run's, which launches a dtype or two: on the
    emulator the whole module of an override was 104-118 instantiations compiled for a few).
    With a map ``m`` (the samples read through it): the one instantiation, in a source of its
    own (:func:`primitives._core.ops.kernel`; a compile error names the map)."""
    prod, loads = policies()
    dt = binning.dtype
    pol = loads[SAMPLE_DTYPES.index(dt)]
    name = kernel_name(variant, dt, binning.kind, binning.extra, acc, prod, pol, stages, m)
    if m is not None:
        return _ops.kernel(SOURCE, None, dt, name, m, dt)
    if not VARIANT_TABLE[variant].production or _in_table(prod, loads):
        return _loader.load(SOURCE, module_names(variant, prod, loads))(name)
    names = _dtype_names(variant, dt, prod, pol)
    return _loader.load(SOURCE, names if name in names else [name])(name)


def tally_name(prod, bounded=None):
    """The bucketed variant's last kernel (its counts of 16-bit bins) of the production policy
    ``prod``: its block, and its counters' adds (``bounded``: None, the policy's)."""
    bounded = prod.bucket_tally_bounded if bounded is None else bounded
    return f"hist_bucket_tally<{prod.block}, {'true' if bounded else 'false'}>"


def tally_kernel(prod):
    """The bucketed tally of ``prod``: its policy's adds alone (the other's instantiation is a
    candidate, registered for the NVRTC check, not shipped)."""
    return _loader.load(SOURCE, [tally_name(prod)])(tally_name(prod))


def minmax_acc(dt):
    """dtype of hist_minmax's partials (MinMaxOf<T>): int for small integers and float32 keys."""
    return np.dtype(np.int32) if dt in SMALL or dt == F32 else dt


def minmax_names(pol):
    return [f"hist_minmax<{CTYPES[dt]}, {pol.block}>" for dt in SAMPLE_DTYPES]


def minmax_kernel(dt, pol):
    return _loader.load(SOURCE, minmax_names(pol))(f"hist_minmax<{CTYPES[dt]}, {pol.block}>")


def channel_name(dt, kind, extra, pol, loads):
    return (
        f"hist_channels<{CTYPES[dt]}, {binner_name(dt, kind, extra)}, {pol.block}, {loads.vectors}>"
    )


@functools.lru_cache(maxsize=16)
def channel_names(pol, loads):
    return tuple(
        channel_name(dt, k, e, pol, p)
        for (dt, bs), p in zip(CHANNEL_BINNERS.items(), loads)
        for k, e in bs
    )


def channels_kernel(binning, pol):
    _, loads = policies()
    dt = binning.dtype
    name = channel_name(dt, binning.kind, binning.extra, pol, loads[SAMPLE_DTYPES.index(dt)])
    return _loader.load(CHANNELS_SOURCE, channel_names(pol, loads))(name)


def dd_kernel_name(dt, kind, extra, acc, d, pol):
    """hist_dd for samples of ``dt``, binner (``kind``, ``extra``), ``acc``, ``d`` dimensions
    (0: the generic loop) under the dd policy ``pol``."""
    return (
        f"hist_dd<{CTYPES[dt]}, {binner_name(dt, kind, extra)}, {DD_ACCS[acc]}, {d}, {pol.block}>"
    )


def _dd_module_names(dt, pol):
    """One module per sample dtype: every binner, accumulation and dimension count."""
    return [
        dd_kernel_name(dt, kind, extra, acc, d, pol)
        for kind, extra in DD_BINNERS[dt]
        for acc in DD_ACCS
        for d in (*UNROLLED, 0)
    ]


def _register():
    """Every instantiation of every policy in the table, for the NVRTC check."""
    of = {kind: _policy.TABLE.policies(kind) for kind in ("production", "channels", "minmax")}
    loads = {dt: _policy.TABLE.policies(dt.name) for dt in SAMPLE_DTYPES}
    for variant in VARIANTS:
        for prod in of["production"]:
            _loader.register(
                SOURCE,
                [
                    n
                    for dt in SAMPLE_DTYPES
                    for pol in loads[dt]
                    for n in _dtype_names(variant, dt, prod, pol)
                ],
            )
    for prod in of["production"]:  # the staged walk compiled for every dtype
        _loader.register(
            SOURCE,
            [
                kernel_name("warp_replicated", dt, kind, extra, "count", prod, pol, STAGED_CHECK)
                for dt in SAMPLE_DTYPES
                for pol in loads[dt]
                if not pol.stages
                for kind, extra in BINNERS[dt]
            ],
        )
    for prod in of["production"]:
        _loader.register(SOURCE, [tally_name(prod)])
        _loader.register(SOURCE, [tally_name(prod, not prod.bucket_tally_bounded)], shipped=False)
    for pol in of["minmax"]:
        _loader.register(SOURCE, minmax_names(pol))
    for pol in of["channels"]:
        _loader.register(
            CHANNELS_SOURCE,
            [
                channel_name(dt, k, e, pol, p)
                for dt, bs in CHANNEL_BINNERS.items()
                for p in loads[dt]
                for k, e in bs
            ],
        )


_register()
#: hist_dd's modules (registered for the NVRTC check); ``DD_MODULES.kernel(dt, name, pol)``
DD_MODULES = _loader.PolicyModules(
    DD_SOURCE, _dd_module_names, _policy.TABLE, tuple(DD_BINNERS), selector=lambda dt: "dd"
)
