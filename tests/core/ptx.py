"""What the NVRTC gate reads from PTX: each kernel's static shared memory and the inline assembly
it reaches.

The gate (tests/core/test_nvrtc.py) compiles every instantiation to PTX for compute_90, the front
end and code generation with sm_90's ``__CUDA_ARCH__``. ptxas, which turns PTX into a cubin, is
most of a cubin compile's time, and it checks two things PTX generation does not: the text of
inline assembly (pasted into the PTX unread) and resource limits such as static shared memory.
Both are read here, so that ptxas runs on only a few instantiations:

- :func:`kernels` gives each ``.entry`` its static shared memory (the ``.shared`` variables it and
  the functions it calls name) and the shapes of the inline assembly blocks it reaches (each
  block with its register numbers dropped, so ``ld.global.nc.v4.u32 {%r1,%r2,%r3,%r4}, [%rd7];``
  and the same load of other registers are one shape);
- :func:`asm_cover` picks kernels that between them reach every shape, the ones compiled on
  through ptxas.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Kernel", "kernels", "asm_cover", "STATIC_SHARED_LIMIT"]

#: static shared memory a kernel may declare on every architecture from 7.0 (more needs dynamic
#: shared memory and an opt-in)
STATIC_SHARED_LIMIT = 48 * 1024

_HEAD = re.compile(
    r"^[ \t]*(?:\.(?:visible|weak|extern)[ \t]+)*\.(entry|func)[ \t]+(?:\([^)]*\)[ \t]*)?([\w$]+)",
    re.M,
)
_SHARED = re.compile(
    r"^[ \t]*(\.extern[ \t]+)?\.shared[ \t]+(?:\.align[ \t]+(\d+)[ \t]+)?\.[a-z]+?(\d+)[ \t]+"
    r"([\w$]+)((?:\[\d*\])*)[ \t]*(?:=[^;]*)?;",
    re.M,
)
_ASM = re.compile(r"// begin inline asm\n(.*?)// end inline asm", re.S)
_REG = re.compile(r"%([a-z]+)\d+")
_WORD = re.compile(r"[A-Za-z_$][\w$]*")
_BRACE = re.compile(r"[{}]")


@dataclass
class _Fn:
    body: str
    shared: set[str] = field(default_factory=set)
    asm: set[str] = field(default_factory=set)
    calls: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class Kernel:
    """One ``.entry``: its static shared memory in bytes and its inline assembly shapes."""

    shared_bytes: int
    asm: frozenset[str]


def _bodies(ptx: str) -> tuple[dict[str, tuple[str, str]], str]:
    """``{name: (kind, body)}`` of every defined entry and function, and the text outside them."""
    out: dict[str, tuple[str, str]] = {}
    outside = []
    pos = 0
    for m in _HEAD.finditer(ptx):
        if m.start() < pos:
            continue  # a header inside a body already read (none in NVVM's PTX)
        stop = min(
            (i for i in (ptx.find(";", m.end()), ptx.find("{", m.end())) if i >= 0), default=-1
        )
        if stop < 0 or ptx[stop] == ";":
            continue  # a prototype
        depth, end = 0, -1
        for b in _BRACE.finditer(ptx, stop):
            depth += 1 if b.group() == "{" else -1
            if depth == 0:
                end = b.end()
                break
        if end < 0:
            raise ValueError(f"PTX: the body of {m.group(2)} does not close")
        outside.append(ptx[pos : m.start()])
        out[m.group(2)] = (m.group(1), ptx[stop:end])
        pos = end
    outside.append(ptx[pos:])
    return out, "".join(outside)


def _sizes(text: str) -> dict[str, tuple[int, int]]:
    """``{name: (bytes, align)}`` of the static ``.shared`` variables declared in ``text``."""
    out = {}
    for m in _SHARED.finditer(text):
        if m.group(1):
            continue  # extern: dynamic shared memory, sized at launch
        count = 1
        for dim in re.findall(r"\[(\d*)\]", m.group(5)):
            count *= int(dim) if dim else 0
        elem = int(m.group(3)) // 8
        out[m.group(4)] = (elem * count, int(m.group(2) or elem))
    return out


def kernels(ptx: str | bytes) -> dict[str, Kernel]:
    """Every ``.entry`` of ``ptx`` (by its mangled name) with its static shared memory (the
    variables it and the functions it calls, directly or not, name, each at its alignment) and
    the inline assembly shapes it reaches."""
    text = ptx.decode() if isinstance(ptx, bytes) else ptx
    text = text.rstrip("\0")
    bodies, outside = _bodies(text)
    sizes = _sizes(outside)
    fns: dict[str, _Fn] = {}
    for name, (_, body) in bodies.items():
        own = _sizes(body)
        sizes.update(own)
        fns[name] = _Fn(body)
    for name, fn in fns.items():
        words = set(_WORD.findall(fn.body))
        fn.shared = words & sizes.keys()
        fn.calls = (words & fns.keys()) - {name}
        fn.asm = {_REG.sub(r"%\1", a).strip() for a in _ASM.findall(fn.body)}

    def reach(name: str) -> tuple[set[str], set[str]]:
        shared, asm, seen, todo = set(), set(), {name}, [name]
        while todo:
            fn = fns[todo.pop()]
            shared |= fn.shared
            asm |= fn.asm
            for callee in fn.calls - seen:
                seen.add(callee)
                todo.append(callee)
        return shared, asm

    out = {}
    for name, (kind, _) in bodies.items():
        if kind != "entry":
            continue
        shared, asm = reach(name)
        total = 0
        for var in sorted(shared):
            size, align = sizes[var]
            total = -(-total // align) * align + size
        out[name] = Kernel(total, frozenset(asm))
    return out


def asm_cover(found: Mapping[str, Kernel]) -> list[str]:
    """Entries that between them reach every inline assembly shape of ``found`` (greedy: the one
    reaching the most shapes not yet reached first; names break ties)."""
    left = set().union(*(k.asm for k in found.values())) if found else set()
    chosen = []
    while left:
        best = max(sorted(found), key=lambda n: len(found[n].asm & left))
        chosen.append(best)
        left -= found[best].asm
    return chosen
