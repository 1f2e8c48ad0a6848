"""The sort kernels: instantiation names derived from the policies, their modules, and the shared
memory of the ranked-tile kernels.

One module per source file holds the instantiations of every policy of the table (registered for
the NVRTC check); a kernel of any other policy (an override, ``primitives.tuning``) compiles a
module of its own on demand. Value configurations: the value width in bytes, 0 for keys only.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from .._core import dtypes as _dtypes, loader as _loader
from .._core.keys import C, KEY_C, SORT_DTYPES
from . import _policy

ONESWEEP = "sorting/onesweep.cu"
#: onesweep.cu's plan kernel: a block of 256 threads, a thread a digit
ONESWEEP_PLAN = "onesweep_plan<256>"
CLASSIC = "sorting/classic.cu"
SPLIT = "sorting/split.cu"
SEGMENTED = "sorting/segsort.cu"
BLOCK = "sorting/block.cu"
IMAGE = "sorting/complex_image.cu"
PACK = "sorting/pack.cu"
VCFGS = (0, 4, 8)


def vc(vbytes):
    """(C++ value type, VALUES flag) of a value configuration (keys only: an unused u32)."""
    return (C[vbytes] if vbytes else "unsigned int"), ("true" if vbytes else "false")


def hist_name(kb, hpol):
    return f"onesweep_histogram<{KEY_C[kb]}, {hpol.block}>"


def pass_name(kb, vb, pol, select=0):
    """The pass kernel of ``pol``'s tile; ``select`` 1 or 2: one of a pass's two kernels (the
    spread passes' or the skewed ones', onesweep_pass's SELECT)."""
    vt, has = vc(vb)
    tail = f", {select}" if select else ""
    return (
        f"onesweep_pass<{KEY_C[kb]}, {vt}, {has}, {pol.block}, {pol.items}, {pol.min_blocks}, "
        f"{pol.window}, {pol.match}, {pol.prefetch}, {pol.parts}, {pol.constant_tiles}{tail}>"
    )


def pass_kernels(pol):
    """[(policy, SELECT)] of the pass kernels of ``pol``: itself alone (0), or, with a second
    tile for the spread passes, itself for the skewed passes (2) and the spread tile's (1)."""
    spread = pol.spread()
    return [(pol, 0)] if spread is None else [(pol, 2), (spread, 1)]


def pass_names(kb, vb, pol):
    """The names of ``pol``'s pass kernels (:func:`pass_kernels`)."""
    return [pass_name(kb, vb, p, s) for p, s in pass_kernels(pol)]


def classic_names(kb, vb, pol):
    """(histogram, scatter) of the classic sort."""
    vt, has = vc(vb)
    return (
        f"classic_histogram<{C[kb]}, {pol.block}, {pol.items}, {pol.bits}>",
        f"classic_scatter<{C[kb]}, {vt}, {has}, {pol.block}, {pol.items}, {pol.bits}>",
    )


def split_names(kb, vb):
    """(flags, scatter) of the split sort."""
    vt, has = vc(vb)
    return f"split_flags<{C[kb]}>", f"split_scatter<{C[kb]}, {vt}, {has}>"


def segmented_names(kb, vb, pol):
    """(warp, block) kernels of the segmented sort."""
    vt, has = vc(vb)
    return (
        f"segsort_warp<{C[kb]}, {vt}, {has}, {pol.warp_items}>",
        f"segsort_block<{C[kb]}, {vt}, {has}, {pol.block}, {pol.items}>",
    )


def block_name(kb, vb, tile):
    """The one-block sort of keys of ``kb`` bytes (with ``vb``-byte values, or the index as
    8-byte values: argsort) in a ``tile`` of (block, items)."""
    vt, has = vc(vb)
    return f"block_sort<{C[kb]}, {vt}, {has}, {tile[0]}, {tile[1]}>"


#: pack.cu's PackKind of a key dtype's kind
PACK_KIND = {
    "b": "PACK_BOOL",
    "u": "PACK_UNSIGNED",
    "i": "PACK_SIGNED",
    "f": "PACK_FLOAT",
    "c": "PACK_COMPLEX",
}


def pack_name(dt, wb):
    """pack_key of keys of dtype ``dt`` (one of the sort dtypes) into words of ``wb`` bytes: the
    key read as the unsigned bits of its elements (of its parts, complex)."""
    dt = np.dtype(dt)
    part = dt.itemsize // 2 if dt.kind == "c" else dt.itemsize
    return f"pack_key<{PACK_KIND[dt.kind]}, {_dtypes.cname(f'u{part}')}, {C[wb]}>"


def tile_smem(block, items, kv, bits, parts=1):
    """Dynamic shared memory of a ranked-tile kernel: rank counters (``parts`` sets of them,
    rounded up to 16 bytes), then the tile's keys or values, ``kv`` bytes an item
    (prim::radix::rank_counters and the kernels' layout; the on-chip sorts: key bytes + 2 for the
    16-bit positions, block_sort_smem)."""
    warps = block // 32
    masks = min(1 << bits, 32)  # prim::radix::rank_masks
    counters = 4 * (warps * ((1 << bits) + 1) * parts + warps * masks)
    return -(-counters // 16) * 16 + block * items * kv


def _table_names():
    """{source: instantiation names of every policy of the table}."""
    policies = _policy.TABLE.policies
    hist, cl, seg = policies("histogram"), policies("classic"), policies("segmented")
    onesweep = [hist_name(k, h) for h in hist for k in (2, 4, 8)] + [ONESWEEP_PLAN]
    onesweep += [
        name
        for k in (2, 4, 8)
        for v in VCFGS
        for p in policies((k, v))
        for q in (p, p.at(0))  # the large inputs' policy and, under large_from, the others'
        for name in pass_names(k, v, q)
    ]
    classic = [classic_names(k, 0, p)[0] for p in cl for k in (4, 8)]
    classic += [classic_names(k, v, p)[1] for p in cl for k in (4, 8) for v in VCFGS]
    split = [split_names(k, 0)[0] for k in (4, 8)]
    split += [split_names(k, v)[1] for k in (4, 8) for v in VCFGS]
    segmented = [
        name for p in seg for k in (4, 8) for v in VCFGS for name in segmented_names(k, v, p)
    ]
    block = [
        block_name(k, v, t)
        for p in policies("block")
        for k in (4, 8)
        for t in p.tiles(k)
        for v in VCFGS
    ]
    return {
        ONESWEEP: onesweep,
        CLASSIC: classic,
        SPLIT: split,
        SEGMENTED: segmented,
        BLOCK: block,
        IMAGE: ["complex64_image", "complex128_image"],
        # bfloat16 keys are packed as the float32 keys they widen to (keys.widened)
        PACK: [pack_name(d, wb) for d in SORT_DTYPES if d != _dtypes.BFLOAT16 for wb in (4, 8)],
    }


NAMES = {src: list(dict.fromkeys(names)) for src, names in _table_names().items()}
for _src, _names in NAMES.items():
    _loader.register(_src, _names)
#: candidates the tables leave off (compiled by the NVRTC check; tools.probes.pairs_tiles):
#: the pairs' passes in one tile (the policy's skewed tile ranked by lane masks), or in two, one
#: block of 512 x 24 an SM for the spread passes, ranked by lane masks or match 4, which count
#: their tiles or not
SPREAD_CANDIDATE = dict(spread_block=512, spread_items=24, spread_min_blocks=1, skew=24)
_loader.register(
    ONESWEEP,
    list(
        dict.fromkeys(
            name
            for p in _policy.TABLE.policies((4, 4))
            for q in [
                p.one_tile(),
                *(
                    dataclasses.replace(
                        p, **SPREAD_CANDIDATE, match=match, spread_constant_tiles=counted
                    )
                    for match in (1, 4)
                    for counted in (-1, 2)
                ),
            ]
            for name in pass_names(4, 4, q)
        )
    ),
    shipped=False,
)


def kernel(source, name):
    """Kernel ``name`` of ``source``: from the module of the table's policies, or (a policy being
    tuned) from a module of its own."""
    if name not in NAMES[source]:
        return _loader.load(source, [name])(name)
    return _loader.load(source, NAMES[source])(name)
