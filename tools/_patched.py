"""Experiments on kernel variants without touching the library: a kernel compiled from another
kernel tree, or from a copy of the library's with some text replaced, and swapped in for the
library's own for the length of a `with` block (GPU only; used by the tuning tools)."""
import pathlib
import shutil
import tempfile
from unittest import mock

import cupy

from primitives._core import loader as _loader, lookback as _lookback


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
    mod = cupy.RawModule(code=(pathlib.Path(root) / source).read_text(), options=opts,
                         name_expressions=list(names))
    mod.compile()
    return mod


def forget_plans(family):
    """Empty every plan cache of a library module (``primitives._core.lookback.PlanCache``): plans
    keep the kernels and policies of the time they were made, so a changed policy needs new
    ones."""
    for name in [n for n, v in vars(family).items() if isinstance(v, _lookback.PlanCache)]:
        setattr(family, name, _lookback.PlanCache())


class swapped_kernels:
    """A context manager, entered around every call it is for, within which
    ``family._kernel(source, name)`` (the kernel lookup of a library module such as
    primitives.sorting) returns ``kernels[name]`` (primitives._core.loader Kernels) for the names
    given, the library's own kernel for the others; and each plan cache of the module (every
    ``primitives._core.lookback.PlanCache`` in it) is one of this object's own, kept from one entry
    to the next, so that plans made with these kernels serve only calls within it."""

    def __init__(self, family, source, kernels):
        self.family, self.source, self.kernels = family, source, kernels
        self.caches = {name: _lookback.PlanCache() for name, value in vars(family).items()
                       if isinstance(value, _lookback.PlanCache)}
        self.patches = []

    def __enter__(self):
        orig, source, kernels = self.family._kernel, self.source, self.kernels
        self.patches = [mock.patch.object(
            self.family, "_kernel",
            lambda src, nm: kernels[nm] if src == source and nm in kernels else orig(src, nm))]
        self.patches += [mock.patch.object(self.family, name, cache)
                         for name, cache in self.caches.items()]
        for p in self.patches:
            p.start()
        return self

    def __exit__(self, *exc):
        for p in reversed(self.patches):
            p.stop()
        return False
