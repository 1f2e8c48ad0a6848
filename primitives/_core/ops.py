"""User-defined binary operators: :class:`Op`, a C++ expression of two operands ``a`` and ``b``
with its identity, compiled into the same kernel templates as the named operators.

A family that takes an operator by name (``"sum"``, ``"max"``, ...) names its functor in a
kernel instantiation (``reduce_production<float, float, prim::Sum<float>, ...>``). An :class:`Op`
is a functor too: ``prim_user::op_<key><T>``, defined for the accumulator type ``T`` of a call
by a few lines placed before the kernel source (:func:`source`: a source of its own, the
kernel file included after the functor). It is compiled as every other instantiation is, on
first use (NVRTC on a GPU, the host compiler on the emulator), and cached under its own source,
so a user operator costs what a named one costs once compiled. Operands and results are of the
accumulator dtype (:data:`DTYPES`).
"""

from __future__ import annotations

import hashlib
import numbers
from typing import Any

import numpy as np

from . import checks as _checks, dtypes as _dtypes, entry as _entry, loader as _loader

__all__ = ["Op", "Map", "DTYPES", "NAMED", "as_map", "check_dtype", "functor", "kernel", "source"]

#: the named operators' functor templates (util/prim.cuh)
NAMED = {"sum": "prim::Sum", "prod": "prim::Prod", "min": "prim::Min", "max": "prim::Max"}

#: the accumulator dtypes an :class:`Op` computes in (its operands, results and identity), and
#: the element dtypes a :class:`Map` reads: the 4- and 8-byte real dtypes
DTYPES = tuple(_dtypes.CTYPES)
_CTYPES = _dtypes.CTYPES
_FORBIDDEN = (";", "{", "}", "#", '"', "\\", "//", "/*")


@_entry.keyed_option
class Op:
    """A binary operator of your own: ``expr``, a C++ expression of the operands ``a`` and
    ``b`` (both of the call's accumulator type), and ``identity``, the value that leaves any
    operand unchanged (the result over no elements). ``prim.Op("a + b", identity=0)`` is a sum;
    ``prim.Op("a > b ? a : b", identity=-np.inf)`` a maximum of floats; ``prim.Op("a ^ b", 0)``
    an exclusive or of integers. The operator must be associative and, for the reductions,
    commutative: the kernels combine elements in an order of their own (as CUB's), so any other
    operator gives results in an undefined order. Accepted wherever a reduction or a scan takes
    ``op``: ``reduce``, ``inclusive_scan``, ``exclusive_scan``, ``segmented_reduce``,
    ``segmented_scan``, ``reduce_by_key``.

    The expression is C++ (device code): the CUDA math functions, ``min``/``max``, casts and the
    conditional operator are available; it is compiled once per accumulator dtype and cached.
    A compile error raises :class:`~primitives.KernelCompileError` naming the operator and the
    compiler's first message."""

    __slots__ = ("expr", "identity", "key", "template")
    expr: str
    identity: float
    key: str
    template: str

    def __init__(self, expr: str, identity: float) -> None:
        text = _expression(expr, "Op", "a and b", "'a + b'")
        if isinstance(identity, (bool, np.bool_)) or not isinstance(
            identity, (numbers.Real, np.integer, np.floating)
        ):
            raise TypeError(f"Op: identity must be a real number (int or float), got {identity!r}")
        self.expr = text
        self.identity = identity.item() if isinstance(identity, np.generic) else identity
        digest = hashlib.sha256(
            repr((self.expr, self.identity, type(self.identity).__name__)).encode()
        )
        self.key = digest.hexdigest()[:16]
        #: the functor's template, as a kernel instantiation names it (``<T>`` appended)
        self.template = f"prim_user::op_{self.key}"

    def __repr__(self) -> str:
        return f"Op({self.expr!r}, identity={self.identity!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Op) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def identity_of(self, dt: Any) -> Any:
        """The identity as a NumPy scalar of the accumulator dtype ``dt``."""
        return np.array(self.identity).astype(dt)[()]


def functor(op: Any, ctype: str) -> str:
    """The functor type a kernel instantiation names for ``op`` (a named operator of
    :data:`NAMED` or a user :class:`Op`) over the C++ type ``ctype``."""
    return f"{op.template if isinstance(op, Op) else NAMED[op]}<{ctype}>"


