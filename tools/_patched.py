"""Experiments on kernel variants without touching the library: a kernel compiled from another
kernel tree, or from a copy of the library's with some text replaced, and swapped in for the
library's own for the length of a `with` block (GPU only; used by the tuning tools)."""

import pathlib
import shutil
import tempfile
from unittest import mock

import cupy

import primitives as prim
from primitives._core import loader as _loader


def patched_kernel(source, name, edits):
    """Kernel ``name`` of ``source`` (a path under kernels/) compiled from a copy of the kernel
    tree in which ``edits`` ({path under kernels/: [(old, new), ...]}) are applied; every ``old``
    must occur. Returns CuPy's function."""
    return patched_module(source, [name], edits).get_function(name)


def patched_module(source, names, edits):
    """The module of ``source`` with instantiations ``names``, compiled from a patched copy of
    the kernel tree as :func:`patched_kernel` (for its globals: ``get_global``)."""
    root = pathlib.Path(tempfile.mkdtemp()) / "kernels"
    shutil.copytree(_loader.kernels_root(), root)
    for rel, pairs in edits.items():
        f = root / rel
        text = f.read_text()
        for old, new in pairs:
            assert old in text, f"{rel}: {old!r} not found"
            text = text.replace(old, new)
        f.write_text(text)
    return tree_module(root, source, names)


def tree_module(root, source, names):
    """The module of ``source`` (a path under the kernel tree ``root``) with instantiations
    ``names``, compiled with the library's NVRTC options but ``root`` to include from."""
    opts = tuple(f"-I{root}" if o.startswith("-I") else o for o in _loader.nvrtc_options())
    mod = cupy.RawModule(
        code=(pathlib.Path(root) / source).read_text(), options=opts, name_expressions=list(names)
    )
    mod.compile()
    return mod


def forget_plans():
    """Forget every plan (``primitives.clear_caches``): their scratch goes back to CuPy's pool.
    Plans are keyed by the policies they were made with, so a policy override needs no
    forgetting; kernels swapped in by :class:`swapped_kernels` do."""
    prim.clear_caches()


class swapped_kernels:
    """A context manager within which ``lookup.kernel(source, name)`` (the kernel lookup of a
    family, e.g. ``primitives.sorting._kernels``) returns ``kernels[name]``
    (primitives._core.loader Kernels) for the names given, the library's own kernel for the
    others.

    Plans hold the kernels they were made with, so the plan cache is emptied on entry and on
    exit (:func:`forget_plans`): calls within the block make and use plans of these kernels,
    and no such plan serves a call after it. To time many calls with swapped kernels, make a
    plan within the block (``p = prim.plan(prim.sort, x)``) and call it after: it keeps its
    kernels."""

    def __init__(self, lookup, source, kernels):
        self.lookup, self.source, self.kernels = lookup, source, kernels
        self.patch = None

    def __enter__(self):
        orig, source, kernels = self.lookup.kernel, self.source, self.kernels
        self.patch = mock.patch.object(
            self.lookup,
            "kernel",
            lambda src, nm: kernels[nm] if src == source and nm in kernels else orig(src, nm),
        )
        forget_plans()
        self.patch.start()
        return self

    def __exit__(self, *exc):
        self.patch.stop()
        forget_plans()
        return False
