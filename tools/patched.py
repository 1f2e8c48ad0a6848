"""Experiments on kernel variants without touching the library: a kernel compiled from a copy of
the kernel tree with some text replaced (GPU only; used by the tuning tools)."""
import pathlib
import shutil
import tempfile

import cupy

from primitives import _loader


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
    opts = tuple(f"-I{root}" if o.startswith("-I") else o for o in _loader.nvrtc_options())
    mod = cupy.RawModule(code=(root / source).read_text(), options=opts,
                         name_expressions=list(names))
    mod.compile()
    return mod