def accumulator(op: Op, in_dt: Any, dtype: Any, func: str) -> np.dtype:
    """The accumulator dtype of ``op`` over elements of ``in_dt``: the input's own, or a
    ``dtype=`` request (the elements cast to it), checked (:func:`check_dtype`)."""
    acc = np.dtype(in_dt) if dtype is None else np.dtype(_checks.native_dtype(dtype))
    check_dtype(op, acc, func)
    return acc


def check_map(m: Map | None, in_dt: Any, cast: Any, func: str) -> None:
    """TypeError naming ``func`` where the map ``m`` (None: nothing to check) cannot read the
    elements as they are: their dtype ``in_dt`` none of :data:`DTYPES`, or a call that casts
    them to ``cast`` first (None: no cast)."""
    if m is not None and (np.dtype(in_dt) not in DTYPES or cast is not None):
        names = ", ".join(d.name for d in DTYPES)
        raise TypeError(
            f"{func}: {m!r} reads {names} as they are; got x of dtype {np.dtype(in_dt)}"
            + ("" if cast is None else f" cast to {np.dtype(cast)}")
        )


def check_dtype(op: Op, dt: Any, func: str) -> None:
    """TypeError naming ``func`` where ``dt`` is no accumulator dtype of an :class:`Op`,
    ValueError where ``op``'s identity has no exact value in it."""
    dt = np.dtype(dt)
    if dt not in DTYPES:
        names = ", ".join(d.name for d in DTYPES)
        raise TypeError(
            f"{func}: {op!r} computes in {names}; got dtype {dt} (cast the elements to one, or "
            f"give dtype= where the function takes it)"
        )
    ident = op.identity
    if dt.kind in "iu":
        ok = float(ident).is_integer() and np.iinfo(dt).min <= ident <= np.iinfo(dt).max
    else:
        ok = True  # a float identity rounds to the dtype as NumPy casts it
    if not ok:
        raise ValueError(f"{func}: the identity of {op!r} has no value in {dt}")


def _literal(value: float, dt: np.dtype) -> str:
    """A C++ expression of the exact value ``value`` in the C++ type of ``dt`` (floats by their
    bits: infinities and NaN too)."""
    v = np.array(value).astype(dt)
    if dt == np.float32:
        return f"__int_as_float(0x{int(v.view(np.uint32)):08x})"
    if dt == np.float64:
        return f"__longlong_as_double(0x{int(v.view(np.uint64)):016x}ll)"
    bits = int(v.astype(np.uint64) if dt.kind == "u" else v.view(np.dtype(f"u{dt.itemsize}")))
    return f"static_cast<{_CTYPES[dt]}>(0x{bits:x}ull)"


def prelude(op: Op, dt: Any) -> str:
    """The C++ lines that define ``op``'s functor for the accumulator dtype ``dt``."""
    c = _CTYPES[np.dtype(dt)]
    return (
        "namespace prim_user {\n"
        f"template <class T> struct op_{op.key};\n"
        f"template <> struct op_{op.key}<{c}> {{\n"
        f"    typedef {c} value_type;\n"
        f"    static __device__ __forceinline__ {c} identity() {{ return {_literal(op.identity, dt)}; }}\n"
        f"    __device__ __forceinline__ {c} operator()({c} a, {c} b) const {{\n"
        f"        return static_cast<{c}>(\n"
        f'#line 1 "{_line_name(op)}"\n'
        f"{op.expr}\n"
        "        );\n"
        "    }\n"
        "};\n"
        "}  // namespace prim_user\n"
    )


def _line_name(op: Op) -> str:
    return "Op(" + op.expr.replace("'", "") + ")"


class Map:
    """A transform on load (``map=``): a C++ expression of one element ``v``, applied to each
    element as it is read (no temporary array), its result of the element's own dtype
    (:data:`DTYPES`): ``map="v * v"`` makes a sum a sum of squares. Made by the functions that
    take ``map=`` from its string (:func:`as_map`)."""

    __slots__ = ("expr", "key")

    def __init__(self, expr: str) -> None:
        self.expr = _expression(expr, "map", "v", "'v * v'")
        self.key = hashlib.sha256(self.expr.encode()).hexdigest()[:16]

    def __repr__(self) -> str:
        return f"map={self.expr!r}"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Map) and other.key == self.key

    def __hash__(self) -> int:
        return hash(("map", self.key))

    def ctype(self, dt: Any) -> str:
        """The C++ type of elements of ``dt`` read through this map (:func:`map_prelude`)."""
        return f"prim_user::map_{self.key}_{np.dtype(dt).name}"


def as_map(value: Any, func: str) -> Map | None:
    """``map=`` of a public function: None, or a :class:`Map` of a string (TypeError naming
    ``func`` for anything else, ValueError for no single expression)."""
    if value is None or isinstance(value, Map):
        return value
    if not isinstance(value, str):
        raise TypeError(f"{func}: map must be a str (a C++ expression of v), got {value!r}")
    try:
        return Map(value)
    except ValueError as exc:
        raise ValueError(f"{func}: {exc}") from None


def map_prelude(m: Map, dt: Any) -> str:
    """The C++ lines that define the element type of ``dt`` read through ``m``: a struct of one
    element whose conversion to any type applies the expression (in the element's type), with
    the 16-byte vector loads of its element (util/load.cuh's Vec16 and HasVec16, inherited)."""
    dt = np.dtype(dt)
    c = _CTYPES[dt]
    name = m.ctype(dt).split("::")[1]
    return (
        '#include "util/prim.cuh"\n'
        '#include "util/load.cuh"\n'
        "namespace prim_user {\n"
        f"struct {name} {{\n"
        f"    {c} v;\n"
        "    template <class A> __device__ __forceinline__ operator A() const {\n"
        f"        const {c} v = this->v;\n"
        f"        return static_cast<A>(static_cast<{c}>(\n"
        f'#line 1 "map({m.expr.replace(chr(39), "")})"\n'
        f"{m.expr}\n"
        "        ));\n"
        "    }\n"
        "};\n"
        "}  // namespace prim_user\n"
        "namespace prim {\n"
        f"template <> struct Vec16<prim_user::{name}> : Vec16<{c}> {{}};\n"
        f"template <> struct HasVec16<prim_user::{name}> : HasVec16<{c}> {{}};\n"
        "}  // namespace prim\n"
    )


def _expression(expr: Any, what: str, names: str, example: str) -> str:
    """``expr`` as one C++ expression (whitespace normalized), or the errors of :class:`Op`."""
    if not isinstance(expr, str):
        raise TypeError(f"{what}: expr must be a str (a C++ expression of {names}), got {expr!r}")
    text = " ".join(expr.split())
    if not text:
        raise ValueError(f"{what}: expr is empty; give a C++ expression of {names}, as {example}")
    if any(s in text for s in _FORBIDDEN) or len(text) > 2000:
        raise ValueError(
            f"{what}: expr must be one C++ expression of {names} (no statements, comments or "
            f"preprocessor lines, at most 2000 characters), got {expr!r}"
        )
    return text


def source(relpath: str, op: Any, dt: Any, m: Map | None = None, in_dt: Any = None) -> str:
    """The kernel source of ``relpath`` with, before it, ``op``'s functor for ``dt`` (a user
    :class:`Op`; a named operator needs none) and ``m``'s element type for ``in_dt`` (a
    :class:`Map`, or None): the relpath of a source of its own (registered with the loader),
    whose instantiations name ``{op.template}<{C++ type of dt}>`` and ``m.ctype(in_dt)``."""
    dt = np.dtype(dt)
    parts, tags = [], []
    if m is not None:
        parts.append(map_prelude(m, in_dt))
        tags.append(f"map{m.key}-{np.dtype(in_dt).name}")
    if isinstance(op, Op):
        parts.append(prelude(op, dt))
        tags.append(f"{op.key}-{dt.name}")
    name = f"{relpath}@{'@'.join(tags)}"
    _loader.add_source(name, "".join(parts) + f'#include "{relpath}"\n')
    return name


def kernel(
    relpath: str, op: Any, dt: Any, name: str, m: Map | None = None, in_dt: Any = None
) -> Any:
    """The instantiation ``name`` of ``relpath`` with ``op`` for the accumulator dtype ``dt``
    (and the map ``m`` of the input dtype ``in_dt``); a compile error names the operator (and
    the map) and the compiler's first message."""
    rel = source(relpath, op, dt, m, in_dt)
    try:
        return _loader.load(rel, [name])(name)
    except _loader.KernelCompileError as exc:
        what = " and ".join(repr(p) for p in (op, m) if isinstance(p, (Op, Map)))
        raise _loader.KernelCompileError(
            f"compiling {what} for {np.dtype(dt)}", exc.log, [name], exc.instantiation, exc.log_path
        ) from None
